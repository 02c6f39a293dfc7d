"""One consumer group in memory: membership, committed and pending offsets, session timers.

Membership changes are planned on a ``Draft`` (a copy of what they touch), made durable, then
installed with ``Draft.install``: an error or a failed write before that leaves the group as
it was.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import NamedTuple

from app.groups.state import (
    VALID_PREVIOUS,
    GroupState,
    Member,
    TopicPartition,
    derive_group_state,
)
from app.metadata.groups import MemberRow, MembershipChange
from app.states import validate_transition


class OffsetKey(NamedTuple):
    topic_id: int
    partition: int


@dataclass(frozen=True, slots=True)
class OffsetCommit:
    """One partition's offset to commit, as a request names it (plain or transactional)."""

    topic: str
    partition: int
    offset: int
    metadata: str | None = None


@dataclass(frozen=True, slots=True)
class Committed:
    offset: int
    metadata: str | None
    seq: int


@dataclass(slots=True)
class Group:
    group_id: str
    created_ms: int
    epoch: int = 0
    target_epoch: int = 0
    topics: dict[str, tuple[int, int]] = field(default_factory=dict)
    members: dict[str, Member] = field(default_factory=dict)
    targets: dict[str, frozenset[TopicPartition]] = field(default_factory=dict)
    session_deadlines: dict[str, int] = field(default_factory=dict)
    revoke_deadlines: dict[str, int] = field(default_factory=dict)
    commit_seq: int = 0
    offsets: dict[OffsetKey, Committed] = field(default_factory=dict)
    pending: dict[int, dict[OffsetKey, Committed]] = field(default_factory=dict)
    state: GroupState = GroupState.EMPTY
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    persisted: bool = False
    dead: bool = False

    def has_pending(self, key: OffsetKey) -> bool:
        return any(key in staged for staged in self.pending.values())

    def refresh_state(self) -> None:
        new = derive_group_state(self.members, self.epoch, self.target_epoch)
        validate_transition(VALID_PREVIOUS, self.state, new)
        self.state = new

    def kill(self) -> None:
        validate_transition(VALID_PREVIOUS, self.state, GroupState.DEAD)
        self.state = GroupState.DEAD
        self.dead = True

    def expired(self, now_ms: int) -> list[str]:
        """Members whose session ran out, or who did not finish a revocation in time."""
        out = {m for m, d in self.session_deadlines.items() if d <= now_ms}
        out |= {m for m, d in self.revoke_deadlines.items() if d <= now_ms}
        return sorted(out & set(self.members))


class Draft:
    """A membership change in the making; ``change()`` is what to persist."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.epoch = group.epoch
        self.target_epoch = group.target_epoch
        self.topics = dict(group.topics)
        self.members = dict(group.members)
        self.targets = dict(group.targets)
        self.touched: set[str] = set()
        self.removed: set[str] = set()
        self.membership_changed = False

    def put(self, member: Member) -> None:
        if self.members.get(member.member_id) != member:
            self.members[member.member_id] = member
            self.touched.add(member.member_id)
        self.removed.discard(member.member_id)

    def remove(self, member_id: str) -> None:
        if self.members.pop(member_id, None) is not None:
            self.targets.pop(member_id, None)
            self.touched.discard(member_id)
            self.removed.add(member_id)
            self.membership_changed = True

    def set_target(self, member_id: str, target: frozenset[TopicPartition]) -> None:
        if self.targets.get(member_id) != target:
            self.targets[member_id] = target
            self.touched.add(member_id)

    def owned_by_others(self, member_id: str) -> frozenset[TopicPartition]:
        out: set[TopicPartition] = set()
        for mid, m in self.members.items():
            if mid != member_id:
                out |= m.owned
        return frozenset(out)

    def change(self) -> MembershipChange | None:
        g = self.group
        if (
            not self.touched
            and not self.removed
            and self.epoch == g.epoch
            and self.target_epoch == g.target_epoch
            and self.topics == g.topics
            and g.persisted
        ):
            return None
        rows = []
        for mid in sorted(self.touched):
            m = self.members[mid]
            rows.append(
                MemberRow(
                    m.member_id,
                    m.instance_id,
                    m.epoch,
                    m.previous_epoch,
                    m.state.value,
                    m.subscribed,
                    m.rebalance_timeout_ms,
                    m.assigned,
                    m.revoking,
                    self.targets.get(mid, frozenset()),
                    m.principal or "",
                )
            )
        return MembershipChange(
            g.group_id, self.epoch, self.target_epoch, self.topics, rows, sorted(self.removed)
        )

    def install(self) -> None:
        g = self.group
        g.epoch, g.target_epoch, g.topics = self.epoch, self.target_epoch, self.topics
        g.members, g.targets = self.members, self.targets
        for mid in self.removed:
            g.session_deadlines.pop(mid, None)
            g.revoke_deadlines.pop(mid, None)
        g.refresh_state()
