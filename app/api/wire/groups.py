"""Consumer-group bodies declared (heartbeat, offset commit), the rules of each beyond its
shape, and their answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from msgspec import Meta

from app.api.wire.body import (
    MAX_INT32,
    MAX_INT64,
    Body,
    MemberId,
    Name,
    Part,
    Partition,
    decode,
    given,
    is_,
    unset,
    when,
)
from app.api.wire.body import name as name_of
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.groups.coordinator import (
    OFFSET_METADATA_MAX_CHARS,
    HeartbeatAnswer,
    OffsetLag,
    by_topic,
)
from app.groups.group import Group, OffsetCommit
from app.groups.membership import HeartbeatRequest

MAX_SUBSCRIBED_TOPICS = 10_000


class OwnedPartitions(Part):
    topic: Name
    partitions: list[Partition]


class GroupHeartbeatRequest(Body, kw_only=True):
    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "member_id": None,
            "member_epoch": 0,
            "group_instance_id": None,
            "subscribed_topics": ["orders"],
            "rebalance_timeout_ms": 300_000,
        },
        {
            "member_id": "m-1",
            "member_epoch": 3,
            "owned_partitions": [{"topic": "orders", "partitions": [0, 1]}],
        },
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        when(is_("member_epoch", 0), given("subscribed_topics")),
        when({"not": is_("member_epoch", 0)}, given("member_id")),
        when(is_("member_epoch", -2), given("group_instance_id")),
    ]

    member_id: Annotated[MemberId, Meta(description="null to join and get an id issued")] | (
        None
    ) = None
    # required, and null is a wrong value rather than an absent one
    member_epoch: Annotated[
        int, Meta(ge=-2, le=MAX_INT32, description="0 joins, -1 leaves, -2 static temporary leave")
    ]
    group_instance_id: Name | None = None
    subscribed_topics: (
        Annotated[
            list[Name],
            Meta(
                max_length=MAX_SUBSCRIBED_TOPICS,
                description="required when joining; null keeps the current subscription",
            ),
        ]
        | None
    ) = None
    rebalance_timeout_ms: (
        Annotated[
            int,
            Meta(
                ge=1000,
                le=MAX_INT32,
                description="how long a revocation may take (default 300000)",
            ),
        ]
        | None
    ) = None
    owned_partitions: (
        Annotated[
            list[OwnedPartitions],
            Meta(description="optional: what the member still works on (confirms revocations)"),
        ]
        | None
    ) = None


class GroupOffsetCommit(Part):
    topic: Name
    partition: Partition
    offset: Annotated[int, Meta(ge=0, le=MAX_INT64)]
    metadata: Annotated[str, Meta(max_length=OFFSET_METADATA_MAX_CHARS)] | None = None


class OffsetCommitRequest(Body, kw_only=True):
    """POST /v1/groups/{g}/offsets."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "member_id": "m-1",
            "member_epoch": 3,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": None}],
        },
        {"offsets": [{"topic": "orders", "partition": 1, "offset": 0}]},
    ]
    rules: ClassVar[list[dict[str, Any]]] = [
        # a simple commit (no member) has epoch -1; a member's carries its epoch
        when(unset("member_id"), {"properties": {"member_epoch": {"const": -1}}}),
        when(given("member_id"), given("member_epoch")),
    ]

    member_id: MemberId | None = None
    member_epoch: Annotated[int, Meta(ge=-1, le=MAX_INT32)] | None = None
    offsets: Annotated[list[GroupOffsetCommit], Meta(min_length=1)]


@dataclass(frozen=True, slots=True)
class CommitRequest:
    """POST /v1/groups/{g}/offsets."""

    member_id: str | None
    member_epoch: int
    offsets: list[OffsetCommit]


def parse_heartbeat(raw: bytes, s: Settings) -> HeartbeatRequest:
    b = decode(raw, GroupHeartbeatRequest, s)
    owned = None
    if b.owned_partitions is not None:
        owned = frozenset((o.topic, p) for o in b.owned_partitions for p in o.partitions)
    return HeartbeatRequest(
        member_id=b.member_id,
        member_epoch=b.member_epoch,
        instance_id=b.group_instance_id,
        subscribed=b.subscribed_topics,
        rebalance_timeout_ms=b.rebalance_timeout_ms,
        owned=owned,
    )


def show_heartbeat(a: HeartbeatAnswer) -> dict[str, Any]:
    return {
        "member_id": a.member_id,
        "member_epoch": a.member_epoch,
        "heartbeat_interval_ms": a.heartbeat_interval_ms,
        "assignment": [{"topic": t, "partitions": ps} for t, ps in a.assignment],
    }


def parse_commit(raw: bytes, s: Settings) -> CommitRequest:
    b = decode(raw, OffsetCommitRequest, s)
    # a simple (member-less) commit has epoch -1 unless it says otherwise; a member's must
    # carry its epoch
    epoch = b.member_epoch
    if epoch is None:
        if b.member_id is not None:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "member_epoch is required with a member_id"
            )
        epoch = -1
    offsets = [OffsetCommit(o.topic, o.partition, o.offset, o.metadata) for o in b.offsets]
    return CommitRequest(b.member_id, epoch, offsets)


def show_commit(
    offsets: Sequence[OffsetCommit], errors: Sequence[SluiceError | None]
) -> dict[str, Any]:
    return {
        "offsets": [
            {
                "topic": o.topic,
                "partition": o.partition,
                "error": None if e is None else e.to_dict(),
            }
            for o, e in zip(offsets, errors, strict=True)
        ]
    }


def show_group_summary(g: Group) -> dict[str, Any]:
    return {
        "group_id": g.group_id,
        "state": g.state.value,
        "group_epoch": g.epoch,
        "members": len(g.members),
    }


def show_group(
    g: Group, offsets: list[OffsetLag], visible: Callable[[str], bool] = lambda _: True
) -> dict[str, Any]:
    """A group; its subscriptions, assignments and offsets of the topics ``visible`` lets the
    caller describe."""
    return {
        "group_id": g.group_id,
        "state": g.state.value,
        "group_epoch": g.epoch,
        "members": [
            {
                "member_id": m.member_id,
                "member_epoch": m.epoch,
                "group_instance_id": m.instance_id,
                "subscribed_topics": [t for t in m.subscribed if visible(t)],
                "assignment": [
                    {"topic": t, "partitions": ps} for t, ps in by_topic(m.assigned) if visible(t)
                ],
            }
            for m in sorted(g.members.values(), key=lambda m: m.member_id)
        ],
        "offsets": [
            {"topic": o.topic, "partition": o.partition, "offset": o.offset, "lag": o.lag}
            for o in offsets
            if visible(o.topic)
        ],
    }


def topic_filter(topic: str | None) -> str | None:
    """The ``topic`` query parameter of the offset endpoints: absent means every topic; an
    empty value is refused, not read as absent (a DELETE would remove every topic's offsets)."""
    return None if topic is None else name_of(topic, "topic")
