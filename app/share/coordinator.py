"""ShareGroupCoordinator: share partitions, fetch and acknowledge, long polls, timers.

Everything changes synchronously on the event loop: acquisition reads the log and moves states
in one step (so two members never hold the same record), acknowledgements are staged
synchronously and awaited through the ``StateWriter`` group commit, whose rounds this class runs
and applies (``run_writer``: each committed change completed, each failed one rolled back). Long
polls (``LongPolls``) are woken one at a time by new durable data, releases, lock expiries and
the end of a release delay; a woken fetch that leaves work behind wakes the next one.

The other parts of the package are built on it: ``Membership`` (its own, for the members),
``ShareGroupAdmin``, ``ShareTxnParticipant`` and ``Acquisitions`` (given this coordinator; the
last fetches for acquisition ids through ``ensure_partitions`` and ``acquire``, as ``fetch``
does for members).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.clock import Clock
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, NotFound, SluiceError
from app.metadata.db import Database
from app.metadata.share_store import ShareStore
from app.metrics import Counter
from app.producers.appender import Appender
from app.share.dead_letters import DeadLetters
from app.share.group_config import GroupConfig
from app.share.membership import Member, Membership, ShareGroup
from app.share.partition import (
    AckBatch,
    AckType,
    HeldAck,
    Limits,
    Lock,
    Reader,
    SharePartition,
    Staged,
)
from app.share.polls import LongPolls
from app.share.timers import DeadlineHeap, wait_set
from app.share.writer import StateWriter
from app.storage.log import PartitionLog, ReadResult
from app.storage.record import StoredRecord
from app.topics import Topic, TopicRegistry

if TYPE_CHECKING:
    from app.share.push import PushSession

PartitionKey = tuple[str, int]
AckRequest = dict[PartitionKey, list[AckBatch] | SluiceError]


@dataclass(frozen=True, slots=True)
class FetchedRecords:
    """The records one fetch acquired in one partition, each with its delivery count (one
    object per partition, not per record: this is the hot path of share consumption)."""

    topic: str
    partition: int
    records: list[tuple[StoredRecord, int]]


@dataclass(frozen=True, slots=True)
class AcquiredRange:
    """Offsets one fetch acquired in a row, with the delivery count they share."""

    topic: str
    partition: int
    first: int
    last: int
    delivery_count: int


@dataclass(frozen=True, slots=True)
class FetchAnswer:
    member_id: str | None  # None: a fetch by acquisition id
    records: list[FetchedRecords]  # by partition, in the order of acquisition
    acquired: list[AcquiredRange]
    lock_timeout_ms: int
    ack_errors: list[tuple[str, int, SluiceError]]
    acquisition_id: str | None = None
    # asked for (``batches``): the stored batches that hold ``acquired``, per partition
    batches: list[tuple[str, int, list[bytes]]] = field(default_factory=list)


@dataclass(slots=True)
class AcquireRound:
    """What one pass over the partitions of a fetch acquired: the records, their ranges, the
    share partitions it looked at (a long poll waits on them) and the locks it took (one per
    partition that gave records)."""

    records: list[FetchedRecords] = field(default_factory=list)
    acquired: list[AcquiredRange] = field(default_factory=list)
    touched: list[SharePartition] = field(default_factory=list)
    locks: list[Lock] = field(default_factory=list)


def rotated(keys: list[PartitionKey], rotation: int) -> list[PartitionKey]:
    """``keys`` starting at index ``rotation`` (modulo their number), so that successive
    fetches start at successive partitions."""
    if not keys:
        return keys
    r = rotation % len(keys)
    return keys[r:] + keys[:r]


class ShareGroupCoordinator:
    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        db: Database,
        topics: TopicRegistry,
        appender: Appender,
        delivered: Counter | None = None,
    ) -> None:
        self.settings = settings
        # in no registry: a coordinator built alone (tests) exposes nothing
        self.delivered = delivered or Counter("delivered", "records delivered", registry=None)
        self.clock = clock
        self.topics = topics
        self.store = ShareStore(db)
        self._timer_wake = asyncio.Event()
        self.timers = DeadlineHeap(on_earlier=self._timer_wake.set)
        self.dead_letters = DeadLetters(topics, appender, self.store)
        self.writer = StateWriter(self.store, self.dead_letters, now_ms=clock.now_ms)
        self.membership = Membership(settings, clock, topics, self.store, self.writer)
        self.groups = self.membership.groups  # the one dict of groups, shared
        self._by_log: dict[PartitionLog, list[SharePartition]] = {}
        self.polls = LongPolls()
        self.stopping = False
        self.stopped = asyncio.Event()  # set with ``stopping``: push sessions end on it

    # -- lifecycle ----------------------------------------------------------------------------

    async def load(self) -> None:
        for row in await self.store.load_groups():
            self.groups[row.group_id] = self.membership.new_group(
                row.group_id, dict(row.config), row.created_ms
            )
        by_id = {t.topic_id: t for t in self.topics.topics.values()}
        held = {
            key: [
                HeldAck(
                    h.first,
                    h.last,
                    h.producer_id,
                    AckType(h.kind),
                    h.delay_ms,
                    h.delivery_count,
                    h.member,
                )
                for h in rows
            ]
            for key, rows in (await self.store.load_txn_acks()).items()
        }
        for prow in await self.store.load_partitions():
            group = self.groups.get(prow.group_id)
            topic = by_id.get(prow.topic_id)
            if group is None or topic is None or prow.partition >= topic.partitions:
                continue
            sp = SharePartition.load(
                group.group_id,
                topic.name,
                prow.partition,
                topic.topic_id,
                prow.start_offset,
                prow.batches,
                self.timers,
                state_epoch=prow.state_epoch,
                held=held.get((prow.group_id, prow.topic_id, prow.partition)),
            )
            self.register(group, sp, topic.log(prow.partition))

    def begin_shutdown(self) -> None:
        self.stopping = True
        self.stopped.set()
        self.polls.release()

    async def close(self) -> None:
        self.begin_shutdown()
        await self._write_round()  # the last one
        self.writer.close()

    async def run_writer(self) -> None:
        """The state writer's rounds, each applied here as it ends."""
        while True:
            await self.writer.wait()
            await self._write_round()

    async def _write_round(self) -> None:
        outcome = await self.writer.round(self.dead_letter_topic)
        try:
            for staged in outcome.committed:
                self.complete(staged)
            for staged, _ in outcome.failed:
                self.rollback(staged)
        finally:
            self.writer.answer(outcome)

    async def run_timers(self) -> None:
        """Expire due locks and wake fetches at the end of release delays."""
        while True:
            self.expire_due()
            nxt = self.timers.next_deadline()
            wait = 1.0 if nxt is None else (nxt - self.clock.now_ms()) / 1000
            await wait_set(self._timer_wake, min(max(wait, 0.001), 1.0))

    # -- share partitions ---------------------------------------------------------------------

    def register(self, group: ShareGroup, sp: SharePartition, lg: PartitionLog) -> None:
        group.partitions[(sp.topic, sp.partition)] = sp
        self._by_log.setdefault(lg, []).append(sp)

    def retire(self, group: ShareGroup, key: PartitionKey) -> None:
        """The share partition is replaced (reset) or gone: nothing writes or waits on it."""
        sp = group.partitions.pop(key, None)
        if sp is None:
            return
        sp.retired = True
        for sps in self._by_log.values():
            if sp in sps:
                sps.remove(sp)
        self.polls.wake_all(sp)

    def bound(self, group: ShareGroup, lg: PartitionLog) -> int:
        """The partition end a share group may read to: HW, or the LSO for read_committed."""
        if group.config.isolation_level == "read_committed":
            return lg.last_stable_offset
        return lg.high_watermark

    def _reader(self, group: ShareGroup, lg: PartitionLog) -> Reader:
        committed = group.config.isolation_level == "read_committed"

        def read(offset: int, max_records: int, upto: int, max_bytes: int) -> ReadResult:
            # read_committed: stops at the LSO and leaves aborted transactions out (their
            # offsets become gaps, archived like control markers)
            return lg.read(offset, max_records, max_bytes, upto=upto, committed=committed)

        return read

    def initial_offset(self, group: ShareGroup, lg: PartitionLog, reset: str) -> int:
        """Where ``reset`` (earliest, latest or by_duration:<ms>) starts in ``lg``."""
        bound = self.bound(group, lg)
        if reset == "earliest":
            return lg.log_start_offset
        if reset.startswith("by_duration:"):
            since = self.clock.now_ms() - int(reset.removeprefix("by_duration:"))
            found = lg.offset_for_timestamp(since, upto=bound)
            return found[0] if found is not None else bound
        return bound

    def _share_partition(self, group: ShareGroup, topic: Topic, p: int) -> SharePartition:
        sp = group.partitions.get((topic.name, p))
        if sp is not None and sp.topic_id != topic.topic_id:  # the topic was recreated
            self.retire(group, (topic.name, p))
            sp = None
        if sp is None:
            lg = topic.log(p)
            start = self.initial_offset(group, lg, group.config.auto_offset_reset)
            sp = SharePartition(group.group_id, topic.name, p, topic.topic_id, start, self.timers)
            self.register(group, sp, lg)
            self.writer.mark(sp)  # the initialised start offset is made durable
        return sp

    # -- fetch --------------------------------------------------------------------------------

    async def fetch(
        self,
        group_id: str,
        member_id: str | None,
        subscribed: list[str] | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        acks: AckRequest,
        principal: str | None,
        max_bytes: int = 8 * 1024 * 1024,
        batches: bool = False,
    ) -> FetchAnswer:
        """ShareFetch as a member of ``principal`` (joined here when ``member_id`` is None);
        with ``batches``, the answer carries the stored batches of what it acquired, read once
        the fetch is done."""
        if member_id is None:
            if subscribed is None:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    "member_id is null: subscribed_topics is required to join",
                )
            member, group = await self.membership.join(group_id, None, subscribed, principal)
        else:
            group, member = self.membership.member(group_id, member_id, principal)
            self.membership.refresh(group, member, subscribed)
        ack_errors: list[tuple[str, int, SluiceError]] = []
        if acks:
            for (t, p), err in await self._acknowledge(group, member, acks):
                if err is not None:
                    ack_errors.append((t, p, err))
        deadline = self.clock.monotonic() + max_wait_ms / 1000
        member.fetching += 1
        try:
            while True:
                keys = [(t, p) for t, ps in member.assignment for p in ps]
                keys = rotated(keys, member.rotation)
                if keys:
                    member.rotation += 1
                await self.ensure_partitions(group, keys)
                got = self.acquire(
                    group, member.member_id, keys, max_records, record_limit, max_bytes
                )
                if got.records or max_wait_ms <= 0 or self.stopping:
                    break
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0 or not got.touched or member.member_id not in group.members:
                    break
                await self.polls.park(got.touched, remaining)
                if group.members.get(member.member_id) is not member:
                    raise NotFound(
                        ErrorCode.UNKNOWN_MEMBER_ID,
                        f"member {member.member_id!r} left share group {group_id!r}",
                    )
        finally:
            member.fetching -= 1
            member.last_seen_ms = self.clock.now_ms()
        return FetchAnswer(
            member.member_id,
            got.records,
            got.acquired,
            group.config.record_lock_duration_ms,
            ack_errors,
            batches=self.acquired_batches(group_id, got.acquired) if batches else [],
        )

    def open_push(self, group_id: str, max_credits: int, principal: str | None) -> PushSession:
        """A push session of ``principal`` on ``group_id`` (not joined until it subscribes)."""
        from app.share.push import PushSession  # the session module imports this one

        return PushSession(self, group_id, self.clock, max_credits, principal)

    def partitions_of(self, topics: list[str]) -> list[PartitionKey]:
        """Every partition of the topics that exist and are not being deleted."""
        return [(t, p) for t, ps in self.membership.assignment_of(topics) for p in ps]

    async def ensure_partitions(self, group: ShareGroup, keys: list[PartitionKey]) -> None:
        """Initialise the share partitions of ``keys`` that the group never fetched from (start
        offset from ``auto_offset_reset``) and wait until that start is durable: a restart must
        not move it past records delivered meanwhile."""
        waiting = []
        for name, p in keys:
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            sp = self._share_partition(group, topic, p)
            if not sp.persisted:
                waiting.append(sp)
        if waiting:
            await asyncio.gather(*(self.writer.flush(sp) for sp in waiting))

    def acquire(
        self,
        group: ShareGroup,
        owner: str,
        keys: list[PartitionKey],
        max_records: int,
        record_limit: bool,
        max_bytes: int,
    ) -> AcquireRound:
        """Acquire for ``owner`` (a member id, or an acquisition's owner) from the partitions
        of ``keys``, in that order, at once (no await: two owners never hold one record)."""
        now = self.clock.now_ms()
        limits = group.config.limits
        got = AcquireRound()
        count = 0
        for name, p in keys:
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            sp = self._share_partition(group, topic, p)
            got.touched.append(sp)
            if count >= max_records or max_bytes <= 0 or not sp.persisted:
                continue
            lg = topic.log(p)
            start_before = sp.start_offset
            acquired = sp.acquire(
                owner,
                max_records - count,
                record_limit=record_limit,
                now=now,
                limits=limits,
                read=self._reader(group, lg),
                bound=self.bound(group, lg),
                log_start=lg.log_start_offset,
                max_bytes=max_bytes,
                allow_oversize=not count,
            )
            max_bytes -= acquired.bytes
            if sp.dirty or sp.start_offset != start_before:
                self.writer.mark(sp)
            if acquired.records:
                got.records.append(FetchedRecords(name, p, acquired.records))
                count += len(acquired.records)
                self.delivered.inc(len(acquired.records))
                topic.consumed += len(acquired.records)
            if acquired.lock is not None:
                got.locks.append(acquired.lock)
            got.acquired.extend(AcquiredRange(name, p, a, b, dc) for a, b, dc in acquired.ranges)
            self._wake_one(sp)  # pass remaining work on to the next waiting fetch
        return got

    def acquired_batches(
        self, group_id: str, acquired: list[AcquiredRange]
    ) -> list[tuple[str, int, list[bytes]]]:
        """The stored batches that hold the ``acquired`` ranges, per partition in the order the
        ranges come, read whole (their records outside the ranges too: the client takes the
        ranges' records only, as from Kafka's ShareFetch)."""
        spans: dict[tuple[str, int], tuple[int, int]] = {}
        for a in acquired:
            lo, hi = spans.get((a.topic, a.partition), (a.first, a.last))
            spans[(a.topic, a.partition)] = (min(lo, a.first), max(hi, a.last))
        group = self.groups.get(group_id)
        committed = group is not None and group.config.isolation_level == "read_committed"
        out = []
        for (name, p), (first, last) in spans.items():
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            lg = topic.log(p)
            first = max(first, lg.log_start_offset)
            stored = lg.read_batches(
                first, 1 << 62, 1 << 62, upto=last + 1, committed=committed, past_end=True
            )
            out.append((name, p, stored.batches))
        return out

    def read_held(
        self, group: ShareGroup, sp: SharePartition, runs: list[tuple[int, int, int]]
    ) -> list[tuple[StoredRecord, int]]:
        """The records of ``runs`` (first, last, delivery count) of ``sp``, read again from the
        log, each with its delivery count (records the log no longer holds are left out)."""
        topic = self.topics.topics.get(sp.topic)
        if topic is None or topic.deleting or topic.topic_id != sp.topic_id:
            return []
        lg = topic.log(sp.partition)
        read = self._reader(group, lg)
        out: list[tuple[StoredRecord, int]] = []
        for first, last, dc in runs:
            lo = max(first, lg.log_start_offset)
            if lo <= last:
                out.extend((r, dc) for r in read(lo, last - lo + 1, last + 1, 1 << 62).records)
        return out

    def _wake_one(self, sp: SharePartition) -> None:
        """Wake one fetch waiting on ``sp`` if a fetch could acquire something there now."""
        if not self.polls.waiting(sp):
            return
        group = self.groups.get(sp.group_id)
        topic = self.topics.topics.get(sp.topic)
        if group is None or topic is None or topic.deleting:
            return
        lg = topic.log(sp.partition)
        if lg.log_start_offset <= sp.start_offset and not sp.has_work(
            self.clock.now_ms(), self.bound(group, lg), group.config.partition_max_record_locks
        ):
            return
        self.polls.wake_one(sp)

    def on_data(self, lg: PartitionLog) -> None:
        """New durable data in ``lg``: wake one waiting fetch per share partition on it."""
        for sp in self._by_log.get(lg, ()):
            self._wake_one(sp)

    # -- acknowledge --------------------------------------------------------------------------

    async def acknowledge(
        self, group_id: str, member_id: str, acks: AckRequest, principal: str | None
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        group, member = self.membership.member(group_id, member_id, principal)
        return await self._acknowledge(group, member, acks)

    async def _acknowledge(
        self, group: ShareGroup, member: Member, acks: AckRequest
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        now = self.clock.now_ms()
        limits = group.config.limits
        results, done = group.per_partition(
            acks,
            lambda sp, batches: sp.acknowledge(member.member_id, batches, now=now, limits=limits),
        )
        staged = {key: s for key, _, s in done}
        if staged:
            outcomes = await asyncio.gather(
                *(self.writer.persist(s) for s in staged.values()), return_exceptions=True
            )
            for key, outcome in zip(staged, outcomes, strict=True):
                if isinstance(outcome, SluiceError):
                    results[key] = outcome
                elif isinstance(outcome, BaseException):
                    raise outcome
        return list(results.items())

    # -- timers and staged completion ---------------------------------------------------------

    def expire_due(self) -> int:
        """Process every lock and delay whose time has come; returns how many."""
        now = self.clock.now_ms()
        due = self.timers.pop_due(now)
        for item in due:
            if isinstance(item, Lock):
                sp = item.partition
                if sp.retired:
                    continue
                group = self.groups.get(sp.group_id)
                if group is None:
                    continue
                if sp.expire_lock(item, now, group.config.limits) is not None:
                    self.writer.mark(sp)
            elif not item.retired:
                self._wake_one(item)
        return len(due)

    def dead_letter_topic(self, group_id: str) -> str | None:
        group = self.groups.get(group_id)
        return group.config.dead_letter_topic if group is not None else None

    def _limits_of(self, sp: SharePartition) -> Limits:
        group = self.groups.get(sp.group_id)
        return (
            group.config if group is not None else GroupConfig.effective({}, self.settings)
        ).limits

    def complete(self, staged: Staged) -> None:
        """``staged`` is durable: apply it, and wake a fetch if that freed records."""
        sp = staged.partition
        sp.complete(staged, self.clock.now_ms(), self._limits_of(sp))
        if not sp.retired:
            self._wake_one(sp)

    def rollback(self, staged: Staged) -> None:
        """``staged`` failed: undo it (records whose lock expired meanwhile expire now)."""
        sp = staged.partition
        if sp.rollback(staged, self.clock.now_ms(), self._limits_of(sp)) is not None:
            self.writer.mark(sp)

    def statistics(self) -> dict[str, object]:
        records = {"available": 0, "acquired": 0, "acknowledged": 0, "archived": 0}
        for group in self.groups.values():
            for sp in group.partitions.values():
                for state, n in sp.counts().items():
                    records[state] += n
        return {
            "share_records": records,
            "share_dead_letter_copies": self.dead_letters.copied,
            "share_groups": len(self.groups),
            "share_members": sum(len(g.members) for g in self.groups.values()),
            "share_partitions": sum(len(g.partitions) for g in self.groups.values()),
            "share_locks_scheduled": len(self.timers),
            "share_state_rounds": self.writer.rounds,
        }
