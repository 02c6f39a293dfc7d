"""Share groups and their members: join, heartbeat, leave and the session sweep.

A share group is ``Empty`` without members and ``Stable`` with some (share groups assign every
partition of every subscribed topic to every member, so there is no rebalance to wait for). Its
epoch moves by one whenever a member joins or goes, and when a member's assignment changes (the
member then takes the new epoch): ``ShareGroup._bump_epoch`` is the one place that moves it.

Members live in memory only; a group and its config are durable (``ShareStore``) from the first
join or config change on. A member belongs to the principal that joined it
(docs/security.md#ownership): every lookup by member id names the caller's principal, and a
member of another principal is answered as unknown. A member that leaves has its acquired
records released (delivery count lowered by one), answered once that is durable; a member the
session sweep removes keeps its records locked until their locks expire.
"""

from __future__ import annotations

import asyncio
import enum
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from app.clock import Clock
from app.config import Settings
from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound, SluiceError
from app.metadata.share_store import ShareStore
from app.share.group_config import GroupConfig
from app.share.partition import AckBatch, SharePartition
from app.share.writer import StateWriter
from app.topics import TopicRegistry, validate_name

T = TypeVar("T")

PartitionKey = tuple[str, int]
Assignment = list[tuple[str, list[int]]]

RESERVED_MEMBER_PREFIX = "acquisition:"
"""No member id starts with this: the owner of records acquired by an acquisition id is the id
behind it (docs/semantics.md#share-acquisitions-by-id), so no member can pass for one."""


class ShareGroupState(enum.Enum):
    """States as the API answers them (Kafka's share group states, without Dead)."""

    EMPTY = "Empty"
    STABLE = "Stable"


@dataclass(slots=True)
class Member:
    member_id: str
    member_epoch: int
    subscribed_topics: list[str]
    last_seen_ms: int
    principal: str | None  # who joined it (None: a server without keys)
    assignment: Assignment = field(default_factory=list)
    previous_epoch: int = -1
    rotation: int = 0
    fetching: int = 0  # long polls in progress: the member is alive while it waits
    pushed: bool = False  # a WebSocket push session consumes as this member


@dataclass(slots=True)
class ShareGroup:
    group_id: str
    explicit: dict[str, object]  # the config keys set on the group
    config: GroupConfig
    created_ms: int
    members: dict[str, Member] = field(default_factory=dict)
    group_epoch: int = 0
    partitions: dict[PartitionKey, SharePartition] = field(default_factory=dict)
    saved: asyncio.Future[None] | None = None  # the group's row is being written

    @property
    def state(self) -> ShareGroupState:
        return ShareGroupState.STABLE if self.members else ShareGroupState.EMPTY

    def _bump_epoch(self) -> int:
        self.group_epoch += 1
        return self.group_epoch

    def add_member(
        self, member_id: str, subscribed: list[str], now_ms: int, principal: str | None
    ) -> Member:
        member = Member(member_id, self._bump_epoch(), subscribed, now_ms, principal)
        self.members[member_id] = member
        return member

    def remove_member(self, member_id: str) -> None:
        del self.members[member_id]
        self._bump_epoch()

    def per_partition(
        self,
        acks: Mapping[PartitionKey, list[AckBatch] | SluiceError],
        op: Callable[[SharePartition, list[AckBatch]], T | None],
    ) -> tuple[
        dict[PartitionKey, SluiceError | None], list[tuple[PartitionKey, SharePartition, T]]
    ]:
        """``op`` on each acknowledged partition. A malformed range (parsed as an error), a
        partition nothing was fetched from, or ``op``'s own error is that partition's result;
        answers every result and the partitions where ``op`` staged something."""
        results: dict[PartitionKey, SluiceError | None] = {}
        done: list[tuple[PartitionKey, SharePartition, T]] = []
        for key, batches in acks.items():
            if isinstance(batches, SluiceError):
                results[key] = batches
                continue
            sp = self.partitions.get(key)
            if sp is None:
                results[key] = Conflict(
                    ErrorCode.INVALID_RECORD_STATE, f"{key[0]}/{key[1]}: nothing was fetched here"
                )
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

    def assign(self, member: Member, assignment: Assignment) -> None:
        """A changed assignment moves the member to a new epoch (the previous one stays valid
        for requests already under way)."""
        if assignment != member.assignment:
            member.previous_epoch = member.member_epoch
            member.member_epoch = self._bump_epoch()
            member.assignment = assignment


def _unknown(group_id: str, member_id: str) -> NotFound:
    return NotFound(
        ErrorCode.UNKNOWN_MEMBER_ID, f"member {member_id!r} is not in share group {group_id!r}"
    )


