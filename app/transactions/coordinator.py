"""TransactionCoordinator: InitProducerId, implicit partition joins, offsets, commit, abort,
timeouts, fencing and recovery.

Every change follows the state table (``state.py``): stage it (``prepare``; a pending change
turns concurrent callers away with CONCURRENT_TRANSACTIONS) → make it durable in SQLite →
complete it. Ending a transaction is: Prepare* durable → markers on every partition, fsynced →
the participants' endings (consumer groups' offsets, share groups' acknowledgements) and
Complete* with the bumped epoch (transactions v2), durable in one SQLite commit: the
coordinator decides, and ``ending.py``'s ``TxnEnder`` (``self.ender``) carries the end out.
Recovery at start (``recovery.py``, ``self.recovery``) finishes every Prepare* it finds the
same way; the sweeper (``timeouts.py``, ``self.timeouts``) aborts the transactions past their
timeout.

Several transactions end together in two ways (docs/semantics.md#commit-all): ``commit_all``
commits several open transactions atomically, their PrepareCommit rows (and the request's
idempotency key) in one SQLite commit; ``abort_prefix`` aborts and fences every open
transaction whose transactional id starts with a prefix.

The participants and the marker writer are given at construction (``participants.py``); the
values of requests and answers (``TxnWork``, ``TxnIdentity``, ``CommitAll``) are in
``work.py``.

Fencing follows KIP-588 as designed (docs/semantics.md#kip-588-timeouts): a timeout abort
records the epoch it aborted; that epoch gets TRANSACTION_TIMED_OUT on the transaction endpoints,
INVALID_PRODUCER_EPOCH on produce, and recovers through InitProducerId with its producer id and
epoch. Every other mismatch is PRODUCER_FENCED.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, TypeVar

from app.awaiting import all_done
from app.clock import Clock
from app.config import Settings
from app.errors import (
    Conflict,
    ErrorCode,
    InvalidRequest,
    NotFound,
    SluiceError,
    TooLarge,
    Unavailable,
)
from app.metadata.txn_store import CommitKeyRow, TransactionStore
from app.producers.appender import BatchResult
from app.producers.ids import ProducerIds
from app.transactions.ending import TxnEnder, TxnLog, row_of
from app.transactions.participants import AckParticipant, OffsetParticipant, TxnWrite
from app.transactions.recovery import TxnRecovery
from app.transactions.state import TxnMetadata, TxnState, TxnTransit
from app.transactions.timeouts import TxnTimeouts
from app.transactions.work import CommitAll, TxnIdentity, TxnWork

if TYPE_CHECKING:
    from app.groups.group import OffsetCommit
    from app.producers.appender import ProduceBatch
    from app.share.partition import AckBatch
    from app.storage.log import PartitionLog

log = logging.getLogger("sluice.transactions")

_T = TypeVar("_T")


_S = TxnState
_IDLE = (_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT)


class TransactionCoordinator:
    def __init__(
        self,
        store: TransactionStore,
        ids: ProducerIds,
        clock: Clock,
        settings: Settings,
        *,
        log: TxnLog,
        offsets: OffsetParticipant | None,
        acks: AckParticipant | None,
    ) -> None:
        self.store = store
        self.ids = ids
        self.clock = clock
        self.settings = settings
        self.log = log
        self.offsets = offsets  # consumer groups (None: offsets cannot join a transaction)
        self.acks = acks  # share groups (None: acknowledgements cannot join one)
        self.txns: dict[str, TxnMetadata] = {}
        # partition joins being written, per transactional id: a second join of the same
        # transaction waits for the first instead of being turned away (``join_partitions``)
        self._joining: dict[str, asyncio.Future[None]] = {}
        self._owners: dict[int, str] = {}  # producer id → its transactional id (KIP-890)
        self._commit_keys_in_flight: set[str] = set()  # idempotency keys of commit_all
        # the end of a transaction from its decision on: markers, the participants' endings,
        # Complete*; and the ends being completed after their answer
        self.ender = TxnEnder(
            store, ids, clock, settings, log=log, offsets=offsets, acks=acks, owners=self._owners
        )
        # timeouts, interrupted ends and idle transactional ids: the sweeper
        self.timeouts = TxnTimeouts(store, clock, settings, self.txns, self._owners, self.ender)
        # the start: loading the metadata, finishing interrupted ends, open records in the logs
        self.recovery = TxnRecovery(
            store,
            log,
            self.ender,
            self.txns,
            self._owners,
            lambda tm, partitions: self._ongoing(tm, partitions=partitions),
        )

    # -- start --------------------------------------------------------------------------------

    async def load(self) -> None:
        """The transactions and the owners of producer ids, from the metadata
        (``recovery.TxnRecovery.load``)."""
        await self.recovery.load()

    def owner_of(self, producer_id: int) -> str | None:
        """The transactional id ``producer_id`` was issued for (its current id, or one it
        replaced), None for an idempotent producer (docs/semantics.md#transaction-fencing)."""
        return self._owners.get(producer_id)

    async def recover(self) -> int:
        """Finish every transaction found in a Prepare* state, and settle the open records the
        logs hold (``recovery.TxnRecovery.recover``); answers how many it finished."""
        return await self.recovery.recover()

    # -- InitProducerId -----------------------------------------------------------------------

    async def init_producer_id(
        self,
        tid: str | None,
        timeout_ms: int,
        producer_id: int | None,
        producer_epoch: int | None,
        principal: str | None,
    ) -> tuple[int, int]:
        """InitProducerId for ``principal``: a new id is drawn from its blocks; an idempotent
        producer id is bumped only for the principal it was issued to (anyone else is
        answered UNKNOWN_PRODUCER_ID, docs/security.md#ownership)."""
        if not 1 <= timeout_ms <= self.settings.txn_max_timeout_ms:
            raise InvalidRequest(
                ErrorCode.INVALID_TRANSACTION_TIMEOUT,
                f"transaction_timeout_ms must be from 1 to {self.settings.txn_max_timeout_ms}",
            )
        if (producer_id is None) != (producer_epoch is None):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "producer_id and producer_epoch go together"
            )
        if tid is None:
            if producer_id is None or producer_epoch is None:
                return await self.ids.next_id(principal), 0
            if not self.ids.issued_to(producer_id, principal) or self.owner_of(producer_id):
                raise InvalidRequest(
                    ErrorCode.UNKNOWN_PRODUCER_ID,
                    f"producer id {producer_id} was never issued to this principal as an "
                    "idempotent producer",
                )
            return await self.ender.next_epoch(producer_id, producer_epoch, principal)
        await self.ender.settled(tid)
        tm = self.txns.get(tid)
        now = self.clock.now_ms()
        if tm is None:
            if producer_id is not None:
                raise Conflict(
                    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                    f"transactional id {tid!r} has no producer id yet",
                )
            pid = await self.ids.next_id(principal)
            self._owners[pid] = tid
            tm = self.txns.get(tid)  # another caller may have created it meanwhile
            if tm is None:
                # staged like every change: until the row is durable, concurrent callers get
                # CONCURRENT_TRANSACTIONS instead of bumping an epoch that may never exist
                tm = TxnMetadata(tid, pid, 0, timeout_ms, updated_ms=now)
                transit = tm.prepare(tm.transit())
                self.txns[tid] = tm
                try:
                    await self.store.save(row_of(tid, transit))
                except BaseException:
                    if self.txns.get(tid) is tm:
                        del self.txns[tid]
                    raise
                tm.complete(transit)
                return pid, 0
        self._check_not_pending(tm)
        if producer_id is not None and producer_epoch is not None:
            if self._timed_out(tm, producer_id, producer_epoch):
                pass  # KIP-588 recovery: bump below, the timed-out epoch is forgotten
            elif (producer_id, producer_epoch) == (tm.last_producer_id, tm.last_epoch):
                return tm.producer_id, tm.producer_epoch  # a retry of the last bump
            elif (producer_id, producer_epoch) != (tm.producer_id, tm.producer_epoch):
                raise Conflict(
                    ErrorCode.PRODUCER_FENCED,
                    f"producer {producer_id} epoch {producer_epoch} is not the "
                    f"current instance of {tid!r}",
                )
        # a recovering producer may retry this call; a new instance leaves nothing to retry,
        # so the instance it fenced cannot pass for a retry (Kafka sets lastProducerEpoch -1)
        recovering = producer_id is not None
        if tm.state is _S.ONGOING:  # abort the open transaction (a new instance: fencing)
            await self.ender.end(tm, commit=False, fenced=not recovering)
        pid, epoch = await self.ender.next_epoch(tm.producer_id, tm.producer_epoch, principal)
        await self.ender.persist(
            tm,
            dataclasses.replace(
                tm.transit(),
                state=_S.EMPTY,
                producer_id=pid,
                producer_epoch=epoch,
                # the epoch the caller presented: a retry of this call (its answer lost) is
                # recognised as a retry and answered the same (Kafka's lastProducerEpoch)
                last_producer_id=producer_id if producer_id is not None else -1,
                last_epoch=producer_epoch if producer_epoch is not None else -1,
                timed_out_epoch=-1,
                timeout_ms=timeout_ms,
                partitions=frozenset(),
                groups=frozenset(),
                start_ms=-1,
                updated_ms=now,
                share_groups=frozenset(),
            ),
        )
        return pid, epoch

    # -- produce: implicit partition joins (transactions v2) ----------------------------------

    def _check_produce(self, tid: str, producer_id: int, epoch: int) -> TxnMetadata:
        tm = self.txns.get(tid)
        if tm is None:
            raise Conflict(
                ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                f"unknown transactional id {tid!r}: call POST /v1/producers first",
            )
        if producer_id != tm.producer_id:
            if producer_id == tm.last_producer_id:
                raise Conflict(
                    ErrorCode.INVALID_PRODUCER_EPOCH,
                    f"producer {producer_id} of {tid!r} has been replaced",
                )
            raise Conflict(
                ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                f"producer {producer_id} does not belong to {tid!r}",
            )
        if epoch != tm.producer_epoch:
            raise Conflict(
                ErrorCode.INVALID_PRODUCER_EPOCH,
                f"epoch {epoch} of {tid!r} is not current ({tm.producer_epoch})",
            )
        self._check_not_pending(tm)
        return tm

    async def join_partitions(
        self, tid: str, producer_id: int, epoch: int, partitions: Collection[tuple[str, int]]
    ) -> None:
        """Add the partitions to the open transaction (starting one), durably.

        Produce requests of one transaction to several partitions arrive together: a join
        while another join of the same transaction is being written waits for it and then
        adds what is still missing, as a broker retries its own verification of a partition
        (KIP-890) instead of handing CONCURRENT_TRANSACTIONS back to the producer. Any other
        change in progress (an end) still answers CONCURRENT_TRANSACTIONS."""
        await self.ender.settled(tid)
        while (writing := self._joining.get(tid)) is not None:
            await asyncio.wait([writing])  # not cancelled with this request
        tm = self._check_produce(tid, producer_id, epoch)
        new = frozenset(partitions) - tm.partitions
        if tm.state is _S.ONGOING and not new:
            return
        joined = tm.partitions | new
        if len(joined) > self.settings.txn_max_partitions:
            raise TooLarge(
                ErrorCode.REQUEST_TOO_LARGE,
                f"a transaction may write at most {self.settings.txn_max_partitions} partitions",
            )
        done = asyncio.get_running_loop().create_future()
        self._joining[tid] = done
        try:
            await self.ender.persist(tm, self._ongoing(tm, partitions=joined))
        finally:
            del self._joining[tid]
            done.set_result(None)

    def verify_produce(
        self, tid: str, producer_id: int, epoch: int, partitions: Collection[tuple[str, int]]
    ) -> None:
        """Right before a transactional append (no await in between): still open, still ours."""
        tm = self._check_produce(tid, producer_id, epoch)
        if tm.state is not _S.ONGOING or not tm.partitions.issuperset(partitions):
            raise Conflict(
                ErrorCode.CONCURRENT_TRANSACTIONS,
                f"transaction {tid!r} changed during the request; retry",
            )

    def _ongoing(
        self,
        tm: TxnMetadata,
        *,
        partitions: frozenset[tuple[str, int]] | None = None,
        groups: frozenset[str] | None = None,
        share_groups: frozenset[str] | None = None,
    ) -> TxnTransit:
        now = self.clock.now_ms()
        return dataclasses.replace(
            tm.transit(),
            state=_S.ONGOING,
            partitions=tm.partitions if partitions is None else partitions,
            groups=tm.groups if groups is None else groups,
            share_groups=tm.share_groups if share_groups is None else share_groups,
            start_ms=tm.start_ms if tm.state is _S.ONGOING else now,
            updated_ms=now,
        )

    # -- the transaction endpoints ------------------------------------------------------------

    def _check_endpoint(self, tid: str, producer_id: int, epoch: int) -> TxnMetadata:
        tm = self.txns.get(tid)
        if tm is None:
            raise Conflict(
                ErrorCode.INVALID_PRODUCER_ID_MAPPING, f"unknown transactional id {tid!r}"
            )
        if self._timed_out(tm, producer_id, epoch):
            raise Conflict(
                ErrorCode.TRANSACTION_TIMED_OUT,
                f"the transaction of {tid!r} at epoch {epoch} timed out and was "
                "aborted; re-initialise with this producer id and epoch",
            )
        self._check_not_pending(tm)
        return tm

    def _check_current(self, tm: TxnMetadata, producer_id: int, epoch: int) -> None:
        if producer_id != tm.producer_id and producer_id != tm.last_producer_id:
            raise Conflict(
                ErrorCode.INVALID_PRODUCER_ID_MAPPING,
                f"producer {producer_id} does not belong to {tm.transactional_id!r}",
            )
        if (producer_id, epoch) != (tm.producer_id, tm.producer_epoch):
            raise Conflict(
                ErrorCode.PRODUCER_FENCED,
                f"producer {producer_id} epoch {epoch} is not the current instance "
                f"of {tm.transactional_id!r}",
            )

    @staticmethod
    def _timed_out(tm: TxnMetadata, producer_id: int, epoch: int) -> bool:
        return (
            tm.timed_out_epoch >= 0
            and epoch == tm.timed_out_epoch
            and (producer_id, epoch) == (tm.last_producer_id, tm.last_epoch)
        )

    @staticmethod
    def _check_not_pending(tm: TxnMetadata) -> None:
        if tm.pending is not None or tm.state.is_prepare:
            pending = tm.pending.state.value if tm.pending is not None else "markers"
            raise Conflict(
                ErrorCode.CONCURRENT_TRANSACTIONS,
                f"transaction {tm.transactional_id!r} is changing "
                f"({tm.state.value} → {pending}); retry",
            )

    async def end_txn(
        self, tid: str, producer_id: int, epoch: int, commit: bool
    ) -> tuple[int, int]:
        """Commit or abort; answers the producer id and epoch for the next transaction."""
        await self.ender.settled(tid)
        open_ = self.txns.get(tid)
        if commit and open_ is not None and open_.state is _S.ONGOING:
            # a decision never precedes its records: under fsync=interval they may not be
            # durable yet (a no-op under fsync=always, where every answered append is)
            await self.log.make_durable(open_.partitions)
        tm = self._check_endpoint(tid, producer_id, epoch)
        if tm.state.is_complete and (producer_id, epoch) == (tm.last_producer_id, tm.last_epoch):
            return self._retried_end(tm, epoch, commit)
        self._check_current(tm, producer_id, epoch)
        if tm.state is not _S.ONGOING:
            return tm.producer_id, tm.producer_epoch  # nothing open: nothing changes
        await self.ender.persist(tm, self.ender.decision(tm, commit))
        return await self.ender.after_decision(tm, answer_early=True)

    @staticmethod
    def _retried_end(tm: TxnMetadata, epoch: int, commit: bool) -> tuple[int, int]:
        """The answer to a retry of the end that completed this transactional id's last
        transaction (its answer may have been lost)."""
        if (tm.state is _S.COMPLETE_COMMIT) == commit:
            return tm.producer_id, tm.producer_epoch
        raise Conflict(
            ErrorCode.INVALID_TXN_STATE,
            f"the transaction of epoch {epoch} was "
            f"{'aborted' if commit else 'committed'}, not "
            f"{'committed' if commit else 'aborted'}",
        )

    async def commit_with(
        self, tid: str, producer_id: int, epoch: int, work: TxnWork
    ) -> tuple[int, int]:
        """A transaction in one request: add ``work`` (records, consumer-group offsets, share
        acknowledgements) to the producer's transaction, opening one, and commit it.

        Everything is checked before anything is written: a refused part refuses the request
        and leaves the transaction as it was. Then, with no await in between, the records
        are appended (the transaction is open on their partitions in memory); once they are
        durable, one SQLite commit writes PrepareCommit with the staged offsets and the held
        acknowledgements. A stop before that commit leaves records without a decision: at
        start they rejoin the transaction, still open, which a retry of the request (finding
        the records by their sequences) commits, and the timeout otherwise aborts. From
        PrepareCommit on, the end is the same as ``end_txn``'s.
        """
        if not (work.batches or work.offsets or work.acks):
            return await self.end_txn(tid, producer_id, epoch, True)
        await self.ender.settled(tid)
        tm = self._check_endpoint(tid, producer_id, epoch)
        if tm.state.is_complete and (producer_id, epoch) == (tm.last_producer_id, tm.last_epoch):
            return self._retried_end(tm, epoch, True)
        self._check_current(tm, producer_id, epoch)
        offsets = self._offset_participant() if work.offsets else None
        acks = self._ack_participant() if work.acks else None
        resolved: list[tuple[PartitionLog, ProduceBatch, BatchResult]] = []
        for i, b in enumerate(work.batches):
            try:
                lg = self.log.resolve(b, self.settings.max_record_bytes)
            except SluiceError as exc:
                raise _part(exc, f"batches[{i}] ({b.topic}/{b.partition})") from None
            resolved.append((lg, b, BatchResult(b.topic, b.partition, -1, None)))
        for go in work.offsets:
            assert offsets is not None
            offsets.check_txn_member(
                go.group_id, go.member_id, go.member_epoch, go.group_instance_id
            )
        for ga in work.acks:
            assert acks is not None
            acks.check_txn_acks_member(ga.group_id, ga.member_id)
        partitions = tm.partitions | {(b.topic, b.partition) for b in work.batches}
        if len(partitions) > self.settings.txn_max_partitions:
            raise TooLarge(
                ErrorCode.REQUEST_TOO_LARGE,
                f"a transaction may write at most {self.settings.txn_max_partitions} partitions",
            )
        ongoing = tm.prepare(
            self._ongoing(
                tm,
                partitions=partitions,
                groups=tm.groups | {go.group_id for go in work.offsets},
                share_groups=tm.share_groups | {ga.group_id for ga in work.acks},
            )
        )
        try:
            async with AsyncExitStack() as stack:
                writes: list[TxnWrite] = []
                for go in sorted(work.offsets, key=lambda g: g.group_id):  # locks in one order
                    assert offsets is not None
                    staged = await stack.enter_async_context(
                        offsets.staging_txn_offsets(go.group_id, producer_id, go.offsets)
                    )
                    if staged is not None:
                        writes.append(staged)
                for ga in sorted(work.acks, key=lambda g: g.group_id):
                    assert acks is not None
                    held = await stack.enter_async_context(
                        acks.staging_txn_acks(ga.group_id, ga.member_id, producer_id, ga.acks)
                    )
                    for (t, p), err in held.results:
                        if err is not None:
                            raise _part(err, f"share acknowledgements of {ga.group_id} ({t}/{p})")
                    if held.held is not None:
                        writes.append(held.held)
                # the records: every batch checked (a refusal raises, nothing appended), the
                # transaction open on their partitions in memory (see the docstring), then the
                # appends, with no await in between
                checked = self.log.check_producer_batches(
                    producer_id, epoch, resolved, transactional=True, all_or_nothing=True
                )
                tm.complete(ongoing)
                decision = tm.prepare(self.ender.decision(tm, True))
                try:
                    touched = self.log.append_checked(
                        producer_id, epoch, checked, transactional=True
                    )
                    if touched:  # forced: the decision must follow durable records
                        await self.log.wait_durable(touched, force=True)
                    await self.store.save(
                        row_of(tid, decision), also=[w.statements for w in writes]
                    )
                except BaseException:
                    tm.abort_pending()  # still open: a retry, an abort or the timeout ends it
                    raise
                tm.complete(decision)
                for w in writes:
                    w.complete()
        except BaseException:
            if tm.pending is ongoing:
                tm.abort_pending()
            raise
        return await self.ender.after_decision(tm, answer_early=True)

    def _offset_participant(self) -> OffsetParticipant:
        if self.offsets is None:
            raise Unavailable(
                ErrorCode.GROUPS_UNAVAILABLE,
                "offsets in a transaction need consumer groups, which this server does not run",
            )
        return self.offsets

    def _ack_participant(self) -> AckParticipant:
        if self.acks is None:
            raise Unavailable(
                ErrorCode.GROUPS_UNAVAILABLE,
                "acknowledgements in a transaction need share groups, which "
                "this server does not run",
            )
        return self.acks

    async def check_work(
        self,
        work: TxnWork,
        principal: str | None,
        check_reads: Callable[[str, Iterable[str]], None],
    ) -> None:
        """The checks of a one-request commit that its groups decide, after the caller's own
        (WRITE on the transactional id and the records' topics, the body parsed) and before
        the commit's records are admitted or its transaction is judged: for each consumer
        group of ``work.offsets``, then each share group of ``work.acks``, the caller's READ
        check of the group and its topics (``check_reads``, which raises to refuse) and then
        that a member it names is not another principal's (UNKNOWN_MEMBER_ID,
        docs/security.md#ownership). Changes nothing; answered without awaiting."""
        for g in work.offsets:
            check_reads(g.group_id, (o.topic for o in g.offsets))
            if self.offsets is not None:  # without groups, commit_with refuses the offsets
                self.offsets.check_owner(g.group_id, g.member_id, principal)
        for a in work.acks:
            check_reads(a.group_id, (t for t, _ in a.acks))
            if self.acks is not None:
                self.acks.check_owner(a.group_id, a.member_id, principal)

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
        """KIP-447: offsets committed for the group only if the transaction commits. A
        member of another principal is refused first (UNKNOWN_MEMBER_ID)."""
        if self.offsets is not None:
            self.offsets.check_owner(group_id, member_id, principal)
        participant = self._offset_participant()
        await self.ender.settled(tid)
        tm = self._check_endpoint(tid, producer_id, epoch)
        self._check_current(tm, producer_id, epoch)
        participant.check_txn_member(group_id, member_id, member_epoch, group_instance_id)
        transit = tm.prepare(self._ongoing(tm, groups=tm.groups | {group_id}))
        try:
            # still pending: a commit cannot start before the offsets are staged; the group
            # joins the transaction and its offsets are staged in one SQLite commit
            async with participant.staging_txn_offsets(group_id, producer_id, offsets) as staging:
                row = row_of(tid, transit) if transit != tm.transit() else None
                writes = [staging.statements] if staging is not None else []
                if row is not None or writes:
                    await self.store.save(row, also=writes)
                if staging is not None:
                    staging.complete()
        except BaseException:
            if tm.pending is transit:
                tm.abort_pending()
            raise
        tm.complete(transit)

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
        """Share acknowledgements applied only if the transaction commits
        (docs/semantics.md#transactional-acknowledgements). A member of another principal is
        refused first (UNKNOWN_MEMBER_ID)."""
        if self.acks is not None:
            self.acks.check_owner(group_id, member_id, principal)
        participant = self._ack_participant()
        await self.ender.settled(tid)
        tm = self._check_endpoint(tid, producer_id, epoch)
        self._check_current(tm, producer_id, epoch)
        participant.check_txn_acks_member(group_id, member_id)
        transit = tm.prepare(self._ongoing(tm, share_groups=tm.share_groups | {group_id}))
        try:
            # still pending: an end cannot start before the acknowledgements are held; the
            # share group joins the transaction and they are held in one SQLite commit
            async with participant.staging_txn_acks(
                group_id, member_id, producer_id, acks
            ) as staging:
                row = row_of(tid, transit) if transit != tm.transit() else None
                held = staging.held
                if row is not None or held is not None:
                    await self.store.save(row, also=[held.statements] if held is not None else [])
                if held is not None:
                    held.complete()
                results = staging.results
        except BaseException:
            if tm.pending is transit:
                tm.abort_pending()
            raise
        tm.complete(transit)
        return results

    # -- several transactions at once ---------------------------------------------------------

    async def commit_all(
        self, txns: Sequence[TxnIdentity], key: str | None = None, owner: str | None = None
    ) -> CommitAll:
        """Commit several transactions atomically (docs/semantics.md#commit-all): all of them
        or none. Every transaction is checked first as ``end_txn`` checks a commit, and a
        refusal (naming the transactional id) refuses the request and changes nothing. Then,
        with the transactions staged (they take no more records), their records are made
        durable and their PrepareCommit rows, with the idempotency key, are written in one
        SQLite commit: the decision (recovery finishes every PrepareCommit it finds). The
        markers and the endings follow, for all of them together, as after ``end_txn``'s
        decision.

        ``key``: a key already committed (within ``txn_commit_key_retention_ms``) makes this
        request a duplicate: it commits nothing and aborts those of its transactions that are
        open at the epoch it names. ``owner``, the principal when keys are on, scopes the
        key: one principal's keys never meet another's."""
        if key is not None and owner is not None:
            key = f"{owner}\0{key}"
        if key is not None:
            if key in self._commit_keys_in_flight:
                raise Conflict(
                    ErrorCode.CONCURRENT_TRANSACTIONS,
                    "a commit-all with this idempotency key is in progress; retry",
                )
            self._commit_keys_in_flight.add(key)
        try:
            for t in txns:
                await self.ender.settled(t.transactional_id)
            found = None if key is None else await self.store.commit_key(key)
            retention = self.settings.txn_commit_key_retention_ms
            if found is not None and found.committed_ms >= self.clock.now_ms() - retention:
                return await self._replayed(txns, found.committed_ms)
            return await self._commit_all(txns, key)
        finally:
            if key is not None:
                self._commit_keys_in_flight.discard(key)

    async def _commit_all(self, txns: Sequence[TxnIdentity], key: str | None) -> CommitAll:
        # the checks, then the staging, with no await in between
        answer: dict[str, TxnIdentity] = {}  # by transactional id
        to_commit: list[TxnMetadata] = []
        for i, t in enumerate(txns):
            tid, pid, epoch = t.transactional_id, t.producer_id, t.producer_epoch
            try:
                tm = self._check_endpoint(tid, pid, epoch)
                if tm.state.is_complete and (pid, epoch) == (tm.last_producer_id, tm.last_epoch):
                    self._retried_end(tm, epoch, True)  # committed by this request before
                else:
                    self._check_current(tm, pid, epoch)
            except SluiceError as exc:
                raise _part(exc, f"transactions[{i}] ({tid})") from None
            if tm.state is _S.ONGOING:
                to_commit.append(tm)
            else:  # as in ``end_txn``: nothing open, nothing changes
                answer[tid] = TxnIdentity(tid, tm.producer_id, tm.producer_epoch)
        row = None if key is None else CommitKeyRow(key, [t.transactional_id for t in txns], 0)
        await self.ender.decide_all(to_commit, commit=True, key=row)
        answers = await all_done(
            [self.ender.after_decision(tm, answer_early=True) for tm in to_commit]
        )
        for tm, (pid, epoch) in zip(to_commit, answers, strict=True):
            answer[tm.transactional_id] = TxnIdentity(tm.transactional_id, pid, epoch)
        return CommitAll(False, [answer[t.transactional_id] for t in txns])

    async def _replayed(self, txns: Sequence[TxnIdentity], committed_ms: int) -> CommitAll:
        """A request whose idempotency key was committed before: each of its transactions
        that is open at the epoch it names is aborted (their records never become visible);
        nothing else changes. A transaction still changing or ending (the completion of the
        committed request failed, and the sweeper has yet to finish it) turns the request away
        with CONCURRENT_TRANSACTIONS: the identities answered are always those that follow
        complete ends."""
        current: list[TxnMetadata] = []
        to_abort: list[TxnMetadata] = []
        for i, t in enumerate(txns):
            tid = t.transactional_id
            try:
                tm = self.txns.get(tid)
                if tm is None:
                    raise Conflict(
                        ErrorCode.INVALID_PRODUCER_ID_MAPPING, f"unknown transactional id {tid!r}"
                    )
                self._check_not_pending(tm)
                if tm.state is _S.ONGOING and (t.producer_id, t.producer_epoch) == (
                    tm.producer_id,
                    tm.producer_epoch,
                ):
                    to_abort.append(tm)
            except SluiceError as exc:
                raise _part(exc, f"transactions[{i}] ({tid})") from None
            current.append(tm)
        if to_abort:
            log.info(
                "commit-all: the idempotency key was committed at %d; aborting %d open "
                "transactions of the repeated request",
                committed_ms,
                len(to_abort),
            )
        await self.ender.end_all(to_abort)
        return CommitAll(
            True,
            [TxnIdentity(tm.transactional_id, tm.producer_id, tm.producer_epoch) for tm in current],
            committed_ms,
        )

    async def abort_prefix(self, prefix: str, may_write: Callable[[str], bool]) -> list[str]:
        """Abort every open transaction whose transactional id starts with ``prefix`` and that
        ``may_write`` allows, fencing its producer as a new instance's InitProducerId does;
        answers their transactional ids, sorted, once every abort is complete. Transactions
        with a change under way or ending already are left alone."""
        chosen = [
            tm
            for tid, tm in sorted(self.txns.items())
            if tid.startswith(prefix)
            and tm.state is _S.ONGOING
            and tm.pending is None
            and tid not in self.ender.finishing
            and may_write(tid)
        ]
        if chosen:
            log.info("aborting %d open transactions with the prefix %r", len(chosen), prefix)
        await self.ender.end_all(chosen, fenced=True)
        return [tm.transactional_id for tm in chosen]

    async def drain(self) -> None:
        """Wait for every end being completed in the background (at stop)."""
        await self.ender.drain()

    # -- timeouts -----------------------------------------------------------------------------

    async def abort_timed_out(self) -> int:
        """One round of the sweeper (``timeouts.TxnTimeouts.abort_timed_out``): answers how
        many transactions it aborted."""
        return await self.timeouts.abort_timed_out()

    async def run_timeouts(self) -> None:
        """The sweeper the ``Broker`` runs."""
        await self.timeouts.run()

    # -- answers ------------------------------------------------------------------------------

    async def get(self, tid: str) -> TxnMetadata:
        """One transactional id, answered from memory without awaiting (``async`` as the
        seam's: DescribeTransactions on Kafka)."""
        tm = self.txns.get(tid)
        if tm is None:
            raise NotFound(ErrorCode.NOT_FOUND, f"unknown transactional id {tid!r}")
        return tm

    async def all(self, state: TxnState | None = None) -> list[TxnMetadata]:
        """Every transactional id (in the state given), sorted by id; answered from memory
        without awaiting (``async`` as the seam's: ListTransactions on Kafka)."""
        return self.listed(state)

    def listed(self, state: TxnState | None = None) -> list[TxnMetadata]:
        """``all``, synchronously: what the engine's own readers (the feed's state) take."""
        return [tm for _, tm in sorted(self.txns.items()) if state is None or tm.state is state]

    def statistics(self) -> dict[str, int]:
        out = {s.value: 0 for s in TxnState}
        for tm in self.txns.values():
            out[tm.state.value] += 1
        return out


def _part(exc: SluiceError, where: str) -> SluiceError:
    """A refused part of a one-request commit: its own error, naming the part."""
    return type(exc)(exc.code, f"{where}: {exc.message}")
