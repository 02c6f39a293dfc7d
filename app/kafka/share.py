"""Share groups on the Kafka backend (docs/kafka.md#share-groups,
docs/kafka-protocol.md#share-groups): membership, share sessions, fetch and acknowledge.

- **Membership**: ShareGroupHeartbeat to the group's coordinator. A member joins at epoch 0
  with its subscription (the gateway chooses the member id when none is given), heartbeats at
  the epoch the coordinator last answered, and leaves at -1. Kafka answers the assignment by
  topic id; it is answered here by topic name. The first answers of a join may carry no
  partitions yet: the coordinator assigns them on a later heartbeat.
- **Share sessions**: Kafka keeps a member's session on the broker that leads the partitions
  it fetches from, and binds it to the connection that opened it; records the member acquired
  can be acknowledged only through it. So each member has a connection of its own to each
  leader it fetches from (a long poll on a shared connection would also hold up every other
  request behind it), and a session epoch: 0 opens the session, each request after carries
  the next epoch, -1 closes it (Kafka then releases what the member held).
- **Fetch**: ShareFetch to the leader of each assigned partition, side by side, with the
  acknowledgements of that leader's partitions carried along (not on the request that opens a
  session: Kafka refuses acknowledgements there). The answer holds the batches that hold the
  acquired ranges, byte for byte, and the records of those batches decoded with the
  repository's codec, limited to the acquired ranges, each with its range's delivery count.
- **Acknowledge**: ShareAcknowledge with AcknowledgeTypes 1 (accept), 2 (release), 3 (reject);
  renew (4) goes in a ShareAcknowledge of its own with IsRenewAck (KIP-1222, version 2).
  ShareAcknowledge carries no delivery count: the member remembers the count of each offset
  it was handed, and an acknowledgement naming another count is refused as
  ``INVALID_RECORD_STATE`` before anything of that partition is sent.

The routes reach it through ``app.kafka.share_members``.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import itertools
import logging
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple
from uuid import UUID

from app.awaiting import each_settled
from app.errors import CorruptRecordError, ErrorCode, InvalidRequest, NotFound, SluiceError
from app.kafka.cluster import GROUP, Cluster
from app.kafka.connection import BrokerConnection
from app.kafka.errors_map import to_sluice
from app.kafka.offsets import DEFAULT_TIMEOUT_MS
from app.kafka.protocol.errors import NONE, BrokerError, ConnectionClosedError, error_info
from app.kafka.protocol.messages import (
    ShareAcknowledgeRequest,
    ShareAcknowledgeResponse,
    ShareFetchRequest,
    ShareFetchResponse,
    ShareGroupHeartbeatRequest,
    ShareGroupHeartbeatResponse,
)
from app.kafka.reads import Batches
from app.kafka.transactions import KafkaUnsupported
from app.share.coordinator import (
    AcquiredRange,
    FetchAnswer,
    FetchedRecords,
    PartitionKey,
)
from app.share.partition import AckBatch, AckType
from app.storage import record
from app.storage.record import StoredRecord

log = logging.getLogger("sluice.kafka.share")

OPEN_EPOCH = 0  # a ShareFetch at this session epoch opens a session
CLOSE_EPOCH = -1  # a request at this session epoch closes it
LEAVE_EPOCH = -1  # a heartbeat at this member epoch leaves the group
MAX_EPOCH = 2**31 - 1

# Kafka's AcknowledgeTypes
ACK_CODES: dict[AckType, int] = {
    AckType.ACCEPT: 1,
    AckType.RELEASE: 2,
    AckType.REJECT: 3,
    AckType.RENEW: 4,
}
BATCH_OPTIMIZED, RECORD_LIMIT = 0, 1  # ShareAcquireMode

# a session the broker no longer knows at this epoch: the member's next fetch opens a new one
LOST_SESSION = frozenset({122, 123})  # SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH
# a heartbeat's answers that mean the coordinator no longer has the member
MEMBER_GONE = frozenset({25, 110})  # UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH


# the contract's acknowledgements (``app.share.coordinator.AckRequest``), taken read-only
Acks = Mapping[PartitionKey, list[AckBatch] | SluiceError]


def next_epoch(epoch: int) -> int:
    """The session epoch after ``epoch``: Kafka wraps past the largest int32 to 1."""
    return 1 if epoch >= MAX_EPOCH else epoch + 1


@dataclass(slots=True)
class ShareSession:
    """A member's share session on one broker, over a connection of its own. ``epoch`` is
    the epoch the next request carries; ``lock`` keeps the requests of the session in order."""

    node_id: int
    conn: BrokerConnection
    epoch: int = OPEN_EPOCH
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(slots=True)
class KafkaMember:
    """A share-group member this gateway holds."""

    group_id: str
    member_id: str
    member_epoch: int
    subscribed: list[str]
    assignment: dict[str, list[int]] = field(default_factory=dict)
    heartbeat_interval_ms: int = 0
    sessions: dict[int, ShareSession] = field(default_factory=dict)
    # the delivery count of each offset handed to the member and not yet acknowledged
    counts: dict[PartitionKey, dict[int, int]] = field(default_factory=dict)
    # one heartbeat at a time: the coordinator fences a heartbeat at an epoch it has moved past
    beat_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # which leader's share of a record_limit fetch comes first (``share_records``)
    turn: int = 0


@dataclass(frozen=True, slots=True)
class KafkaShareFetch:
    """A fetch's answer: the contract's ``FetchAnswer`` (records decoded, limited to the
    acquired ranges) and, for ``format=batches``, the batches holding the acquired ranges as
    the broker sent them, by partition."""

    answer: FetchAnswer
    batches: list[tuple[str, int, list[bytes]]]


Run = tuple[int, int, int]  # offsets first to last acquired in a row, with their delivery count


class Acquired(NamedTuple):
    """What a share fetch acquired in one partition: the records (decoded only when asked),
    the acquired offsets as runs, and the batches that hold them, byte for byte."""

    records: list[tuple[StoredRecord, int]]
    runs: list[Run]
    batches: list[bytes]


def acquired_records(
    data: bytes | bytearray | memoryview,
    ranges: list[ShareFetchResponse.AcquiredRecords],
    *,
    decode: bool = True,
) -> Acquired:
    """The records of the whole batches of ``data`` whose offsets lie in ``ranges``, each with
    its range's delivery count; the offsets of those records in runs of one count; and the
    batches that hold any of them. Control batches are left out (Kafka may count their offsets
    in a range). Without ``decode`` (an answer of batches) no record is decoded where a batch's
    header tells which offsets it holds (every offset from its first to its last: not a batch
    that compaction thinned), and ``records`` is empty."""
    spans = sorted((r.first_offset, r.last_offset, r.delivery_count) for r in ranges)
    firsts = [s[0] for s in spans]
    runs: list[Run] = []

    def add(first: int, last: int, count: int) -> None:
        if runs and runs[-1][1] + 1 == first and runs[-1][2] == count:
            runs[-1] = (runs[-1][0], last, count)
        else:
            runs.append((first, last, count))

    def count_of(offset: int) -> int | None:
        i = bisect.bisect_right(firsts, offset) - 1
        if i >= 0 and spans[i][1] >= offset:
            return spans[i][2]
        return None

    def overlaps(lo: int, hi: int) -> bool:
        i = bisect.bisect_right(firsts, hi) - 1
        return i >= 0 and spans[i][1] >= lo

    records: list[tuple[StoredRecord, int]] = []
    batches: list[bytes] = []
    for h, pos in Batches(data, None):
        lo, hi = h.base_offset, h.last_offset
        if h.is_control or not overlaps(lo, hi):
            continue
        whole = h.record_count == hi - lo + 1  # every offset of the batch is a record
        try:
            record.check_batch(data, pos, compacted=True)
            decoded = [] if whole and not decode else list(record.decode_records(data, pos, h))
        except CorruptRecordError as exc:
            raise SluiceError(
                ErrorCode.INTERNAL, f"the Kafka cluster answered a corrupt batch: {exc}"
            ) from None
        batches.append(bytes(data[pos : pos + h.size]))
        i = bisect.bisect_right(firsts, lo) - 1
        if whole and i >= 0 and spans[i][1] >= hi:
            # the whole batch lies in one range, as it mostly does
            records.extend((r, spans[i][2]) for r in decoded)
            add(lo, hi, spans[i][2])
            continue
        if whole and not decode:
            # the ranges' parts inside the batch
            for first, last, span_count in spans[max(i, 0) :]:
                if first > hi:
                    break
                if last >= lo:
                    add(max(first, lo), min(last, hi), span_count)
            continue
        for r in decoded:
            count = count_of(r.offset)
            if count is not None:
                if decode:
                    records.append((r, count))
                add(r.offset, r.offset, count)
    return Acquired(records, runs, batches)


def ranges_of(topic: str, partition: int, runs: list[Run]) -> list[AcquiredRange]:
    """The acquired ranges as the contract answers them: offsets in a row with one count."""
    return [AcquiredRange(topic, partition, first, last, count) for first, last, count in runs]


def wire_batches(
    batches: Iterable[AckBatch],
) -> tuple[
    list[ShareFetchRequest.AcknowledgementBatch], list[ShareFetchRequest.AcknowledgementBatch]
]:
    """The acknowledgement batches of one partition as Kafka's, one type each: those that
    settle records, and the renewals (sent apart, with IsRenewAck)."""
    settle: list[ShareFetchRequest.AcknowledgementBatch] = []
    renew: list[ShareFetchRequest.AcknowledgementBatch] = []
    for b in batches:
        for lo, hi, kind in b.segments(b.first, b.last):
            wire = ShareFetchRequest.AcknowledgementBatch(
                first_offset=lo, last_offset=hi, acknowledge_types=[ACK_CODES[kind]]
            )
            (renew if kind is AckType.RENEW else settle).append(wire)
    return settle, renew


class KafkaShareGroups:
    """Share-group members held by this gateway, on a started ``cluster``.
    ``request_timeout_ms`` is how long a broker may take beyond a long poll's wait."""

    def __init__(self, cluster: Cluster, *, request_timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.cluster = cluster
        self.request_timeout_ms = request_timeout_ms
        self.members: dict[tuple[str, str], KafkaMember] = {}
        # the error last logged for a partition of a group's share fetches, until the partition
        # answers again: logged once, not at every poll (``_partition_error``)
        self.partition_errors: dict[tuple[str, str, int], int] = {}

    # -- membership ------------------------------------------------------------------------------

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        subscribed: list[str] | None,
    ) -> KafkaMember:
        """Join (epoch 0, ``subscribed`` required; a member id chosen here when none is
        given), heartbeat (the epoch last answered; ``subscribed`` None keeps the
        subscription), or leave (-1: the member's sessions closed first). Raises
        ``INVALID_REQUEST``, ``UNKNOWN_MEMBER_ID``, ``FENCED_MEMBER_EPOCH``,
        ``GROUP_MAX_SIZE_REACHED``."""
        if member_epoch == LEAVE_EPOCH:
            if member_id is None:
                raise InvalidRequest(ErrorCode.INVALID_REQUEST, "leaving needs a member id")
            member = self._member(group_id, member_id)
            await self.leave(group_id, member_id)
            return member
        if member_epoch == 0:
            if not subscribed:
                raise InvalidRequest(ErrorCode.INVALID_REQUEST, "joining needs subscribed topics")
            member_id = member_id or uuid.uuid4().hex
            old = self.members.pop((group_id, member_id), None)
            if old is not None:
                await self._drop_sessions(old)  # a join again starts afresh
            member = KafkaMember(group_id, member_id, 0, list(subscribed))
        else:
            if member_id is None:
                raise InvalidRequest(ErrorCode.INVALID_REQUEST, "a heartbeat needs a member id")
            member = self._member(group_id, member_id)
            if subscribed is not None:
                member.subscribed = list(subscribed)
        async with member.beat_lock:
            if 0 < member_epoch < member.member_epoch:
                # a heartbeat sent for the member meanwhile (the gateway's own, before a fetch
                # or for a push socket) was answered a newer epoch: the member is the same
                member_epoch = member.member_epoch
            epoch = member_epoch
            answer = await self.cluster.send_to_coordinator(
                group_id,
                GROUP,
                lambda: ShareGroupHeartbeatRequest(
                    group_id=group_id,
                    member_id=member.member_id,
                    member_epoch=epoch,
                    subscribed_topic_names=subscribed,
                ),
                lambda a: a.error_code,
            )
            if answer.error_code != NONE:
                if member_epoch != 0 and answer.error_code in MEMBER_GONE:
                    # the coordinator no longer has the member: nor does this gateway
                    self.members.pop((group_id, member.member_id), None)
                    await self._drop_sessions(member)
                raise to_sluice(
                    answer.error_code, answer.error_message, f"share group {group_id!r}"
                )
            member.member_epoch = answer.member_epoch
            member.heartbeat_interval_ms = answer.heartbeat_interval_ms
            if answer.assignment is not None:
                member.assignment = await self._names(answer.assignment.topic_partitions)
        self.members[(group_id, member.member_id)] = member
        return member

    async def leave(self, group_id: str, member_id: str) -> None:
        """The member's sessions closed (Kafka releases what it held) and the member out of
        the group. Raises ``UNKNOWN_MEMBER_ID``."""
        member = self._member(group_id, member_id)
        # out of the gateway first: a fetch meanwhile answers UNKNOWN_MEMBER_ID rather than
        # opening a session nothing would close
        self.members.pop((group_id, member_id), None)
        try:
            await self._close_sessions(member)
        finally:
            answer = await self.cluster.send_to_coordinator(
                group_id,
                GROUP,
                lambda: ShareGroupHeartbeatRequest(
                    group_id=group_id, member_id=member.member_id, member_epoch=LEAVE_EPOCH
                ),
                lambda a: a.error_code,
            )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, answer.error_message, f"share group {group_id!r}")

    def _member(self, group_id: str, member_id: str) -> KafkaMember:
        member = self.members.get((group_id, member_id))
        if member is None:
            raise NotFound(
                ErrorCode.UNKNOWN_MEMBER_ID,
                f"share group {group_id!r} has no member {member_id!r} on this gateway",
            )
        return member

    async def _names(
        self, assigned: Iterable[ShareGroupHeartbeatResponse.TopicPartitions]
    ) -> dict[str, list[int]]:
        """The assignment by topic name (Kafka answers topic ids); a topic id not known is
        learned with Metadata, and left out when it is gone."""
        pairs = [(t.topic_id, list(t.partitions)) for t in assigned]
        by_id = {info.topic_id: name for name, info in self.cluster.topics.items()}
        if any(tid not in by_id for tid, _ in pairs):
            await self.cluster.refresh_metadata(None)
            by_id = {info.topic_id: name for name, info in self.cluster.topics.items()}
        return {by_id[tid]: sorted(ps) for tid, ps in pairs if tid in by_id}

    # -- sessions --------------------------------------------------------------------------------

    async def _session(self, member: KafkaMember, node_id: int) -> ShareSession:
        session = member.sessions.get(node_id)
        if session is None or session.conn.closed:
            if node_id not in self.cluster.brokers:
                await self.cluster.refresh_metadata(None)
            broker = self.cluster.brokers[node_id]
            try:
                conn = await self.cluster.open_connection(broker.host, broker.port)
            except ConnectionClosedError:
                # the leader may have died: its partitions' leaders are looked up again, or
                # every fetch would go to it until some other request learned the new ones
                self.cluster.forget_node(node_id)
                raise
            session = member.sessions[node_id] = ShareSession(node_id, conn)
        return session

    async def close_sessions(self, group_id: str, member_id: str) -> None:
        """Close each of the member's share sessions (ShareAcknowledge at epoch -1, then the
        connection): Kafka releases the records the member held. The member stays in the
        group; its next fetch opens new sessions. Raises ``UNKNOWN_MEMBER_ID``."""
        await self._close_sessions(self._member(group_id, member_id))

    async def _close_sessions(self, member: KafkaMember) -> None:
        group_id, member_id = member.group_id, member.member_id
        sessions = list(member.sessions.values())
        member.sessions.clear()
        member.counts.clear()
        errors: list[SluiceError] = []
        for session in sessions:
            async with session.lock:
                try:
                    if session.epoch != OPEN_EPOCH:
                        answer = await session.conn.send(
                            ShareAcknowledgeRequest(
                                group_id=group_id,
                                member_id=member_id,
                                share_session_epoch=CLOSE_EPOCH,
                            )
                        )
                        if answer.error_code != NONE and answer.error_code not in LOST_SESSION:
                            errors.append(to_sluice(answer.error_code, answer.error_message))
                except ConnectionClosedError:
                    pass  # a closed connection ends its session on the broker too
                finally:
                    await session.conn.close()
        if errors:
            raise errors[0]

    async def _drop_sessions(self, member: KafkaMember) -> None:
        """Close the connections of a member the coordinator no longer has (ending their
        sessions on the brokers), without asking anything of them."""
        sessions = list(member.sessions.values())
        member.sessions.clear()
        member.counts.clear()
        for session in sessions:
            await session.conn.close()

    async def close(self) -> None:
        """Every member this gateway holds leaves (its sessions closed first)."""
        for group_id, member_id in list(self.members):
            # a member not left here ends when its session timeout passes
            with contextlib.suppress(SluiceError, BrokerError, ConnectionClosedError):
                await self.leave(group_id, member_id)

    # -- fetch -----------------------------------------------------------------------------------

    async def fetch(
        self,
        group_id: str,
        member_id: str,
        *,
        max_records: int,
        max_wait_ms: int,
        max_bytes: int,
        record_limit: bool = False,
        acks: Acks | None = None,
        decode: bool = True,
    ) -> KafkaShareFetch:
        """ShareFetch of the member's assigned partitions, to each leader over the member's
        session there, the acknowledgements of that leader's partitions carried along (renewals
        are sent first, apart). Records are acquired with a lock, waiting up to
        ``max_wait_ms`` for some. Without ``decode`` (a fetch answered as batches) the answer
        has no records decoded, only the acquired ranges and the batches. Raises
        ``UNKNOWN_MEMBER_ID``, ``INVALID_REQUEST`` (a release with a delay:
        ``UNSUPPORTED_ON_KAFKA_BACKEND``)."""
        member = self._member(group_id, member_id)
        acks = dict(acks or {})
        check_delays(acks)
        ack_errors: list[tuple[str, int, SluiceError]] = []
        ack_errors.extend(
            (t, p, err) for (t, p), err in acks.items() if isinstance(err, SluiceError)
        )
        ready = self._checked(member, acks, ack_errors)
        # renewals first, in an acknowledgement of their own (IsRenewAck)
        renewals = {k: wire_batches(v)[1] for k, v in ready.items()}
        renewals = {k: v for k, v in renewals.items() if v}
        if renewals:
            for (t, p), err in await self._acknowledge(member, renewals, renew=True):
                if err is not None:
                    ack_errors.append((t, p, err))
        settle = {k: wire_batches(v)[0] for k, v in ready.items()}
        settle = {k: v for k, v in settle.items() if v}
        by_leader: dict[
            int,
            tuple[
                list[PartitionKey], dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]]
            ],
        ] = {}
        for topic, partitions in member.assignment.items():
            for p in partitions:
                node = await self._leader(topic, p)
                by_leader.setdefault(node, ([], {}))[0].append((topic, p))
        for key, wire in settle.items():
            node = await self._leader(*key)
            by_leader.setdefault(node, ([], {}))[1][key] = wire
        limits = dict.fromkeys(by_leader, max_records)
        if record_limit and len(by_leader) > 1:
            # at most max_records in all: shared among the leaders (each would answer up to
            # its MaxRecords), a leader left out this time getting its turn on a later fetch
            limits = share_records(max_records, sorted(by_leader), member.turn)
            member.turn += 1
            for node in [n for n, limit in limits.items() if limit == 0]:
                _, node_acks = by_leader.pop(node)
                if node_acks:  # its acknowledgements go on their own
                    for (t, p), err in await self._acknowledge(member, node_acks, renew=False):
                        if err is not None:
                            ack_errors.append((t, p, err))
        # one leader failing must not lose what the others acquired (their records would stay
        # locked, unseen, their delivery counts spent)
        answers = await each_settled(
            [
                self._share_fetch(
                    member,
                    node,
                    keys,
                    node_acks,
                    limits[node],
                    max_wait_ms,
                    max_bytes,
                    record_limit,
                    decode,
                )
                for node, (keys, node_acks) in by_leader.items()
            ]
        )
        failed = [a for a in answers if isinstance(a, Exception)]
        if failed and len(failed) == len(answers):
            raise failed[0]
        records: list[FetchedRecords] = []
        acquired: list[AcquiredRange] = []
        batches: list[tuple[str, int, list[bytes]]] = []
        lock_ms = 0
        for (_, node_acks), answer in zip(by_leader.values(), answers, strict=True):
            if isinstance(answer, Exception):
                log.warning("a share fetch from one leader failed: %r", answer)
                err = (
                    answer
                    if isinstance(answer, SluiceError)
                    else SluiceError(
                        ErrorCode.INTERNAL, f"the share fetch from a leader failed: {answer!r}"
                    )
                )
                ack_errors.extend((t, p, err) for t, p in node_acks)
                continue
            parts, errs, lock = answer
            for topic, p, got in parts:
                if got.records:
                    records.append(FetchedRecords(topic, p, got.records))
                batches.append((topic, p, got.batches))
                acquired.extend(ranges_of(topic, p, got.runs))
                # each offset's count, which an acknowledgement of it is checked against
                seen = member.counts.setdefault((topic, p), {})
                for first, last, count in got.runs:
                    seen.update(dict.fromkeys(range(first, last + 1), count))
            ack_errors.extend(errs)
            lock_ms = max(lock_ms, lock)
        return KafkaShareFetch(
            FetchAnswer(member.member_id, records, acquired, lock_ms, ack_errors), batches
        )

    async def _leader(self, topic: str, partition: int) -> int:
        try:
            _, p = await self.cluster.leader(topic, partition)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"{topic}-{partition}") from None
        return p.leader_id

    async def _share_fetch(
        self,
        member: KafkaMember,
        node_id: int,
        keys: list[PartitionKey],
        acks: dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]],
        max_records: int,
        max_wait_ms: int,
        max_bytes: int,
        record_limit: bool,
        decode: bool,
    ) -> tuple[list[tuple[str, int, Acquired]], list[tuple[str, int, SluiceError]], int]:
        session = await self._session(member, node_id)
        errors: list[tuple[str, int, SluiceError]] = []
        async with session.lock:
            if session.epoch == OPEN_EPOCH and acks:
                # nothing can have been acquired through a session not yet open
                for t, p in acks:
                    errors.append((t, p, no_session(t, p)))
                acks = {}
            topics: dict[UUID, dict[int, ShareFetchRequest.FetchPartition]] = {}
            names: dict[UUID, str] = {}
            for t, p in [*keys, *acks]:
                info = await self.cluster.topic(t)
                names[info.topic_id] = t
                parts = topics.setdefault(info.topic_id, {})
                fp = parts.setdefault(p, ShareFetchRequest.FetchPartition(partition_index=p))
                fp.acknowledgement_batches = acks.get((t, p), [])
            request = ShareFetchRequest(
                group_id=member.group_id,
                member_id=member.member_id,
                share_session_epoch=session.epoch,
                max_wait_ms=max_wait_ms,
                min_bytes=1,
                max_bytes=max_bytes,
                max_records=max_records,
                batch_size=max_records,
                share_acquire_mode=RECORD_LIMIT if record_limit else BATCH_OPTIMIZED,
                topics=[
                    ShareFetchRequest.FetchTopic(topic_id=tid, partitions=list(parts.values()))
                    for tid, parts in topics.items()
                ],
            )
            timeout = (self.request_timeout_ms + max_wait_ms) / 1000
            try:
                answer = await session.conn.send(request, timeout=timeout)
            except ConnectionClosedError:
                member.sessions.pop(node_id, None)
                self.cluster.forget_node(node_id)  # its leaderships are looked up again
                raise
            if answer.error_code != NONE:
                if answer.error_code in LOST_SESSION:
                    member.sessions.pop(node_id, None)
                    await session.conn.close()
                raise to_sluice(
                    answer.error_code, answer.error_message, f"share group {member.group_id!r}"
                )
            session.epoch = next_epoch(session.epoch)
        fetched: list[tuple[str, int, Acquired]] = []
        for tr in answer.responses:
            name = names.get(tr.topic_id)
            if name is None:
                continue
            for part in tr.partitions:
                key = (name, part.partition_index)
                if key in acks:
                    code = part.acknowledge_error_code
                    if code != NONE:
                        errors.append(
                            (
                                *key,
                                to_sluice(code, part.acknowledge_error_message, f"{name}-{key[1]}"),
                            )
                        )
                    else:
                        settled(member, key, acks[key])
                if part.error_code != NONE:
                    # the partition gives nothing this time; a leader that moved is learned
                    # again, and another error logged. Every fetch asks for each assigned
                    # partition again, so the partition's records come once its leader
                    # answers them (an error retriable on Kafka's side passes by itself)
                    if not self.cluster.stale(name, part.error_code):
                        self._partition_error(
                            member.group_id, key, part.error_code, part.error_message
                        )
                    continue
                if self.partition_errors.pop((member.group_id, *key), None) is not None:
                    log.info(
                        "share group %r: the share fetches of %s-%d answer again",
                        member.group_id,
                        *key,
                    )
                if not part.acquired_records:
                    continue
                got = acquired_records(part.records or b"", part.acquired_records, decode=decode)
                if got.runs:
                    fetched.append((name, part.partition_index, got))
        return fetched, errors, answer.acquisition_lock_timeout_ms

    def _partition_error(
        self, group_id: str, key: PartitionKey, code: int, message: str | None
    ) -> None:
        """Log the error a share fetch's answer gave for a partition, once for the partition
        and the error: a member polls again and again, and would log it at every poll."""
        if self.partition_errors.get((group_id, *key)) == code:
            return
        self.partition_errors[(group_id, *key)] = code
        info = error_info(code)
        log.warning(
            "share group %r: the share fetches of %s-%d get nothing, its leader answers %s (%s)%s",
            group_id,
            *key,
            info.name,
            "retriable: its records come once it answers them"
            if info.retriable
            else "not retriable",
            f": {message}" if message else "",
        )

    # -- acknowledge -----------------------------------------------------------------------------

    async def acknowledge(
        self, group_id: str, member_id: str, acks: Acks
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Accept, release, reject or renew records the member acquired, through its sessions;
        an error for each partition (``INVALID_RECORD_STATE``: records not acquired by the
        member, or acknowledged with another delivery count than they were handed with).
        Raises ``UNKNOWN_MEMBER_ID``, ``INVALID_REQUEST`` (a release with a delay:
        ``UNSUPPORTED_ON_KAFKA_BACKEND``)."""
        member = self._member(group_id, member_id)
        check_delays(acks)
        out: dict[PartitionKey, SluiceError | None] = {}
        errors: list[tuple[str, int, SluiceError]] = []
        for key, value in acks.items():
            out[key] = value if isinstance(value, SluiceError) else None
        err: SluiceError | None
        ready = self._checked(member, acks, errors)
        for t, p, err in errors:
            out[(t, p)] = err
        settle: dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]] = {}
        renew: dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]] = {}
        for key, batches in ready.items():
            s, r = wire_batches(batches)
            if s:
                settle[key] = s
            if r:
                renew[key] = r
        for wanted, is_renew in ((settle, False), (renew, True)):
            if wanted:
                for key, err in await self._acknowledge(member, wanted, renew=is_renew):
                    if err is not None and out.get(key) is None:
                        out[key] = err
        return list(out.items())

    def _checked(
        self,
        member: KafkaMember,
        acks: Acks,
        errors: list[tuple[str, int, SluiceError]],
    ) -> dict[PartitionKey, list[AckBatch]]:
        """The acknowledgements to send: a partition with a range acknowledged with a delivery
        count other than the one it was handed with is refused whole, into ``errors``."""
        ready: dict[PartitionKey, list[AckBatch]] = {}
        for key, batches in acks.items():
            if isinstance(batches, SluiceError):
                continue
            seen = member.counts.get(key, {})
            wrong = next(
                (
                    b
                    for b in batches
                    if b.delivery_count is not None
                    and not {b.delivery_count, None}.issuperset(
                        map(seen.get, range(b.first, b.last + 1))
                    )
                ),
                None,
            )
            if wrong is not None:
                errors.append(
                    (
                        *key,
                        SluiceError(
                            ErrorCode.INVALID_RECORD_STATE,
                            f"{key[0]}-{key[1]}: offsets {wrong.first}-{wrong.last} were not "
                            f"delivered with delivery count {wrong.delivery_count}",
                        ),
                    )
                )
                continue
            ready[key] = batches
        return ready

    async def _acknowledge(
        self,
        member: KafkaMember,
        acks: dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]],
        *,
        renew: bool,
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        """ShareAcknowledge of ``acks`` to each leader, over the member's session there."""
        by_leader: dict[int, dict[PartitionKey, list[ShareFetchRequest.AcknowledgementBatch]]] = {}
        for key, batches in acks.items():
            by_leader.setdefault(await self._leader(*key), {})[key] = batches
        out: list[tuple[PartitionKey, SluiceError | None]] = []
        for node_id, node_acks in by_leader.items():
            session = member.sessions.get(node_id)
            if session is None or session.epoch == OPEN_EPOCH:
                out.extend((k, no_session(*k)) for k in node_acks)
                continue
            topics: dict[UUID, list[ShareAcknowledgeRequest.AcknowledgePartition]] = {}
            names: dict[UUID, str] = {}
            for (t, p), batches in node_acks.items():
                info = await self.cluster.topic(t)
                names[info.topic_id] = t
                topics.setdefault(info.topic_id, []).append(
                    ShareAcknowledgeRequest.AcknowledgePartition(
                        partition_index=p,
                        acknowledgement_batches=[
                            ShareAcknowledgeRequest.AcknowledgementBatch(
                                first_offset=b.first_offset,
                                last_offset=b.last_offset,
                                acknowledge_types=b.acknowledge_types,
                            )
                            for b in batches
                        ],
                    )
                )
            async with session.lock:
                try:
                    answer: ShareAcknowledgeResponse = await session.conn.send(
                        ShareAcknowledgeRequest(
                            group_id=member.group_id,
                            member_id=member.member_id,
                            share_session_epoch=session.epoch,
                            is_renew_ack=renew,
                            topics=[
                                ShareAcknowledgeRequest.AcknowledgeTopic(
                                    topic_id=tid, partitions=ps
                                )
                                for tid, ps in topics.items()
                            ],
                        )
                    )
                except ConnectionClosedError:
                    member.sessions.pop(node_id, None)  # the session ended with its connection
                    self.cluster.forget_node(node_id)  # its leaderships are looked up again
                    raise
                if answer.error_code != NONE:
                    if answer.error_code in LOST_SESSION:
                        member.sessions.pop(node_id, None)
                        await session.conn.close()
                    err = to_sluice(answer.error_code, answer.error_message)
                    out.extend((k, err) for k in node_acks)
                    continue
                session.epoch = next_epoch(session.epoch)
            answered: set[PartitionKey] = set()
            for tr in answer.responses:
                name = names.get(tr.topic_id)
                if name is None:
                    continue
                for part in tr.partitions:
                    key = (name, part.partition_index)
                    answered.add(key)
                    if part.error_code != NONE:
                        out.append(
                            (
                                key,
                                to_sluice(part.error_code, part.error_message, f"{name}-{key[1]}"),
                            )
                        )
                    else:
                        if not renew:
                            settled(member, key, node_acks.get(key, []))
                        out.append((key, None))
            out.extend((k, None) for k in node_acks if k not in answered)
        return out


def share_records(total: int, nodes: list[int], turn: int) -> dict[int, int]:
    """``total`` records shared among the leaders ``nodes`` as evenly as can be, the
    remainder to the first ones counted from ``turn`` (so each gets its turn when there are
    fewer records than leaders)."""
    base, extra = divmod(total, len(nodes))
    start = turn % len(nodes)
    order = nodes[start:] + nodes[:start]
    return {node: base + (1 if i < extra else 0) for i, node in enumerate(order)}


def check_delays(acks: Acks) -> None:
    """A release with a delay cannot be made on Kafka: the whole request is refused."""
    for batches in acks.values():
        if isinstance(batches, SluiceError):
            continue
        if any(b.delay_ms > 0 and AckType.RELEASE in b.types for b in batches):
            raise KafkaUnsupported(
                "release_delay", "Kafka 4.4 has no release with a delay: delay_ms must be 0"
            )


def no_session(topic: str, partition: int) -> SluiceError:
    return SluiceError(
        ErrorCode.INVALID_RECORD_STATE,
        f"{topic}-{partition}: the member holds no records there (no share session is open)",
    )


def settled(
    member: KafkaMember,
    key: PartitionKey,
    batches: Iterable[ShareFetchRequest.AcknowledgementBatch],
) -> None:
    """Forget the delivery counts of offsets that were settled (accepted, released, rejected):
    they are no longer the member's."""
    seen = member.counts.get(key)
    if not seen:
        return
    for b in batches:
        offsets = range(b.first_offset, b.last_offset + 1)
        collections.deque(map(seen.pop, offsets, itertools.repeat(None)), maxlen=0)
