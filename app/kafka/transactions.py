"""Producers and transactions on the Kafka backend (docs/kafka-protocol.md#transactions):
InitProducerId, TxnOffsetCommit, EndTxn, ListTransactions and DescribeTransactions, sent to
the transaction coordinator of the transactional id or the group coordinator of the group.

What the broker of Kafka 4.4 does, with the second version of transactions (KIP-890), and what
this module makes of it:

- A transactional produce adds its partition itself (``app.kafka.produce``), and so does a
  TxnOffsetCommit its group: no AddPartitionsToTxn and no AddOffsetsToTxn are sent (the tests
  show the offsets committed and aborted with the transaction without it).
- Every end bumps the epoch, and EndTxn answers the identity of the next transaction: that is
  the contract's answer. An end sent again with the epoch before the bump is taken by Kafka as
  a retry: the same end answers the same identity, the opposite end ``INVALID_TXN_STATE``.
- EndTxn answers once the decision is written; the markers follow. The contract answers once
  the end is complete, so the end here waits, asking DescribeTransactions, until the
  transaction is ``CompleteCommit`` or ``CompleteAbort``.
- InitProducerId with a transaction open aborts it and answers ``CONCURRENT_TRANSACTIONS``
  until the abort is complete: it is asked again until it answers, so that the answer comes
  after the abort, as the contract says.
- A transaction left open past its timeout is aborted by the broker, which bumps the epoch.
  Kafka never answers KIP-588's ``TRANSACTION_TIMED_OUT``: a commit with the old epoch gets
  ``INVALID_TXN_STATE``, offsets ``INVALID_PRODUCER_EPOCH``. Where DescribeTransactions shows
  the transaction aborted at the next epoch after it was open longer than its timeout, the
  answer is the contract's ``TRANSACTION_TIMED_OUT`` (``timed_out``).
- Kafka cannot check every part of a one-request commit before the first is written: a part
  refused after another was written leaves that other in the transaction, and the answer is
  ``TransactionAbortable`` (the client aborts).

Not here: the contract's commit of several transactional ids at once and share
acknowledgements in a transaction, which Kafka 4.4 does not have (``KafkaUnsupported``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar, overload
from uuid import UUID

from app.clock import Clock, SystemClock
from app.errors import (
    Conflict,
    ErrorCode,
    InvalidRequest,
    NotFound,
    SluiceError,
    Throttled,
    Unsupported,
)
from app.groups.group import OffsetCommit
from app.groups.membership import unknown_member
from app.kafka.cluster import GROUP, TRANSACTION, Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.groups import owned_by
from app.kafka.produce import KafkaProduce
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    DescribeTransactionsRequest,
    DescribeTransactionsResponse,
    EndTxnRequest,
    EndTxnResponse,
    InitProducerIdRequest,
    InitProducerIdResponse,
    ListTransactionsRequest,
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
)
from app.share.partition import AckBatch
from app.transactions.state import TxnMetadata, TxnState
from app.transactions.work import CommitAll, TxnIdentity, TxnWork

R = TypeVar("R", bound=Response)

CONCURRENT_TRANSACTIONS = 51
INVALID_TXN_STATE = 48
INVALID_PRODUCER_EPOCH = 47
PRODUCER_FENCED = 90
TRANSACTIONAL_ID_NOT_FOUND = 105
ILLEGAL_GENERATION = 22
STALE_MEMBER_EPOCH = 113
# how long a call waits for the broker to finish an end (its markers) or an abort it started
DEFAULT_WAIT_MS = 30_000
_BACKOFF_S = (0.02, 0.05, 0.1, 0.2)

# Kafka's states as the contract names them; PrepareEpochFence (an abort a new instance
# started) is shown as PrepareAbort
_STATES: dict[str, TxnState] = {s.value: s for s in TxnState}
_STATES["PrepareEpochFence"] = TxnState.PREPARE_ABORT
_IDLE = frozenset({TxnState.EMPTY, TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT})


class KafkaUnsupported(Unsupported):
    """A request Kafka 4.4 cannot serve as the contract promises, refused before anything is
    sent: ``UNSUPPORTED_ON_KAFKA_BACKEND``, ``unsupported`` the stable name docs/kafka.md#errors
    gives it (in the message too, for a client that reads only the message)."""

    def __init__(self, unsupported: str, message: str) -> None:
        super().__init__(unsupported, f"{message} (unsupported: {unsupported})")


class TransactionAbortable(Conflict):
    """The transaction holds part of a request that was refused after that part was written
    (docs/kafka.md proposes ``TRANSACTION_ABORTABLE`` for it): it can only be aborted. Until the
    error table has that code it is ``INVALID_TXN_STATE``, the message saying so."""

    def __init__(self, message: str) -> None:
        super().__init__(
            ErrorCode.INVALID_TXN_STATE, f"{message}; the transaction can only be aborted"
        )


@dataclass(frozen=True, slots=True)
class Described:
    """One transactional id as DescribeTransactions answers it."""

    transactional_id: str
    state: TxnState
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_ms: int
    partitions: frozenset[tuple[str, int]]

    def metadata(self) -> TxnMetadata:
        """The contract's description; Kafka has no groups, share groups, update time or
        pending change to show."""
        return TxnMetadata(
            transactional_id=self.transactional_id,
            producer_id=self.producer_id,
            producer_epoch=self.producer_epoch,
            timeout_ms=self.timeout_ms,
            state=self.state,
            partitions=self.partitions,
            start_ms=self.start_ms,
            updated_ms=-1,
        )


def txn_state(kafka_state: str) -> TxnState:
    """The contract's state for Kafka's name of it."""
    try:
        return _STATES[kafka_state]
    except KeyError:
        raise SluiceError(
            ErrorCode.INTERNAL, f"the Kafka cluster answered a transaction state {kafka_state!r}"
        ) from None


def prefix_pattern(prefix: str) -> str:
    """The regular expression (Java's syntax) of ListTransactions' pattern filter (KIP-1152)
    that matches the ids starting with ``prefix``. The broker matches the whole id, so the
    pattern ends with ``.*``; the prefix is quoted (``\\Q…\\E``), a ``\\E`` inside it closed and
    written as a quoted pair of its own."""
    return "\\Q" + prefix.replace("\\E", "\\E\\\\E\\Q") + "\\E.*"


def timed_out(d: Described, producer_id: int, epoch: int, now_ms: int) -> bool:
    """Whether ``d`` says that the transaction of ``producer_id`` at ``epoch`` was aborted by
    its timeout: aborted at the next epoch, after being open longer than its timeout. (An
    abort by the producer itself that late looks the same; the broker would have aborted it
    within a second anyway.)"""
    return (
        d.state in (TxnState.COMPLETE_ABORT, TxnState.PREPARE_ABORT)
        and d.producer_id == producer_id
        and d.producer_epoch == epoch + 1
        and d.start_ms >= 0
        and now_ms >= d.start_ms + d.timeout_ms
    )


class KafkaTransactions:
    """The seam's producers and transactions (app/engine/producers.py) on a Kafka cluster.
    ``produce`` writes the batches of a one-request commit. ``wait_ms`` bounds the waits for
    the broker's own work (an end's markers, the abort before a new epoch)."""

    def __init__(
        self,
        cluster: Cluster,
        produce: KafkaProduce,
        *,
        clock: Clock | None = None,
        wait_ms: int = DEFAULT_WAIT_MS,
    ) -> None:
        self.cluster = cluster
        self.produce = produce
        self.clock = clock or SystemClock()
        self.wait_ms = wait_ms

    # -- producer ids ----------------------------------------------------------------------------

    async def init_producer_id(
        self,
        tid: str | None,
        timeout_ms: int,
        producer_id: int | None,
        producer_epoch: int | None,
        principal: str | None,
    ) -> tuple[int, int]:
        """InitProducerId: a new idempotent producer id (``tid`` None), the idempotent
        producer's next epoch (with ``producer_id`` and ``producer_epoch``), or the
        transactional id's next epoch, fencing older instances and aborting the open
        transaction first, the abort complete before the answer; with ``producer_id`` and
        ``producer_epoch``, the current instance's recovery (KIP-360). Recording who the id was
        issued to (``principal``) is the gateway's, not this module's."""
        if (producer_id is None) != (producer_epoch is None):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "producer_id and producer_epoch go together"
            )

        def build() -> InitProducerIdRequest:
            return InitProducerIdRequest(
                transactional_id=tid,
                transaction_timeout_ms=timeout_ms if tid is not None else 0,
                producer_id=-1 if producer_id is None else producer_id,
                producer_epoch=-1 if producer_epoch is None else producer_epoch,
            )

        what = f"transactional id {tid!r}" if tid is not None else "InitProducerId"
        deadline = self.clock.monotonic() + self.wait_ms / 1000
        attempt = 0
        while True:
            answer: InitProducerIdResponse = await self._to_coordinator(
                tid, TRANSACTION, build, lambda a: a.error_code, what
            )
            if answer.error_code != CONCURRENT_TRANSACTIONS or self.clock.monotonic() > deadline:
                break
            # the coordinator is aborting the open transaction: ask again once it is done
            attempt = await _backoff(attempt)
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, None, what, answer.throttle_time_ms)
        return answer.producer_id, answer.producer_epoch

    # -- ends ------------------------------------------------------------------------------------

    async def end_txn(
        self, tid: str, producer_id: int, epoch: int, commit: bool
    ) -> tuple[int, int]:
        """EndTxn, then wait until the end is complete; answers the next transaction's
        identity. With nothing open at ``epoch`` it answers ``(producer_id, epoch)`` and
        changes nothing; a commit after the broker's timeout abort is ``TRANSACTION_TIMED_OUT``.
        """
        what = f"transactional id {tid!r}"

        def build() -> EndTxnRequest:
            return EndTxnRequest(
                transactional_id=tid,
                producer_id=producer_id,
                producer_epoch=epoch,
                committed=commit,
            )

        deadline = self.clock.monotonic() + self.wait_ms / 1000
        attempt = 0
        while True:
            answer: EndTxnResponse = await self._to_coordinator(
                tid, TRANSACTION, build, lambda a: a.error_code, what
            )
            if answer.error_code != CONCURRENT_TRANSACTIONS or self.clock.monotonic() > deadline:
                break
            attempt = await _backoff(attempt)
        if answer.error_code == INVALID_TXN_STATE:
            # nothing open at this epoch, a timeout abort, or the opposite end of this epoch's
            # transaction: the description tells them apart
            d = await self.describe_one(tid)
            if d.state in _IDLE and (d.producer_id, d.producer_epoch) == (producer_id, epoch):
                return producer_id, epoch
            if commit and timed_out(d, producer_id, epoch, self.clock.now_ms()):
                raise _timed_out(tid, epoch)
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, None, what, answer.throttle_time_ms)
        await self._wait_complete(tid, answer.producer_id, deadline)
        return answer.producer_id, answer.producer_epoch

    async def _wait_complete(self, tid: str, producer_id: int, deadline: float) -> None:
        """Until the transaction's markers are written (``Complete*``) or the deadline."""
        attempt = 0
        while True:
            d = await self.describe_one(tid)
            if d.state in _IDLE or d.producer_id != producer_id:
                return
            if self.clock.monotonic() > deadline:
                raise to_sluice(
                    CONCURRENT_TRANSACTIONS,
                    f"the end is still being completed ({d.state.value})",
                    f"transactional id {tid!r}",
                )
            attempt = await _backoff(attempt)

    async def commit_with(
        self, tid: str, producer_id: int, epoch: int, work: TxnWork
    ) -> tuple[int, int]:
        """The contract's transaction in one request: each batch through Produce (one
        partition after another), then each group's offsets, then the commit. What can be
        checked without writing is checked first (share acknowledgements, the partitions).
        A part refused before anything was written answers its own error; a part refused
        after another was written answers ``TransactionAbortable``, naming it. A retry after
        the commit (the transaction committed at this epoch) answers the same identity and
        writes nothing."""
        if work.acks:
            raise KafkaUnsupported(
                "transactional_share_acknowledgements",
                "Kafka cannot make share acknowledgements part of a transaction",
            )
        d = await self.describe_one(tid, missing_ok=True)
        if (
            d is not None
            and d.state is TxnState.PREPARE_COMMIT
            and d.producer_id == producer_id
            and d.producer_epoch in (epoch, epoch + 1)
        ):
            # this commit, sent again after its answer was lost while its markers are still
            # being written (the leader of one of its partitions died, and the markers wait
            # for the next): its batches would be refused at the old epoch and answered as
            # fenced. The commit is decided; its end is awaited as the first answer's was.
            deadline = self.clock.monotonic() + self.wait_ms / 1000
            await self._wait_complete(tid, producer_id, deadline)
            d = await self.describe_one(tid, missing_ok=True)
        if (
            d is not None
            and d.state is TxnState.COMPLETE_COMMIT
            and (d.producer_id, d.producer_epoch) == (producer_id, epoch + 1)
        ):
            return producer_id, epoch + 1  # this commit, sent again after its answer was lost
        for i, b in enumerate(work.batches):
            try:
                await self.cluster.leader(b.topic, b.partition)
            except BrokerError as exc:
                raise _part(to_sluice(exc.code, None, f"{b.topic}/{b.partition}"), i) from None
        written = False
        for i, b in enumerate(work.batches):
            try:
                if b.raw is not None:
                    await self.produce.produce_batches(b.topic, b.partition, bytes(b.raw), tid)
                else:
                    await self.produce.produce_records(
                        b.topic,
                        [(b.partition, r) for r in b.records],
                        producer_id=producer_id,
                        producer_epoch=epoch,
                        base_sequences={b.partition: b.base_sequence},
                        transactional_id=tid,
                    )
            except SluiceError as exc:
                if exc.code is ErrorCode.INVALID_PRODUCER_EPOCH:
                    # a stale epoch on the commit: the contract's PRODUCER_FENCED (a newer
                    # instance took the id), or TRANSACTION_TIMED_OUT when the broker's timeout
                    # ended that epoch, as for the offsets of a transaction
                    d = await self.describe_one(tid, missing_ok=True)
                    if d is not None and timed_out(d, producer_id, epoch, self.clock.now_ms()):
                        raise _timed_out(tid, epoch) from None
                    exc = to_sluice(PRODUCER_FENCED, None, f"{b.topic}/{b.partition}")
                refused = _part(exc, i, f"batches[{i}] ({b.topic}/{b.partition})")
                if written:
                    raise TransactionAbortable(refused.message) from None
                raise refused from None
            written = True
        for g in work.offsets:
            try:
                await self.add_offsets(
                    tid,
                    producer_id,
                    epoch,
                    g.group_id,
                    g.member_id,
                    g.member_epoch,
                    g.group_instance_id,
                    g.offsets,
                    None,  # the members' owners are check_work's, before anything was written
                )
            except SluiceError as exc:
                if written:
                    raise TransactionAbortable(
                        f"group offsets of {g.group_id}: {exc.message}"
                    ) from None
                raise
            written = True
        return await self.end_txn(tid, producer_id, epoch, commit=True)

    async def check_work(
        self,
        work: TxnWork,
        principal: str | None,
        check_reads: Callable[[str, Iterable[str]], None],
    ) -> None:
        """The checks of a one-request commit that its groups decide, before anything is
        written: share acknowledgements are refused first (Kafka has none in a
        transaction); then, for each consumer group, the caller's READ check
        (``check_reads``, which raises to refuse) and that the member it names is not
        another principal's (UNKNOWN_MEMBER_ID, by the digest in front of the member id).
        Changes nothing."""
        if work.acks:
            raise KafkaUnsupported(
                "transactional_share_acknowledgements",
                "Kafka cannot make share acknowledgements part of a transaction",
            )
        for g in work.offsets:
            check_reads(g.group_id, (o.topic for o in g.offsets))
            if g.member_id is not None and not owned_by(g.member_id, principal):
                raise unknown_member(g.group_id, g.member_id)

    async def add_acknowledgements(
        self,
        tid: str,
        producer_id: int,
        epoch: int,
        group_id: str,
        member_id: str,
        acks: Mapping[tuple[str, int], list[AckBatch] | SluiceError],
        principal: str | None,
    ) -> list[tuple[tuple[str, int], SluiceError | None]]:
        raise KafkaUnsupported(
            "transactional_share_acknowledgements",
            "Kafka cannot make share acknowledgements part of a transaction",
        )

    async def commit_all(
        self, txns: Sequence[TxnIdentity], key: str | None = None, owner: str | None = None
    ) -> CommitAll:
        raise KafkaUnsupported(
            "commit_all", "Kafka cannot commit several transactional ids all or none"
        )

    # -- offsets ---------------------------------------------------------------------------------

    async def add_offsets(
        self,
        tid: str,
        producer_id: int,
        epoch: int,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        group_instance_id: str | None,
        offsets: Sequence[OffsetCommit],
        principal: str | None,
    ) -> None:
        """TxnOffsetCommit to the group's coordinator (KIP-447), the group's generation or
        member epoch, member id and instance id as given; the offsets are committed only if
        the transaction commits. A member of another principal than ``principal`` is refused
        first (UNKNOWN_MEMBER_ID). Kafka's first partition error is the answer."""
        if member_id is not None and not owned_by(member_id, principal):
            raise unknown_member(group_id, member_id)
        what = f"group offsets of {group_id!r}"
        by_topic: dict[str, list[OffsetCommit]] = {}
        for o in offsets:
            by_topic.setdefault(o.topic, []).append(o)
        ids = {}
        for topic in by_topic:
            try:
                ids[topic] = (await self.cluster.topic(topic)).topic_id
            except BrokerError as exc:
                raise to_sluice(exc.code, None, f"{what} ({topic})") from None
        names = {v: k for k, v in ids.items()}

        def build() -> TxnOffsetCommitRequest:
            return TxnOffsetCommitRequest(
                transactional_id=tid,
                group_id=group_id,
                producer_id=producer_id,
                producer_epoch=epoch,
                generation_id_or_member_epoch=member_epoch,
                member_id=member_id or "",
                group_instance_id=group_instance_id,
                topics=[
                    TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic(
                        name=topic,
                        topic_id=ids[topic],
                        partitions=[
                            TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition(
                                partition_index=o.partition,
                                committed_offset=o.offset,
                                committed_metadata=o.metadata,
                            )
                            for o in offs
                        ],
                    )
                    for topic, offs in by_topic.items()
                ],
            )

        deadline = self.clock.monotonic() + self.wait_ms / 1000
        attempt = 0
        while True:
            answer: TxnOffsetCommitResponse = await self._to_coordinator(
                group_id, GROUP, build, _first_offset_error, what
            )
            code = _first_offset_error(answer)
            if code != CONCURRENT_TRANSACTIONS or self.clock.monotonic() > deadline:
                break
            attempt = await _backoff(attempt)
        if code == NONE:
            return
        if code in (INVALID_PRODUCER_EPOCH, PRODUCER_FENCED):
            # a stale epoch on a transaction endpoint: the contract's PRODUCER_FENCED, or its
            # TRANSACTION_TIMED_OUT when the broker's timeout ended that epoch
            d = await self.describe_one(tid, missing_ok=True)
            if d is not None and timed_out(d, producer_id, epoch, self.clock.now_ms()):
                raise _timed_out(tid, epoch)
            code = PRODUCER_FENCED
        elif code == STALE_MEMBER_EPOCH:
            # Kafka 4.4 answers a transaction's offsets at a stale member epoch as it answers
            # an offset commit; the contract's code for offsets in a transaction is
            # ILLEGAL_GENERATION (docs/api.md)
            code = ILLEGAL_GENERATION
        topic, partition = _first_offset_error_partition(answer, names)
        raise to_sluice(code, None, f"{what} ({topic}/{partition})", answer.throttle_time_ms)

    # -- description -----------------------------------------------------------------------------

    async def list_transactions(
        self, state: TxnState | Sequence[TxnState] | None = None, prefix: str | None = None
    ) -> list[str]:
        """The transactional ids every broker's coordinator knows (of ``state``, or of any of
        the states, starting with ``prefix``), sorted. Each broker lists only the ids it
        coordinates."""
        states = [] if state is None else [state] if isinstance(state, TxnState) else state
        filters = [s.value for s in states]
        pattern = None if prefix is None else prefix_pattern(prefix)
        await self.cluster.refresh_metadata([])
        found: set[str] = set()
        for node_id in list(self.cluster.brokers):
            conn = await self.cluster.connection(node_id)
            answer = await conn.send(
                ListTransactionsRequest(state_filters=filters, transactional_id_pattern=pattern)
            )
            if answer.error_code != NONE:
                raise to_sluice(answer.error_code, None, f"ListTransactions on broker {node_id}")
            found.update(t.transactional_id for t in answer.transaction_states)
        if prefix is not None:
            found = {t for t in found if t.startswith(prefix)}
        return sorted(found)

    async def describe(self, tids: Sequence[str]) -> list[Described]:
        """DescribeTransactions of each id, from its coordinator; ``NOT_FOUND`` for one Kafka
        does not know."""
        return [await self.describe_one(t) for t in tids]

    async def all(self, state: TxnState | None = None) -> list[TxnMetadata]:
        """Every transactional id (of ``state``), described."""
        return [d.metadata() for d in await self.describe(await self.list_transactions(state))]

    async def get(self, tid: str) -> TxnMetadata:
        return (await self.describe_one(tid)).metadata()

    @overload
    async def describe_one(self, tid: str) -> Described: ...

    @overload
    async def describe_one(self, tid: str, missing_ok: Literal[True]) -> Described | None: ...

    async def describe_one(self, tid: str, missing_ok: bool = False) -> Described | None:
        """DescribeTransactions of ``tid`` from its coordinator; ``NOT_FOUND`` (or None with
        ``missing_ok``) when Kafka does not know the id."""
        what = f"transactional id {tid!r}"
        answer: DescribeTransactionsResponse = await self._to_coordinator(
            tid,
            TRANSACTION,
            lambda: DescribeTransactionsRequest(transactional_ids=[tid]),
            lambda a: a.transaction_states[0].error_code if a.transaction_states else NONE,
            what,
        )
        (s,) = answer.transaction_states
        if s.error_code == TRANSACTIONAL_ID_NOT_FOUND:
            if missing_ok:
                return None
            raise NotFound(ErrorCode.NOT_FOUND, f"no {what}")
        if s.error_code != NONE:
            raise to_sluice(s.error_code, None, what, answer.throttle_time_ms)
        return Described(
            transactional_id=s.transactional_id,
            state=txn_state(s.transaction_state),
            producer_id=s.producer_id,
            producer_epoch=s.producer_epoch,
            timeout_ms=s.transaction_timeout_ms,
            start_ms=s.transaction_start_time_ms,
            partitions=frozenset((t.topic, p) for t in s.topics for p in t.partitions),
        )

    # -- abort by prefix -------------------------------------------------------------------------

    async def abort_prefix(self, prefix: str, may_write: Callable[[str], bool]) -> list[str]:
        """Abort and fence every ``Ongoing`` transaction whose id starts with ``prefix`` and
        that ``may_write`` allows: ListTransactions with the pattern filter, then for each an
        InitProducerId without producer id at the transaction's own timeout, which aborts it,
        waits for the abort and bumps the epoch. Answers the ids, sorted."""
        if not prefix:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "the prefix is empty")
        tids = [t for t in await self.list_transactions(TxnState.ONGOING, prefix) if may_write(t)]
        aborted: list[str] = []
        for tid in tids:
            d = await self.describe_one(tid, missing_ok=True)
            if d is None:
                continue
            await self.init_producer_id(tid, d.timeout_ms, None, None, None)
            aborted.append(tid)
        return aborted

    # -- sending ---------------------------------------------------------------------------------

    async def _to_coordinator(
        self,
        key: str | None,
        key_type: int,
        build: Callable[[], Request[R]],
        error_of: Callable[[R], int],
        what: str,
    ) -> R:
        """The request to the coordinator of ``key`` (any broker for None: an idempotent
        producer id has no coordinator); a coordinator that cannot be found is Kafka's error."""
        try:
            if key is None:
                conn = await self.cluster.any_connection()
                return await conn.send(build())
            return await self.cluster.send_to_coordinator(key, key_type, build, error_of)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, what) from None


