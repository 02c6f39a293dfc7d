"""Consumer-group bodies (heartbeat, offset commit), validated by hand, and their answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.api.wire._fields import (
    MAX_INT32,
    MAX_INT64,
    array,
    integer,
    member_id,
    name,
    names,
    obj,
    optional,
    string,
)
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.groups.coordinator import (
    OFFSET_METADATA_MAX_CHARS,
    HeartbeatAnswer,
    OffsetLag,
    by_topic,
)
from app.groups.group import Group, OffsetCommit
from app.groups.membership import HeartbeatRequest
from app.groups.state import TopicPartition

MAX_SUBSCRIBED_TOPICS = 10_000


@dataclass(frozen=True, slots=True)
class CommitRequest:
    """POST /v1/groups/{g}/offsets."""

    member_id: str | None
    member_epoch: int
    offsets: list[OffsetCommit]


def _owned(value: Any) -> frozenset[TopicPartition] | None:
    if value is None:
        return None
    out: set[TopicPartition] = set()
    for i, item in enumerate(array(value, "owned_partitions")):
        where = f"owned_partitions[{i}]"
        item = obj(item, where, '{"topic", "partitions": [...]}')
        partitions = array(item.get("partitions"), f"{where}.partitions")
        topic = name(item.get("topic"), f"{where}.topic")
        out.update(
            (topic, integer(p, f"{where}.partitions[{j}]", 0, MAX_INT32))
            for j, p in enumerate(partitions)
        )
    return frozenset(out)


def parse_heartbeat(body: dict[str, Any]) -> HeartbeatRequest:
    # absent and null differ here: null is a wrong value, absent a missing field
    if "member_epoch" not in body:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "member_epoch is required")
    epoch = integer(body["member_epoch"], "member_epoch", -2, MAX_INT32)
    instance = optional(name, body.get("group_instance_id"), "group_instance_id")
    return HeartbeatRequest(
        member_id=optional(member_id, body.get("member_id")),
        member_epoch=epoch,
        instance_id=instance,
        subscribed=optional(
            names,
            body.get("subscribed_topics"),
            "subscribed_topics",
            max_items=MAX_SUBSCRIBED_TOPICS,
        ),
        rebalance_timeout_ms=optional(
            integer, body.get("rebalance_timeout_ms"), "rebalance_timeout_ms", 1000, MAX_INT32
        ),
        owned=_owned(body.get("owned_partitions")),
    )


def show_heartbeat(a: HeartbeatAnswer) -> dict[str, Any]:
    return {
        "member_id": a.member_id,
        "member_epoch": a.member_epoch,
        "heartbeat_interval_ms": a.heartbeat_interval_ms,
        "assignment": [{"topic": t, "partitions": ps} for t, ps in a.assignment],
    }


def parse_commit(body: dict[str, Any]) -> CommitRequest:
    member = optional(member_id, body.get("member_id"))
    # a simple (member-less) commit has epoch -1 unless it says otherwise; a member's must
    # carry its epoch
    raw_epoch = body.get("member_epoch")
    if raw_epoch is None and member is None:
        raw_epoch = -1
    if raw_epoch is None:
        raise InvalidRequest(ErrorCode.INVALID_REQUEST, "member_epoch is required with a member_id")
    epoch = integer(raw_epoch, "member_epoch", -1, MAX_INT32)
    offsets = []
    for i, item in enumerate(array(body.get("offsets"), "offsets", min_items=1)):
        where = f"offsets[{i}]"
        item = obj(item, where)
        offsets.append(
            OffsetCommit(
                name(item.get("topic"), f"{where}.topic"),
                integer(item.get("partition"), f"{where}.partition", 0, MAX_INT32),
                integer(item.get("offset"), f"{where}.offset", 0, MAX_INT64),
                optional(
                    string, item.get("metadata"), f"{where}.metadata", 0, OFFSET_METADATA_MAX_CHARS
                ),
            )
        )
    return CommitRequest(member, epoch, offsets)


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
    return None if topic is None else name(topic, "topic")
