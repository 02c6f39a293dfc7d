"""Share-group administration: config, descriptions, per-record views, offset resets and
deletions.

Resets and deletions need an empty group: no members, no records held by an open
transaction (that transaction decides them first), and no records held by an acquisition
(its driver acknowledges them, or their locks expire). A reset starts the share partitions over at
the new start offsets with a new state epoch, so that a state write staged before it is fenced
(``ShareStore``).
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound
from app.share import group_config
from app.share.acquisitions import is_acquisition
from app.share.coordinator import ShareGroupCoordinator
from app.share.group_config import GroupConfig
from app.share.membership import ShareGroup, ShareGroupState
from app.share.partition import RecordView, SharePartition
from app.storage.log import PartitionLog
from app.topics import Topic, validate_name


class ResetKind(enum.Enum):
    EARLIEST = "earliest"
    LATEST = "latest"
    TIMESTAMP = "timestamp"  # the first offset at or after a timestamp (ms)
    OFFSET = "offset"


@dataclass(frozen=True, slots=True)
class ResetTarget:
    """Where a reset moves the start offset; ``value`` is the timestamp or the offset."""

    kind: ResetKind
    value: int = 0


@dataclass(frozen=True, slots=True)
class TopicReset:
    """The partitions of one topic to reset (None: all of them). A target the request
    spelled wrong is its error, raised when the reset reaches it."""

    topic: str
    partitions: list[int] | None
    to: ResetTarget | InvalidRequest


@dataclass(frozen=True, slots=True)
class PartitionSummary:
    topic: str
    partition: int
    start_offset: int
    end_offset: int | None  # None: not known (the Kafka backend, docs/kafka.md)
    counts: Mapping[str, int | None]  # records per state label (None: not known, as end_offset)
    lag: int | None


@dataclass(frozen=True, slots=True)
class ShareGroupListing:
    """A share group as ``GET /v1/share-groups`` lists it."""

    group_id: str
    state: ShareGroupState
    members: int


def summary(sp: SharePartition, end: int) -> PartitionSummary:
    """``sp``'s window, counts by state and lag up to ``end`` (the partition end it reads to)."""
    return PartitionSummary(
        sp.topic, sp.partition, sp.start_offset, sp.end_offset, sp.counts(), sp.lag(end)
    )