async def _backoff(attempt: int) -> int:
    # the broker's own work (markers, an abort) takes milliseconds: ask again soon, then less
    # often
    await asyncio.sleep(_BACKOFF_S[min(attempt, len(_BACKOFF_S) - 1)])
    return attempt + 1


def _timed_out(tid: str, epoch: int) -> SluiceError:
    return Conflict(
        ErrorCode.TRANSACTION_TIMED_OUT,
        f"transactional id {tid!r}: the transaction of epoch {epoch} was aborted at its timeout; "
        "recover with POST /v1/producers and this producer id and epoch",
    )


def _part(exc: SluiceError, index: int, name: str | None = None) -> SluiceError:
    """``exc`` with the refused part named in front of its message, as the contract names it."""
    label = name or f"batches[{index}]"
    if isinstance(exc, Throttled):
        return exc  # its throttle time is its own; the message names the partition already
    return type(exc)(exc.code, f"{label}: {exc.message}")


def _first_offset_error(answer: TxnOffsetCommitResponse) -> int:
    for t in answer.topics:
        for p in t.partitions:
            if p.error_code != NONE:
                return p.error_code
    return NONE


def _first_offset_error_partition(
    answer: TxnOffsetCommitResponse, names: dict[UUID, str]
) -> tuple[str, int]:
    for t in answer.topics:
        for p in t.partitions:
            if p.error_code != NONE:
                return t.name or names.get(t.topic_id, str(t.topic_id)), p.partition_index
    return "", -1
