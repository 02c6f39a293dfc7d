"""GroupCoordinator: heartbeat membership, offsets and admin of consumer groups (the groups'
side of transactions is ``app.groups.txn``).

Every change to a group runs under the group's lock: plan synchronously (membership on a
``Draft``, by ``app.groups.membership``), await the SQLite commit, then install. A failed write
installs nothing. Session timers live in memory only and restart when the server loads the
groups; they are read through the Clock, by the ``run_expiry`` loop and lazily by every request
that touches the group, so a member past its session is never answered as alive.

Offset commits carry a per-group commit sequence (persisted). Transactional offsets are staged
per producer with the sequence at staging; when the transaction commits they become committed
unless a plain commit of the same partition came after the staging
(docs/semantics.md#kip-447-offsets).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from app.clock import Clock
from app.config import Settings
from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound, SluiceError
from app.groups import membership
from app.groups.group import Committed, Draft, Group, OffsetCommit, OffsetKey
from app.groups.membership import HeartbeatRequest, owned_member, unknown_member
from app.groups.state import (
    JOIN_EPOCH,
    LEAVE_EPOCH,
    STATIC_LEAVE_EPOCH,
    GroupState,
    Member,
    MemberState,
    TopicPartition,
)
from app.metadata.groups import GroupStore, OffsetRow
from app.topics import TopicRegistry, validate_name

OFFSET_METADATA_MAX_CHARS = 4096


@dataclass(frozen=True, slots=True)
class HeartbeatAnswer:
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[tuple[str, list[int]]]


@dataclass(frozen=True, slots=True)
class OffsetLag:
    topic: str
    partition: int
    offset: int
    lag: int


@dataclass(frozen=True, slots=True)
class OffsetView:
    topic: str
    partition: int
    offset: int
    metadata: str | None
    error: SluiceError | None


def _group_not_found(group_id: str) -> NotFound:
    return NotFound(ErrorCode.GROUP_ID_NOT_FOUND, f"consumer group {group_id!r} does not exist")


def by_topic(tps: frozenset[TopicPartition]) -> list[tuple[str, list[int]]]:
    out: dict[str, list[int]] = {}
    for t, p in sorted(tps):
        out.setdefault(t, []).append(p)
    return list(out.items())


def check_heartbeat(
    member_id: str | None,
    member_epoch: int,
    instance_id: str | None,
    subscribed: Sequence[str] | None,
) -> None:
    """The fields a consumer-group heartbeat must carry together, whichever engine answers it
    (raises ``INVALID_REQUEST``)."""
    if member_epoch == STATIC_LEAVE_EPOCH and instance_id is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "member_epoch -2 (temporary leave) needs a group_instance_id",
        )
    if member_epoch != JOIN_EPOCH and member_id is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "member_id is required unless member_epoch is 0"
        )
    if member_epoch == JOIN_EPOCH and subscribed is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "subscribed_topics is required when joining (member_epoch 0)",
        )


class GroupCoordinator:
    def __init__(
        self, settings: Settings, clock: Clock, store: GroupStore, topics: TopicRegistry
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.store = store
        self.topics = topics
        self.groups: dict[str, Group] = {}

    # -- lifecycle ----------------------------------------------------------------------------

    async def load(self) -> None:
        """Load every group; session timers restart now."""
        live = {t.topic_id for t in self.topics.topics.values()}
        await self.store.forget_topics(live)
        now = self.clock.now_ms()
        session = self.settings.group_session_timeout_ms
        for loaded in await self.store.load_all():
            row = loaded.row
            g = Group(
                row.group_id,
                row.created_ms,
                row.group_epoch,
                row.target_epoch,
                dict(row.topics),
                commit_seq=row.commit_seq,
                persisted=True,
            )
            for r in loaded.members:
                m = Member(
                    r.member_id,
                    r.instance_id,
                    r.epoch,
                    r.previous_epoch,
                    MemberState(r.state),
                    r.subscribed,
                    r.rebalance_timeout_ms,
                    r.assigned,
                    r.revoking,
                    r.principal or None,  # '' is a server without keys
                )
                g.members[m.member_id] = m
                g.targets[m.member_id] = r.target
                g.session_deadlines[m.member_id] = now + session
                if m.revoking:
                    g.revoke_deadlines[m.member_id] = now + m.rebalance_timeout_ms
            for o in loaded.offsets:
                if o.topic_id in live:
                    g.offsets[OffsetKey(o.topic_id, o.partition)] = Committed(
                        o.offset, o.metadata, o.commit_seq
                    )
            for pid, rows in loaded.pending.items():
                g.pending[pid] = {
                    OffsetKey(o.topic_id, o.partition): Committed(
                        o.offset, o.metadata, o.commit_seq
                    )
                    for o in rows
                }
            g.refresh_state()
            self.groups[g.group_id] = g

    def expiry_period_s(self) -> float:
        return min(1000, self.settings.group_session_timeout_ms / 4) / 1000

    async def run_expiry(self) -> None:
        """Background loop (``Broker._spawn``): remove members whose session ran out."""
        while True:
            await asyncio.sleep(self.expiry_period_s())
            await self.expire_sessions()

    async def expire_sessions(self) -> int:
        """Remove every member past its session (or revocation) deadline; returns how many."""
        now = self.clock.now_ms()
        removed = 0
        for group_id in [g.group_id for g in self.groups.values() if g.expired(now)]:
            g = self.groups.get(group_id)
            if g is None:
                continue
            async with g.lock:
                if g.dead:
                    continue
                removed += await self._expire_locked(g)
        return removed

    # -- helpers ------------------------------------------------------------------------------

    def _check(self, group_id: str) -> None:
        """A valid group name (1-249 of [A-Za-z0-9._-])."""
        validate_name(group_id, "group")

    @asynccontextmanager
    async def locked(
        self, group_id: str, *, create: bool, missing: Callable[[], SluiceError] | None = None
    ) -> AsyncIterator[Group]:
        """The group under its lock; a missing group is created in memory when ``create``
        (it is forgotten again unless written), else ``missing()`` (GROUP_ID_NOT_FOUND) is
        raised."""
        while True:
            g = self.groups.get(group_id)
            if g is None:
                if not create:
                    raise missing() if missing else _group_not_found(group_id)
                g = Group(group_id, self.clock.now_ms())
                self.groups[group_id] = g
            async with g.lock:
                if g.dead:
                    continue
                try:
                    yield g
                finally:
                    if not g.persisted and self.groups.get(group_id) is g:
                        del self.groups[group_id]  # never written: it does not exist
                        g.dead = True
                return

    async def _expire_locked(self, g: Group) -> int:
        draft = Draft(g)
        membership.expire(draft, self.clock.now_ms())
        if not draft.removed:
            return 0
        membership.maybe_bump(draft, self._topic_meta)
        await self._persist(draft)
        return len(draft.removed)

    async def _persist(self, draft: Draft) -> None:
        change = draft.change()
        if change is not None:
            await self.store.save_membership(change, draft.group.created_ms)
            draft.group.persisted = True
        draft.install()

    def _topic_meta(self, name: str) -> tuple[int, int] | None:
        t = self.topics.topics.get(name)
        return None if t is None or t.deleting else (t.topic_id, t.partitions)

    def topic_key(self, topic: str, partition: int) -> OffsetKey:
        t = self.topics.get(topic)
        t.log(partition)  # raises UNKNOWN_TOPIC_OR_PARTITION
        return OffsetKey(t.topic_id, partition)

    def _topic_names(self) -> dict[int, str]:
        return {t.topic_id: t.name for t in self.topics.topics.values() if not t.deleting}

    # -- heartbeat ----------------------------------------------------------------------------

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        instance_id: str | None,
        subscribed: Sequence[str] | None,
        rebalance_timeout_ms: int | None,
        owned: frozenset[TopicPartition] | None,
        principal: str | None,
    ) -> HeartbeatAnswer:
        """ConsumerGroupHeartbeat. Epoch 0 joins, −1 leaves, −2 leaves a static member
        temporarily (it keeps its partitions until its session ends), > 0 heartbeats.

        ``owned`` (optional) is what the member still works on: when given, partitions it was
        told to revoke are released only once it no longer lists them; when absent, the
        heartbeat itself confirms that the member saw the previous answer.

        The member belongs to ``principal`` (docs/security.md#ownership).
        """
        self._check(group_id)
        check_heartbeat(member_id, member_epoch, instance_id, subscribed)
        if member_epoch != JOIN_EPOCH and group_id not in self.groups:
            raise unknown_member(group_id, member_id)
        async with self.locked(
            group_id,
            create=member_epoch == JOIN_EPOCH,
            missing=lambda: unknown_member(group_id, member_id),
        ) as g:
            await self._expire_locked(g)  # durable even if this heartbeat is refused
            now = self.clock.now_ms()
            draft = Draft(g)
            mid = membership.plan_heartbeat(
                draft,
                HeartbeatRequest(
                    member_id, member_epoch, instance_id, subscribed, rebalance_timeout_ms, owned
                ),
                principal=principal,
                max_size=self.settings.group_max_size,
                lookup=self._topic_meta,
            )
            leaving = member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH)
            await self._persist(draft)
            if leaving:
                g.revoke_deadlines.pop(mid, None)
                return HeartbeatAnswer(
                    mid, member_epoch, self.settings.group_heartbeat_interval_ms, []
                )
            g.session_deadlines[mid] = now + self.settings.group_session_timeout_ms
            m = g.members[mid]
            if m.revoking:
                g.revoke_deadlines.setdefault(mid, now + m.rebalance_timeout_ms)
            else:
                g.revoke_deadlines.pop(mid, None)
            return HeartbeatAnswer(
                mid, m.epoch, self.settings.group_heartbeat_interval_ms, by_topic(m.assigned)
            )

    def check_owner(self, group_id: str, member_id: str | None, principal: str | None) -> None:
        """Refuse (UNKNOWN_MEMBER_ID) a request that names another principal's member, as
        transactional offsets may (docs/security.md#ownership); an unknown member is left to
        the request's own checks."""
        g = self.groups.get(group_id)
        m = g.members.get(member_id) if g is not None and member_id is not None else None
        if m is not None and m.principal != principal:
            raise unknown_member(group_id, member_id)

    # -- offsets ------------------------------------------------------------------------------

    async def commit_offsets(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        offsets: Sequence[OffsetCommit],
        principal: str | None,
    ) -> list[SluiceError | None]:
        """OffsetCommit: one error (or None) per item, in order. Durable before it returns.
        A commit naming a member is ``principal``'s member's."""
        self._check(group_id)
        simple = member_id is None
        if simple and member_epoch != LEAVE_EPOCH:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "a commit without member_id must have member_epoch -1"
            )
        if group_id not in self.groups and member_epoch >= 0:
            raise unknown_member(group_id, member_id)
        async with self.locked(group_id, create=True) as g:
            await self._expire_locked(g)
            if simple:
                if g.members:
                    raise NotFound(
                        ErrorCode.UNKNOWN_MEMBER_ID,
                        f"group {group_id!r} has members: commit with a member id and epoch",
                    )
            elif not (member_epoch < 0 and not g.members):
                m = owned_member(g.members, group_id, member_id, principal)
                if member_epoch != m.epoch:
                    raise Conflict(
                        ErrorCode.STALE_MEMBER_EPOCH,
                        f"member epoch {member_epoch} is stale: the member's epoch is {m.epoch}",
                    )
            seq = g.commit_seq + 1
            errors: list[SluiceError | None] = []
            rows: dict[OffsetKey, OffsetRow] = {}
            for o in offsets:
                try:
                    key = self.topic_key(o.topic, o.partition)
                except SluiceError as exc:
                    errors.append(exc)
                    continue
                errors.append(None)
                rows[key] = OffsetRow(key.topic_id, key.partition, o.offset, o.metadata, seq)
            if rows:
                await self.store.commit_offsets(
                    group_id, seq, list(rows.values()), self.clock.now_ms()
                )
                g.persisted = True
                g.commit_seq = seq
                for key, row in rows.items():
                    g.offsets[key] = Committed(row.offset, row.metadata, seq)
            return errors

    async def fetch_offsets(
        self, group_id: str, topic: str | None, require_stable: bool
    ) -> list[OffsetView]:
        """OffsetFetch. With a topic: every partition of it (offset -1 when none committed).
        Without: every partition with a committed or pending offset. A group that does not
        exist has no offsets (as in Kafka), it is not an error. Answered from memory without
        awaiting (``async`` as the seam's, a request on Kafka)."""
        return self._fetch_offsets(group_id, topic, require_stable)

    def _fetch_offsets(
        self, group_id: str, topic: str | None, require_stable: bool
    ) -> list[OffsetView]:
        self._check(group_id)
        g = self.groups.get(group_id)
        names = self._topic_names()
        if topic is not None:
            t = self.topics.get(topic)
            keys = [OffsetKey(t.topic_id, p) for p in range(t.partitions)]
        elif g is None:
            keys = []
        else:
            found = set(g.offsets)
            for staged in g.pending.values():
                found |= set(staged)
            keys = sorted(
                (k for k in found if k.topic_id in names),
                key=lambda k: (names[k.topic_id], k.partition),
            )
        out = []
        for k in keys:
            c = g.offsets.get(k) if g is not None else None
            error = None
            if require_stable and g is not None and g.has_pending(k):
                error = SluiceError(
                    ErrorCode.PENDING_TRANSACTION,
                    "a transaction with offsets for this partition is pending",
                )
            out.append(
                OffsetView(
                    names[k.topic_id],
                    k.partition,
                    c.offset if c else -1,
                    c.metadata if c else None,
                    error,
                )
            )
        return out

    # -- admin --------------------------------------------------------------------------------

    async def all(self) -> list[Group]:
        """Every consumer group, sorted by id."""
        return self._sorted()

    def _sorted(self) -> list[Group]:
        return sorted(self.groups.values(), key=lambda g: g.group_id)

    async def describe(self, group_id: str) -> tuple[Group, list[OffsetLag]]:
        """The group and its committed offsets with their lag behind the high watermark."""
        self._check(group_id)
        g = self.groups.get(group_id)
        if g is None:
            raise _group_not_found(group_id)
        return g, self._lags(g, self._topic_names())

    def describe_all(self) -> list[tuple[Group, list[OffsetLag]]]:
        """Every live group, sorted by id, with its offsets as ``describe`` answers them."""
        names = self._topic_names()
        return [(g, self._lags(g, names)) for g in self._sorted() if not g.dead]

    def _lags(self, g: Group, names: dict[int, str]) -> list[OffsetLag]:
        lags = []
        for k, c in g.offsets.items():
            name = names.get(k.topic_id)
            if name is not None:
                hw = self.topics.get(name).log(k.partition).high_watermark
                lags.append(OffsetLag(name, k.partition, c.offset, max(0, hw - c.offset)))
        return sorted(lags, key=lambda o: (o.topic, o.partition))

    async def delete_group(self, group_id: str) -> None:
        self._check(group_id)
        async with self.locked(group_id, create=False) as g:
            await self._expire_locked(g)
            self._check_deletable(g)
            if g.pending:
                raise Conflict(
                    ErrorCode.PENDING_TRANSACTION,
                    f"group {group_id!r} has offsets in an undecided transaction; "
                    "retry once it ends",
                )
            await self.store.delete_group(group_id)
            g.kill()
            del self.groups[group_id]

    async def delete_offsets(
        self, group_id: str, topic: str | None, check_topics: Callable[[Iterable[str]], None]
    ) -> None:
        """OffsetDelete of one topic, or of every topic the group has offsets of.
        ``check_topics`` (the caller's READ check) is given the topics whose offsets go, by
        name, and raises to refuse them; it comes before the group is judged (without a topic,
        once the group's id is known valid, since the topics are looked up in the group, and
        again, once the group's lock is held, for any topic added while the delete waited)."""
        checked: set[str] = set()
        if topic is not None:
            check_topics((topic,))
        else:
            checked = {v.topic for v in self._fetch_offsets(group_id, None, False)}
            check_topics(sorted(checked))
        self._check(group_id)
        async with self.locked(group_id, create=False) as g:
            await self._expire_locked(g)
            if topic is None:
                # waiting for the lock, a memberless commit or a transaction's offsets may have
                # added a topic the check above never saw; nothing awaits from here to the
                # delete, so these are the topics whose offsets go
                added = self._held_topics(g) - checked
                if added:
                    check_topics(sorted(added))
            self._check_deletable(g)
            if topic is None:
                topic_ids = None
                doomed = list(g.offsets)
                pending = any(g.pending.values())
            else:
                tid = self.topics.get(topic).topic_id
                topic_ids = [tid]
                doomed = [k for k in g.offsets if k.topic_id == tid]
                pending = any(k.topic_id == tid for staged in g.pending.values() for k in staged)
            if pending:
                raise Conflict(
                    ErrorCode.PENDING_TRANSACTION,
                    "these offsets have an undecided transactional commit; retry "
                    "once the transaction ends",
                )
            await self.store.delete_offsets(group_id, topic_ids)
            for k in doomed:
                del g.offsets[k]

    def _held_topics(self, g: Group) -> set[str]:
        """The names of the topics ``g`` has offsets of, committed or staged by a transaction
        (as ``fetch_offsets`` without a topic answers them)."""
        names = self._topic_names()
        keys = set(g.offsets)
        for staged in g.pending.values():
            keys |= set(staged)
        return {names[k.topic_id] for k in keys if k.topic_id in names}

    @staticmethod
    def _check_deletable(g: Group) -> None:
        if g.members:
            raise Conflict(
                ErrorCode.NON_EMPTY_GROUP, f"group {g.group_id!r} has {len(g.members)} members"
            )

    def statistics(self) -> dict[str, Any]:
        states = {s.value: 0 for s in GroupState if s is not GroupState.DEAD}
        for g in self.groups.values():
            states[g.state.value] += 1
        return {
            "groups": len(self.groups),
            "by_state": states,
            "members": sum(len(g.members) for g in self.groups.values()),
            "pending_transactions": sum(len(g.pending) for g in self.groups.values()),
        }