class Membership:
    """The share groups of the server and their members (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        topics: TopicRegistry,
        store: ShareStore,
        writer: StateWriter,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.topics = topics
        self.store = store
        self.writer = writer
        self.groups: dict[str, ShareGroup] = {}

    def new_group(self, group_id: str, explicit: dict[str, object], created_ms: int) -> ShareGroup:
        return ShareGroup(
            group_id, explicit, GroupConfig.effective(explicit, self.settings), created_ms
        )

    def group(self, group_id: str) -> ShareGroup:
        group = self.groups.get(group_id)
        if group is None:
            raise NotFound(ErrorCode.GROUP_ID_NOT_FOUND, f"share group {group_id!r} does not exist")
        return group

    async def group_for_join(self, group_id: str) -> ShareGroup:
        """The group, created (durably) when it does not exist yet."""
        validate_name(group_id, "group")
        group = self.groups.get(group_id)
        if group is None:
            group = self.new_group(group_id, {}, self.clock.now_ms())
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

    def member(
        self, group_id: str, member_id: str, principal: str | None
    ) -> tuple[ShareGroup, Member]:
        """The group and its member, seen alive now; a member of another principal is
        unknown."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if group is None or member is None or member.principal != principal:
            # another principal's request keeps nobody alive
            raise _unknown(group_id, member_id)
        member.last_seen_ms = self.clock.now_ms()
        return group, member

    def any_member(self, group_id: str, member_id: str) -> tuple[ShareGroup, Member]:
        """``member`` whoever its principal: for a transaction's acknowledgements, whose
        request checked the member's owner (``check_owner``) when it named the member."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if group is None or member is None:
            raise _unknown(group_id, member_id)
        return self.member(group_id, member_id, member.principal)

    def check_owner(self, group_id: str, member_id: str, principal: str | None) -> None:
        """Refuse (UNKNOWN_MEMBER_ID) a request that names another principal's member, as
        transactional acknowledgements may; an unknown member is left to the request's own
        checks."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        if member is not None and member.principal != principal:
            raise _unknown(group_id, member_id)

    async def subscription(self, group_id: str, member_id: str, principal: str | None) -> list[str]:
        """The topics a member of ``principal`` subscribed to (none for an unknown member);
        answered from memory, without awaiting."""
        group = self.groups.get(group_id)
        member = group.members.get(member_id) if group is not None else None
        return member.subscribed_topics if member and member.principal == principal else []

    def _assignment(self, member: Member) -> Assignment:
        """Every partition of every subscribed topic (share groups allow that)."""
        return self.assignment_of(member.subscribed_topics)

    def assignment_of(self, topics: list[str]) -> Assignment:
        """Every partition of each of ``topics`` that exists and is not being deleted."""
        out = []
        for name in topics:
            topic = self.topics.topics.get(name)
            if topic is not None and not topic.deleting:
                out.append((name, list(range(topic.partitions))))
        return out

    def refresh(
        self, group: ShareGroup, member: Member, subscribed: list[str] | None = None
    ) -> None:
        """Take a new subscription (if any) and the current topics into the assignment."""
        if subscribed is not None and subscribed != member.subscribed_topics:
            member.subscribed_topics = subscribed
        group.assign(member, self._assignment(member))

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        subscribed: list[str] | None,
        principal: str | None,
    ) -> tuple[Member, ShareGroup]:
        if member_epoch == 0:
            if subscribed is None:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    "subscribed_topics is required to join (member_epoch 0)",
                )
            return await self.join(group_id, member_id, subscribed, principal)
        if member_id is None:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "member_id is required unless member_epoch is 0"
            )
        if member_epoch == -1:
            group, member = self.member(group_id, member_id, principal)
            await self.leave(group_id, member_id, principal)
            member.member_epoch = -1
            member.assignment = []
            return member, group
        if member_epoch < -1:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                "member_epoch must be 0 (join), -1 (leave) or the current one",
            )
        group, member = self.member(group_id, member_id, principal)
        if member_epoch not in (member.member_epoch, member.previous_epoch):
            raise Conflict(
                ErrorCode.FENCED_MEMBER_EPOCH,
                f"member epoch {member_epoch} is fenced (current "
                f"{member.member_epoch}); rejoin with member_epoch 0",
            )
        self.refresh(group, member, subscribed)
        return member, group

    async def join(
        self, group_id: str, member_id: str | None, subscribed: list[str], principal: str | None
    ) -> tuple[Member, ShareGroup]:
        """Join (or rejoin, with the id of a member of the same principal)."""
        if member_id is not None and member_id.startswith(RESERVED_MEMBER_PREFIX):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"member_id: ids starting with {RESERVED_MEMBER_PREFIX!r} are reserved "
                "(they name acquisitions)",
            )
        group = await self.group_for_join(group_id)
        now = self.clock.now_ms()
        member = group.members.get(member_id) if member_id is not None else None
        if member is not None and member.principal != principal:
            # another principal's member is never taken over (nor named as such)
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"member_id {member_id!r} is in use in share group {group_id!r}; choose another",
            )
        if member is None:
            if len(group.members) >= self.settings.share_max_group_size:
                raise SluiceError(
                    ErrorCode.GROUP_MAX_SIZE_REACHED,
                    f"share group {group_id!r} is full ({self.settings.share_max_group_size} "
                    "members at most)",
                )
            member = group.add_member(member_id or uuid.uuid4().hex, subscribed, now, principal)
        member.subscribed_topics = subscribed
        member.last_seen_ms = now
        member.assignment = []
        self.refresh(group, member)
        return member, group

    async def leave(self, group_id: str, member_id: str, principal: str | None) -> None:
        """The member leaves: its acquired records are released with their delivery count
        lowered by one (docs/semantics.md#share-members-and-leaving); answered once that is
        durable."""
        group, _ = self.member(group_id, member_id, principal)
        group.remove_member(member_id)
        pending = [
            staged
            for sp in list(group.partitions.values())
            if (staged := sp.release_member(member_id)) is not None
        ]
        await asyncio.gather(*(self.writer.persist(s) for s in pending))

    def sweep_sessions(self) -> int:
        """Remove members silent for the session timeout; their records keep their locks."""
        now = self.clock.now_ms()
        limit = self.settings.share_session_timeout_ms
        removed = 0
        for group in self.groups.values():
            for mid in [
                m.member_id
                for m in group.members.values()
                if now - m.last_seen_ms >= limit and not m.fetching
            ]:
                group.remove_member(mid)
                removed += 1
        return removed

    async def run_sessions(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.share_session_timeout_ms / 4000, 1.0))
            self.sweep_sessions()
