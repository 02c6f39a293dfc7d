"""ShareGroupCoordinator: share groups, their members, share partitions, fetch and acknowledge.

Everything changes synchronously on the event loop: acquisition reads the log and moves states
in one step (so two members never hold the same record), acknowledgements are staged
synchronously and awaited through the ``StateWriter`` group commit. Long polls park on futures
per share partition and are woken one at a time by new durable data, releases, lock expiries
and the end of a release delay; a woken fetch that leaves work behind wakes the next one.

It is also the share groups' side of transactions (``AckParticipant``): acknowledgements sent to
a transaction are held, durably, until the transaction commits or aborts (decision 4).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from app.clock import Clock
from app.config import Settings
from app.errors import (
    Conflict,
    ErrorCode,
    InvalidRequest,
    NotFound,
    SluiceError,
    TooLarge,
)
from app.flusher import Flusher
from app.metadata.db import Database
from app.metadata.share_store import HeldAckRow, ShareStore
from app.share import group_config
from app.share.dead_letters import DeadLetters
from app.share.group_config import GroupConfig
from app.share.partition import (
    AckBatch,
    AckType,
    HeldAck,
    Limits,
    Lock,
    Reader,
    RecordView,
    SharePartition,
    Staged,
)
from app.share.timers import DeadlineHeap
from app.share.writer import StateWriter
from app.storage.log import PartitionLog, ReadResult
from app.storage.record import StoredRecord
from app.topics import Topic, TopicRegistry, validate_name

T = TypeVar("T")

log = logging.getLogger("sluice.share")

PartitionKey = tuple[str, int]


@dataclass(slots=True)
class Member:
    member_id: str
    member_epoch: int
    subscribed_topics: list[str]
    last_seen_ms: int
    assignment: list[tuple[str, list[int]]] = field(default_factory=list)
    previous_epoch: int = -1
    rotation: int = 0
    fetching: int = 0  # long polls in progress: the member is alive while it waits


@dataclass(slots=True)
class ShareGroup:
    group_id: str
    explicit: dict[str, Any]
    config: GroupConfig
    created_ms: int
    members: dict[str, Member] = field(default_factory=dict)
    group_epoch: int = 0
    partitions: dict[PartitionKey, SharePartition] = field(default_factory=dict)
    saved: asyncio.Future[None] | None = None

    @property
    def state(self) -> str:
        return "Stable" if self.members else "Empty"


@dataclass(slots=True)
class FetchedRecord:
    topic: str
    partition: int
    record: StoredRecord
    delivery_count: int


@dataclass(slots=True)
class FetchAnswer:
    member_id: str
    records: list[FetchedRecord]
    acquired: list[tuple[str, int, int, int, int]]  # topic, partition, first, last, dc
    lock_timeout_ms: int
    ack_errors: list[tuple[str, int, SluiceError]]


AckRequest = dict[PartitionKey, list[AckBatch] | SluiceError]


class ShareGroupCoordinator:
    def __init__(self, settings: Settings, clock: Clock, db: Database, topics: TopicRegistry,
                 flusher: Flusher) -> None:
        self.settings = settings
        self.clock = clock
        self.topics = topics
        self.flusher = flusher
        self.store = ShareStore(db)
        self._timer_wake = asyncio.Event()
        self.timers = DeadlineHeap(on_earlier=self._timer_wake.set)
        self.dead_letters = DeadLetters(topics, flusher, clock)
        self.writer = StateWriter(self.store, self.dead_letters, now_ms=clock.now_ms)
        self.groups: dict[str, ShareGroup] = {}
        self._by_log: dict[PartitionLog, list[SharePartition]] = {}
        self._waiters: dict[SharePartition, list[asyncio.Future[None]]] = {}
        self.stopping = False

    # -- lifecycle ----------------------------------------------------------------------------

    async def load(self) -> None:
        for row in await self.store.load_groups():
            self.groups[row.group_id] = self._new_group(row.group_id, dict(row.config),
                                                        row.created_ms)
        by_id = {t.topic_id: t for t in self.topics.topics.values()}
        held = {key: [HeldAck(h.first, h.last, h.producer_id, AckType(h.kind), h.delay_ms,
                              h.delivery_count, h.member) for h in rows]
                for key, rows in (await self.store.load_txn_acks()).items()}
        for prow in await self.store.load_partitions():
            group = self.groups.get(prow.group_id)
            topic = by_id.get(prow.topic_id)
            if group is None or topic is None or prow.partition >= topic.partitions:
                continue
            sp = SharePartition.load(group.group_id, topic.name, prow.partition, topic.topic_id,
                                     prow.start_offset, prow.batches, self.timers,
                                     state_epoch=prow.state_epoch,
                                     held=held.get((prow.group_id, prow.topic_id,
                                                    prow.partition)))
            self._register(group, sp, topic.log(prow.partition))

    def begin_shutdown(self) -> None:
        self.stopping = True
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

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
        outcome = await self.writer.round(self._dead_letter_topic)
        try:
            for staged in outcome.committed:
                self._complete(staged)
            for staged, _ in outcome.failed:
                self._rollback(staged)
        finally:
            self.writer.answer(outcome)

    async def run_timers(self) -> None:
        """Expire due locks and wake fetches at the end of release delays."""
        while True:
            self.expire_due()
            nxt = self.timers.next_deadline()
            wait = 1.0 if nxt is None else (nxt - self.clock.now_ms()) / 1000
            self._timer_wake.clear()
            # asyncio.wait, not wait_for: wait_for can swallow a cancellation on Python 3.11
            waiter = asyncio.ensure_future(self._timer_wake.wait())
            try:
                await asyncio.wait([waiter], timeout=min(max(wait, 0.001), 1.0))
            finally:
                waiter.cancel()

    async def run_sessions(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.share_session_timeout_ms / 4000, 1.0))
            self.sweep_sessions()

    # -- groups and members -------------------------------------------------------------------

    def _new_group(self, group_id: str, explicit: dict[str, Any], now: int) -> ShareGroup:
        return ShareGroup(group_id, explicit, GroupConfig.effective(explicit, self.settings), now)

    def group(self, group_id: str) -> ShareGroup:
        group = self.groups.get(group_id)
        if group is None:
            raise NotFound(f"share group {group_id!r} does not exist",
                           ErrorCode.GROUP_ID_NOT_FOUND)
        return group

    async def _group_for_join(self, group_id: str) -> ShareGroup:
        validate_name(group_id, "group")
        group = self.groups.get(group_id)
        if group is None:
            group = self._new_group(group_id, {}, self.clock.now_ms())
            self.groups[group_id] = group
            group.saved = asyncio.get_running_loop().create_future()
            try:
                await self.store.save_group(group_id, {}, group.created_ms)
            except BaseException as exc:
                if self.groups.get(group_id) is group:
                    del self.groups[group_id]
                group.saved.set_exception(exc)
                group.saved.exception()  # retrieved: waiters see it through shield below
                raise
            group.saved.set_result(None)
        elif group.saved is not None and not group.saved.done():
            await asyncio.shield(group.saved)
        return group

    def _member(self, group_id: str, member_id: str) -> tuple[ShareGroup, Member]:
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if group is None or member is None:
            raise NotFound(f"member {member_id!r} is not in share group {group_id!r}",
                           ErrorCode.UNKNOWN_MEMBER_ID)
        member.last_seen_ms = self.clock.now_ms()
        return group, member

    def _assignment(self, member: Member) -> list[tuple[str, list[int]]]:
        """Every partition of every subscribed topic (share groups allow that)."""
        out = []
        for name in member.subscribed_topics:
            topic = self.topics.topics.get(name)
            if topic is not None and not topic.deleting:
                out.append((name, list(range(topic.partitions))))
        return out

    def _refresh(self, group: ShareGroup, member: Member) -> None:
        assignment = self._assignment(member)
        if assignment != member.assignment:
            group.group_epoch += 1
            member.previous_epoch = member.member_epoch
            member.member_epoch = group.group_epoch
            member.assignment = assignment

    async def heartbeat(self, group_id: str, member_id: str | None, member_epoch: int,
                        subscribed: list[str] | None) -> tuple[Member, ShareGroup]:
        if member_epoch == 0:
            if subscribed is None:
                raise InvalidRequest("subscribed_topics is required to join (member_epoch 0)")
            return await self._join(group_id, member_id, subscribed)
        if member_id is None:
            raise InvalidRequest("member_id is required unless member_epoch is 0")
        if member_epoch == -1:
            group, member = self._member(group_id, member_id)
            await self.leave(group_id, member_id)
            member.member_epoch = -1
            member.assignment = []
            return member, group
        if member_epoch < -1:
            raise InvalidRequest("member_epoch must be 0 (join), -1 (leave) or the current one")
        group, member = self._member(group_id, member_id)
        if member_epoch not in (member.member_epoch, member.previous_epoch):
            raise Conflict(ErrorCode.FENCED_MEMBER_EPOCH,
                           f"member epoch {member_epoch} is fenced (current "
                           f"{member.member_epoch}); rejoin with member_epoch 0")
        if subscribed is not None and subscribed != member.subscribed_topics:
            member.subscribed_topics = subscribed
        self._refresh(group, member)
        return member, group

    async def _join(self, group_id: str, member_id: str | None, subscribed: list[str]
                    ) -> tuple[Member, ShareGroup]:
        group = await self._group_for_join(group_id)
        now = self.clock.now_ms()
        member = group.members.get(member_id) if member_id is not None else None
        if member is None:
            if len(group.members) >= self.settings.share_max_group_size:
                raise SluiceError(ErrorCode.GROUP_MAX_SIZE_REACHED,
                                  f"share group {group_id!r} has "
                                  f"{self.settings.share_max_group_size} members")
            group.group_epoch += 1
            member = Member(member_id or uuid.uuid4().hex, group.group_epoch, subscribed, now)
            group.members[member.member_id] = member
        member.subscribed_topics = subscribed
        member.last_seen_ms = now
        member.assignment = []
        self._refresh(group, member)
        return member, group

    async def leave(self, group_id: str, member_id: str) -> None:
        """The member leaves: its acquired records are released with their delivery count
        lowered by one (decision 5); answered once that is durable."""
        group, _ = self._member(group_id, member_id)
        del group.members[member_id]
        group.group_epoch += 1
        pending = [staged for sp in list(group.partitions.values())
                   if (staged := sp.release_member(member_id)) is not None]
        await asyncio.gather(*(self.writer.persist(s) for s in pending))

    def sweep_sessions(self) -> int:
        """Remove members silent for the session timeout; their records keep their locks."""
        now = self.clock.now_ms()
        limit = self.settings.share_session_timeout_ms
        removed = 0
        for group in self.groups.values():
            for mid in [m.member_id for m in group.members.values()
                        if now - m.last_seen_ms >= limit and not m.fetching]:
                del group.members[mid]
                group.group_epoch += 1
                removed += 1
        return removed

    # -- share partitions ---------------------------------------------------------------------

    def _register(self, group: ShareGroup, sp: SharePartition, lg: PartitionLog) -> None:
        group.partitions[(sp.topic, sp.partition)] = sp
        self._by_log.setdefault(lg, []).append(sp)

    def _retire(self, group: ShareGroup, key: PartitionKey) -> None:
        sp = group.partitions.pop(key, None)
        if sp is None:
            return
        sp.retired = True
        for sps in self._by_log.values():
            if sp in sps:
                sps.remove(sp)
        for fut in self._waiters.pop(sp, ()):
            if not fut.done():
                fut.set_result(None)

    def _bound(self, group: ShareGroup, lg: PartitionLog) -> int:
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

    def _initial_offset(self, group: ShareGroup, lg: PartitionLog, reset: str) -> int:
        bound = self._bound(group, lg)
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
            self._retire(group, (topic.name, p))
            sp = None
        if sp is None:
            lg = topic.log(p)
            start = self._initial_offset(group, lg, group.config.auto_offset_reset)
            sp = SharePartition(group.group_id, topic.name, p, topic.topic_id, start,
                                self.timers)
            self._register(group, sp, lg)
            self.writer.mark(sp)  # the initialised start offset is made durable
        return sp

    # -- fetch --------------------------------------------------------------------------------

    async def fetch(self, group_id: str, member_id: str | None, subscribed: list[str] | None,
                    *, max_records: int, max_wait_ms: int, record_limit: bool,
                    acks: AckRequest, max_bytes: int = 8 * 1024 * 1024) -> FetchAnswer:
        if member_id is None:
            if subscribed is None:
                raise InvalidRequest("member_id is null: subscribed_topics is required to join")
            member, group = await self._join(group_id, None, subscribed)
        else:
            group, member = self._member(group_id, member_id)
            if subscribed is not None and subscribed != member.subscribed_topics:
                member.subscribed_topics = subscribed
            self._refresh(group, member)
        ack_errors: list[tuple[str, int, SluiceError]] = []
        if acks:
            for (t, p), err in (await self._acknowledge(group, member, acks)):
                if err is not None:
                    ack_errors.append((t, p, err))
        deadline = self.clock.monotonic() + max_wait_ms / 1000
        member.fetching += 1
        try:
            while True:
                await self._ensure_partitions(group, member)
                records, acquired, touched = self._acquire(group, member, max_records,
                                                           record_limit, max_bytes)
                if records or max_wait_ms <= 0 or self.stopping:
                    break
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0 or not touched or member.member_id not in group.members:
                    break
                await self._park(touched, remaining)
                if group.members.get(member.member_id) is not member:
                    raise NotFound(f"member {member.member_id!r} left share group "
                                   f"{group_id!r}", ErrorCode.UNKNOWN_MEMBER_ID)
        finally:
            member.fetching -= 1
            member.last_seen_ms = self.clock.now_ms()
        return FetchAnswer(member.member_id, records, acquired,
                           group.config.record_lock_duration_ms, ack_errors)

    async def _ensure_partitions(self, group: ShareGroup, member: Member) -> None:
        """Initialise the member's share partitions that the group never fetched from (start
        offset from ``auto_offset_reset``) and wait until that start is durable: a restart must
        not move it past records delivered meanwhile."""
        waiting = []
        for name, ps in member.assignment:
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting:
                continue
            for p in ps:
                if p < topic.partitions:
                    sp = self._share_partition(group, topic, p)
                    if not sp.persisted:
                        waiting.append(sp)
        if waiting:
            await asyncio.gather(*(self.writer.flush(sp) for sp in waiting))

    def _acquire(self, group: ShareGroup, member: Member, max_records: int, record_limit: bool,
                 max_bytes: int) -> tuple[list[FetchedRecord], list[tuple[str, int, int, int, int]],
                            list[SharePartition]]:
        keys = [(t, p) for t, ps in member.assignment for p in ps]
        if keys:
            r = member.rotation % len(keys)
            keys = keys[r:] + keys[:r]
            member.rotation += 1
        now = self.clock.now_ms()
        limits = group.config.limits
        records: list[FetchedRecord] = []
        acquired: list[tuple[str, int, int, int, int]] = []
        touched: list[SharePartition] = []
        for name, p in keys:
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            sp = self._share_partition(group, topic, p)
            touched.append(sp)
            if len(records) >= max_records or max_bytes <= 0 or not sp.persisted:
                continue
            lg = topic.log(p)
            start_before = sp.start_offset
            got = sp.acquire(member.member_id, max_records - len(records),
                             record_limit=record_limit, now=now, limits=limits,
                             read=self._reader(group, lg), bound=self._bound(group, lg),
                             log_start=lg.log_start_offset, max_bytes=max_bytes,
                             allow_oversize=not records)
            max_bytes -= got.bytes
            if sp.dirty or sp.start_offset != start_before:
                self.writer.mark(sp)
            records.extend(FetchedRecord(name, p, r, dc) for r, dc in got.records)
            acquired.extend((name, p, a, b, dc) for a, b, dc in got.ranges)
            self._wake_one(sp)  # pass remaining work on to the next waiting fetch
        return records, acquired, touched

    async def _park(self, partitions: list[SharePartition], timeout: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for sp in partitions:
            self._waiters.setdefault(sp, []).append(fut)
        try:
            await asyncio.wait([fut], timeout=timeout)
        finally:
            for sp in partitions:
                waiters = self._waiters.get(sp)
                if waiters and fut in waiters:
                    waiters.remove(fut)

    def _wake_one(self, sp: SharePartition) -> None:
        """Wake one fetch waiting on ``sp`` if a fetch could acquire something there now."""
        waiters = self._waiters.get(sp)
        if not waiters:
            return
        group = self.groups.get(sp.group_id)
        topic = self.topics.topics.get(sp.topic)
        if group is None or topic is None or topic.deleting:
            return
        lg = topic.log(sp.partition)
        if lg.log_start_offset <= sp.start_offset and not sp.has_work(
                self.clock.now_ms(), self._bound(group, lg),
                group.config.partition_max_record_locks):
            return
        while waiters:
            fut = waiters.pop(0)
            if not fut.done():
                fut.set_result(None)
                return

    def on_data(self, lg: PartitionLog) -> None:
        """New durable data in ``lg``: wake one waiting fetch per share partition on it."""
        for sp in self._by_log.get(lg, ()):
            self._wake_one(sp)

    # -- acknowledge --------------------------------------------------------------------------

    async def acknowledge(self, group_id: str, member_id: str, acks: AckRequest
                          ) -> list[tuple[PartitionKey, SluiceError | None]]:
        group, member = self._member(group_id, member_id)
        return await self._acknowledge(group, member, acks)

    async def _acknowledge(self, group: ShareGroup, member: Member, acks: AckRequest
                           ) -> list[tuple[PartitionKey, SluiceError | None]]:
        now = self.clock.now_ms()
        limits = group.config.limits
        results, done = _per_partition(group, acks, lambda sp, batches: sp.acknowledge(
            member.member_id, batches, now=now, limits=limits))
        staged = {key: s for key, _, s in done}
        if staged:
            outcomes = await asyncio.gather(*(self.writer.persist(s) for s in staged.values()),
                                            return_exceptions=True)
            for key, outcome in zip(staged, outcomes, strict=True):
                if isinstance(outcome, SluiceError):
                    results[key] = outcome
                elif isinstance(outcome, BaseException):
                    raise outcome
        return list(results.items())

    # -- transactional acknowledgements (AckParticipant) ---------------------------------------

    def check_txn_acks_member(self, group_id: str, member_id: str) -> None:
        self._member(group_id, member_id)

    async def stage_txn_acks(self, group_id: str, member_id: str, producer_id: int,
                             acks: Mapping[PartitionKey, list[AckBatch] | SluiceError]
                             ) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Hold the acknowledgements for the producer's transaction: validated per partition
        as plain ones, written durably, then the records stay ACQUIRED by the member with
        their lock suspended until ``end_txn_acks``."""
        group, member = self._member(group_id, member_id)
        now = self.clock.now_ms()
        limits = group.config.limits
        results, done = _per_partition(group, acks, lambda sp, batches: sp.hold_txn(
            member.member_id, batches, producer_id, now=now, limits=limits))
        holds = [held for _, _, (held, _) in done]
        rows = [((group_id, sp.topic_id, sp.partition),
                 HeldAckRow(h.first, h.last, h.producer_id, h.kind.value, h.delay_ms,
                            h.delivery_count, h.member))
                for _, sp, (_, hs) in done for h in hs]
        if rows:
            try:
                await self.store.hold_txn_acks(rows)
            except BaseException:
                for staged in holds:
                    self._rollback(staged)
                raise
            for staged in holds:
                staged.partition.complete_hold(staged)
        return list(results.items())

    async def end_txn_acks(self, group_id: str, producer_id: int, commit: bool) -> None:
        """Commit applies the producer's held acknowledgements, abort releases their records
        (delivery count unchanged); durable on return, and a no-op when nothing is held."""
        group = self.groups.get(group_id)
        now = self.clock.now_ms()
        pending = []
        if group is not None:
            for sp in list(group.partitions.values()):
                staged = sp.end_txn(producer_id, commit, now=now, limits=group.config.limits)
                if staged is not None:
                    pending.append(staged)
        outcomes = await asyncio.gather(*(self.writer.persist(s) for s in pending),
                                        return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        await self.store.forget_txn_acks(group_id, producer_id)

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

    def _dead_letter_topic(self, group_id: str) -> str | None:
        group = self.groups.get(group_id)
        return group.config.dead_letter_topic if group is not None else None

    def _limits_of(self, sp: SharePartition) -> Limits:
        group = self.groups.get(sp.group_id)
        return (group.config if group is not None
                else GroupConfig.effective({}, self.settings)).limits

    def _complete(self, staged: Staged) -> None:
        sp = staged.partition
        sp.complete(staged, self.clock.now_ms(), self._limits_of(sp))
        if not sp.retired:
            self._wake_one(sp)

    def _rollback(self, staged: Staged) -> None:
        sp = staged.partition
        if sp.rollback(staged, self.clock.now_ms(), self._limits_of(sp)) is not None:
            self.writer.mark(sp)

    # -- admin --------------------------------------------------------------------------------

    async def configure(self, group_id: str, changes: Any) -> ShareGroup:
        validate_name(group_id, "group")
        current = self.groups[group_id].explicit if group_id in self.groups else {}
        explicit = group_config.validate(changes, current, self.settings)
        dlq = explicit.get("dead_letter_topic")
        if dlq and dlq != current.get("dead_letter_topic") and dlq not in self.topics.topics:
            raise InvalidRequest(f"dead_letter_topic {dlq!r} does not exist",
                                 ErrorCode.INVALID_CONFIG)
        group = await self._group_for_join(group_id)
        await self.store.save_group(group_id, explicit, group.created_ms)
        group.explicit = explicit
        group.config = GroupConfig.effective(explicit, self.settings)
        return group

    def describe_partitions(self, group: ShareGroup) -> list[dict[str, Any]]:
        out = []
        for (name, p), sp in sorted(group.partitions.items()):
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or topic.topic_id != sp.topic_id:
                continue
            end = self._bound(group, topic.log(p))
            out.append({"topic": name, "partition": p, "start_offset": sp.start_offset,
                        "end_offset": sp.end_offset, **sp.counts(), "lag": sp.lag(end)})
        return out

    def record_views(self, group_id: str, topic_name: str, p: int, lo: int | None,
                     hi: int | None) -> tuple[int, int, list[RecordView]]:
        group = self.group(group_id)
        self.topics.get(topic_name).log(p)
        sp = group.partitions.get((topic_name, p))
        if sp is None:
            return -1, -1, []
        lo = sp.start_offset if lo is None else lo
        hi = sp.end_offset if hi is None else hi
        return sp.start_offset, sp.end_offset, sp.record_views(lo, hi)

    def _require_empty(self, group: ShareGroup) -> None:
        if group.members:
            raise Conflict(ErrorCode.NON_EMPTY_GROUP,
                           f"share group {group.group_id!r} has {len(group.members)} members")
        held = sum(sp.held_by() for sp in group.partitions.values())
        if held:  # transactional share acknowledgements: their transaction decides them first
            raise Conflict(ErrorCode.NON_EMPTY_GROUP,
                           f"share group {group.group_id!r} has {held} records held by open "
                           "transactions")

    async def reset_offsets(self, group_id: str, targets: list[tuple[str, list[int] | None,
                                                                     Any]],
                            dry_run: bool) -> list[tuple[str, list[tuple[int, int]]]]:
        """Move start offsets (empty groups only); discards in-flight state, bumps epochs."""
        group = self.group(group_id)
        self._require_empty(group)
        plan: list[tuple[Topic, list[tuple[int, int]]]] = []
        for name, partitions, to in targets:
            topic = self.topics.get(name)
            ps = list(range(topic.partitions)) if partitions is None else partitions
            moved = []
            for p in ps:
                lg = topic.log(p)
                moved.append((p, self._reset_target(group, lg, to)))
            plan.append((topic, moved))
        if not dry_run:
            self._require_empty(group)
            for topic, moved in plan:
                rows = []
                for p, start in moved:
                    old = group.partitions.get((topic.name, p))
                    epoch = old.state_epoch + 1 if old is not None else 1
                    rows.append((p, epoch, start))
                await self.store.replace(group_id, topic.topic_id, rows,
                                             self.clock.now_ms())
                for p, epoch, start in rows:
                    self._retire(group, (topic.name, p))
                    sp = SharePartition(group_id, topic.name, p, topic.topic_id, start,
                                        self.timers, state_epoch=epoch)
                    sp.persisted = True
                    self._register(group, sp, topic.log(p))
        return [(topic.name, moved) for topic, moved in plan]

    def _reset_target(self, group: ShareGroup, lg: PartitionLog, to: Any) -> int:
        if to in ("earliest", "latest"):
            return self._initial_offset(group, lg, str(to))
        if isinstance(to, dict) and len(to) == 1:
            (kind, value), = to.items()
            if (kind in ("timestamp", "offset") and isinstance(value, int)
                    and not isinstance(value, bool) and value >= 0):
                if kind == "timestamp":
                    found = lg.offset_for_timestamp(value, upto=self._bound(group, lg))
                    return found[0] if found is not None else self._bound(group, lg)
                if not lg.log_start_offset <= value <= lg.high_watermark:
                    raise Conflict(ErrorCode.OFFSET_OUT_OF_RANGE,
                                   f"offset {value} is outside [{lg.log_start_offset}, "
                                   f"{lg.high_watermark}]")
                return value
        raise InvalidRequest('to must be "earliest", "latest", {"timestamp": ms} or '
                             '{"offset": n}')

    async def delete_offsets(self, group_id: str, topic_name: str) -> None:
        group = self.group(group_id)
        self._require_empty(group)
        topic = self.topics.get(topic_name)
        await self.store.forget_topic(group_id, topic.topic_id)
        for key in [k for k in group.partitions if k[0] == topic_name]:
            self._retire(group, key)

    async def delete_group(self, group_id: str) -> None:
        group = self.group(group_id)
        self._require_empty(group)
        await self.store.delete_group(group_id)
        for key in list(group.partitions):
            self._retire(group, key)
        if self.groups.get(group_id) is group:
            del self.groups[group_id]

    def statistics(self) -> dict[str, Any]:
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


def _per_partition(group: ShareGroup,
                   acks: Mapping[PartitionKey, list[AckBatch] | SluiceError],
                   op: Callable[[SharePartition, list[AckBatch]], T | None]
                   ) -> tuple[dict[PartitionKey, SluiceError | None],
                              list[tuple[PartitionKey, SharePartition, T]]]:
    """``op`` on each acknowledged partition. A malformed range (parsed as an error), a
    partition nothing was fetched from, or ``op``'s own error is that partition's result;
    answers every result and the partitions where ``op`` staged something."""
    results: dict[PartitionKey, SluiceError | None] = {}
    done: list[tuple[PartitionKey, SharePartition, T]] = []
    for key, batches in acks.items():
        if isinstance(batches, SluiceError):
            results[key] = batches
            continue
        sp = group.partitions.get(key)
        if sp is None:
            results[key] = Conflict(ErrorCode.INVALID_RECORD_STATE,
                                    f"{key[0]}/{key[1]}: nothing was fetched here")
            continue
        try:
            got = op(sp, batches)
        except SluiceError as exc:
            results[key] = exc
            continue
        results[key] = None
        if got is not None:
            done.append((key, sp, got))
    return results, done


def check_topics(value: Any, where: str = "subscribed_topics") -> list[str] | None:
    """A list of topic names (or None when absent)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise InvalidRequest(f"{where}: expected a list of topic names")
    if len(value) > 10_000:
        raise TooLarge(ErrorCode.REQUEST_TOO_LARGE, f"{where}: too many topics")
    for t in value:
        validate_name(t)
    return list(dict.fromkeys(value))
