"""The seam's consumer groups (KIP-848 heartbeats): membership, offset commit and fetch,
description and deletion.

Used by ``app/api/routes/groups.py`` (every handler, through ``deps.engine_of``); the owner
check of transactional offsets is the transactions' (``Transactions.check_work``,
``add_offsets``), and the event feed reads groups through its ``FeedState``, not here.
Implemented by ``app.groups.coordinator.GroupCoordinator`` (``Broker.groups``); on Kafka by
ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch, ConsumerGroupDescribe, ListGroups,
ListOffsets (lag), OffsetDelete and DeleteGroups (docs/kafka.md, "Consumer groups").

Membership changes and commits are durable (one SQLite commit, or the group coordinator's
log on Kafka) before they return (docs/semantics.md#durability-order). Every method may raise
``INVALID_REQUEST`` for a group id that is not a valid name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from app.errors import SluiceError
from app.groups.coordinator import HeartbeatAnswer, OffsetLag, OffsetView
from app.groups.group import Group, OffsetCommit
from app.groups.state import TopicPartition


class Groups(Protocol):
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
        """Join (epoch 0), heartbeat, or leave (epoch -1 or -2); answers the member's epoch
        and target assignment. Raises ``UNKNOWN_MEMBER_ID`` (also another principal's
        member), ``FENCED_MEMBER_EPOCH``, ``FENCED_INSTANCE_ID``, ``UNRELEASED_INSTANCE_ID``,
        ``GROUP_MAX_SIZE_REACHED``."""
        ...

    async def commit_offsets(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        offsets: Sequence[OffsetCommit],
        principal: str | None,
    ) -> list[SluiceError | None]:
        """OffsetCommit: one error or None per offset, in request order (a simple commit
        without a member where the group is empty). Raises ``UNKNOWN_MEMBER_ID``,
        ``STALE_MEMBER_EPOCH`` for the whole request."""
        ...

    async def fetch_offsets(
        self, group_id: str, topic: str | None, require_stable: bool
    ) -> list[OffsetView]:
        """OffsetFetch (``require_stable``: ``PENDING_TRANSACTION`` per partition while a
        transaction's offsets are undecided). A group that does not exist has none."""
        ...

    async def delete_offsets(
        self, group_id: str, topic: str | None, check_topics: Callable[[Iterable[str]], None]
    ) -> None:
        """OffsetDelete of one topic, or of every topic the group has offsets of.
        ``check_topics`` is given the names of the topics whose offsets go, before any is
        deleted (it may be called more than once, each time with topics not given before),
        and raises to refuse them (the face's READ check: without a topic only the
        engine knows which they are). Raises ``GROUP_ID_NOT_FOUND``, ``NON_EMPTY_GROUP``."""
        ...

    async def all(self) -> list[Group]:
        """Every group, in the order ``GET /v1/groups`` lists them."""
        ...

    async def describe(self, group_id: str) -> tuple[Group, list[OffsetLag]]:
        """The group and its committed offsets with their lag. Raises
        ``GROUP_ID_NOT_FOUND``."""
        ...

    async def delete_group(self, group_id: str) -> None:
        """DeleteGroups. Raises ``GROUP_ID_NOT_FOUND``, ``NON_EMPTY_GROUP``."""
        ...