class ShareGroupAdmin:
    def __init__(self, coordinator: ShareGroupCoordinator) -> None:
        self.share = coordinator
        self.settings = coordinator.settings
        self.topics = coordinator.topics
        self.membership = coordinator.membership
        self.store = coordinator.store

    async def configure(self, group_id: str, changes: dict[str, object]) -> ShareGroup:
        """Apply config ``changes`` (null: back to the default), creating the group."""
        validate_name(group_id, "group")
        groups = self.membership.groups
        current = groups[group_id].explicit if group_id in groups else {}
        explicit = group_config.validate(changes, current, self.settings)
        dlq = explicit.get("dead_letter_topic")
        if (
            isinstance(dlq, str)
            and dlq
            and dlq != current.get("dead_letter_topic")
            and dlq not in self.topics.topics
        ):
            # the config is well formed; the topic it names is missing (create it first)
            raise NotFound(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"dead_letter_topic {dlq!r} does not exist"
            )
        group = await self.membership.group_for_join(group_id)
        await self.store.save_group(group_id, explicit, group.created_ms)
        group.explicit = explicit
        group.config = GroupConfig.effective(explicit, self.settings)
        return group

    def live_partitions(self, group: ShareGroup) -> Iterator[tuple[SharePartition, int]]:
        """The group's share partitions of live topics, by topic and partition, each with the
        partition end the group may read to (its lag counts up to there)."""
        for (name, p), sp in sorted(group.partitions.items()):
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or topic.topic_id != sp.topic_id:
                continue
            yield sp, self.share.bound(group, topic.log(p))

    async def list(self) -> builtins.list[ShareGroupListing]:
        """Every share group, by id (answered from memory, without awaiting)."""
        return [
            ShareGroupListing(g.group_id, g.state, len(g.members))
            for g in sorted(self.membership.groups.values(), key=lambda g: g.group_id)
        ]

    async def describe(self, group_id: str) -> tuple[ShareGroup, builtins.list[PartitionSummary]]:
        """The group and its share partitions of live topics (answered from memory, without
        awaiting, so the two are of one moment)."""
        group = self.membership.group(group_id)
        return group, [summary(sp, end) for sp, end in self.live_partitions(group)]

    async def record_views(
        self, group_id: str, topic_name: str, p: int, lo: int | None, hi: int | None, limit: int
    ) -> tuple[int, int, builtins.list[RecordView]]:
        """At most ``limit`` records, from at most ``limit`` offsets when both ends are given
        (answered from memory, without awaiting)."""
        if lo is not None and hi is not None:
            hi = min(hi, lo + limit)
        group = self.membership.group(group_id)
        self.topics.get(topic_name).log(p)
        sp = group.partitions.get((topic_name, p))
        if sp is None:
            return -1, -1, []
        lo = sp.start_offset if lo is None else lo
        hi = sp.end_offset if hi is None else hi
        return sp.start_offset, sp.end_offset, sp.record_views(lo, hi)[:limit]

    def _require_empty(self, group: ShareGroup) -> None:
        if group.members:
            raise Conflict(
                ErrorCode.NON_EMPTY_GROUP,
                f"share group {group.group_id!r} has {len(group.members)} members",
            )
        held = sum(sp.held_by() for sp in group.partitions.values())
        if held:  # transactional share acknowledgements: their transaction decides them first
            raise Conflict(
                ErrorCode.NON_EMPTY_GROUP,
                f"share group {group.group_id!r} has {held} records held by open transactions",
            )
        now = self.share.clock.now_ms()
        acquired = sum(sp.acquired_by(is_acquisition, now) for sp in group.partitions.values())
        if acquired:  # docs/semantics.md#share-acquisitions-by-id
            raise Conflict(
                ErrorCode.NON_EMPTY_GROUP,
                f"share group {group.group_id!r} has {acquired} records held by acquisitions",
            )

    async def reset_offsets(
        self, group_id: str, targets: builtins.list[TopicReset], dry_run: bool
    ) -> builtins.list[tuple[str, builtins.list[tuple[int, int]]]]:
        """Move start offsets (empty groups only); discards in-flight state, bumps epochs."""
        group = self.membership.group(group_id)
        self._require_empty(group)
        plan: builtins.list[tuple[Topic, builtins.list[tuple[int, int]]]] = []
        for target in targets:
            topic = self.topics.get(target.topic)
            ps = list(range(topic.partitions)) if target.partitions is None else target.partitions
            moved = []
            for p in ps:
                lg = topic.log(p)
                moved.append((p, self._reset_target(group, lg, target.to)))
            plan.append((topic, moved))
        if not dry_run:
            self._require_empty(group)
            for topic, moved in plan:
                rows = []
                for p, start in moved:
                    old = group.partitions.get((topic.name, p))
                    epoch = old.state_epoch + 1 if old is not None else 1
                    rows.append((p, epoch, start))
                await self.store.replace(group_id, topic.topic_id, rows, self.share.clock.now_ms())
                for p, epoch, start in rows:
                    self.share.retire(group, (topic.name, p))
                    sp = SharePartition(
                        group_id,
                        topic.name,
                        p,
                        topic.topic_id,
                        start,
                        self.share.timers,
                        state_epoch=epoch,
                    )
                    sp.persisted = True
                    self.share.register(group, sp, topic.log(p))
        return [(topic.name, moved) for topic, moved in plan]

    def _reset_target(
        self, group: ShareGroup, lg: PartitionLog, to: ResetTarget | InvalidRequest
    ) -> int:
        if isinstance(to, InvalidRequest):
            raise to
        if to.kind is ResetKind.EARLIEST or to.kind is ResetKind.LATEST:
            return self.share.initial_offset(group, lg, to.kind.value)
        if to.kind is ResetKind.TIMESTAMP:
            found = lg.offset_for_timestamp(to.value, upto=self.share.bound(group, lg))
            return found[0] if found is not None else self.share.bound(group, lg)
        if not lg.log_start_offset <= to.value <= lg.high_watermark:
            raise Conflict(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"offset {to.value} is outside [{lg.log_start_offset}, {lg.high_watermark}]",
            )
        return to.value

    async def delete_offsets(self, group_id: str, topic_name: str) -> None:
        group = self.membership.group(group_id)
        self._require_empty(group)
        topic = self.topics.get(topic_name)
        await self.store.forget_topic(group_id, topic.topic_id)
        for key in [k for k in group.partitions if k[0] == topic_name]:
            self.share.retire(group, key)

    async def delete_group(self, group_id: str) -> None:
        group = self.membership.group(group_id)
        self._require_empty(group)
        await self.store.delete_group(group_id)
        for key in list(group.partitions):
            self.share.retire(group, key)
        if self.membership.groups.get(group_id) is group:
            del self.membership.groups[group_id]
