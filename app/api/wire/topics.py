"""Topic bodies (create, patch, delete-records), validated by hand, and topic descriptions.

The field types are checked here. The rules on values (name shape, partition bounds, config
keys and bounds) belong to ``app.topics`` and are called from here as well, field by field in
the order they were always checked (name, partitions, config), so that a body with several
faults is refused for the first one. What needs the topic itself (does it exist, would the
partition count shrink) is the registry's, checked after the body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.api.wire._fields import MAX_INT32, array, integer, name, obj, optional
from app.engine.topics import TopicView
from app.errors import ErrorCode
from app.topics import check_partitions, effective_config, validate_config


@dataclass(frozen=True, slots=True)
class NewTopic:
    """POST /v1/topics."""

    name: str
    partitions: int
    config: dict[str, int]


@dataclass(frozen=True, slots=True)
class TopicChange:
    """PATCH /v1/topics/{topic}: None leaves a part as it is."""

    partitions: int | None
    config: dict[str, int | None] | None


def _partitions(value: Any, max_partitions: int) -> int:
    n = integer(value, "partitions", code=ErrorCode.INVALID_PARTITIONS)
    return check_partitions(n, max_partitions)


def _config(value: Any) -> dict[str, int | None]:
    """Config changes, typed: key → integer, or null for the key's default."""
    changes = obj(value, "config", code=ErrorCode.INVALID_CONFIG)
    return {
        key: optional(integer, v, f"config.{key}", code=ErrorCode.INVALID_CONFIG)
        for key, v in changes.items()
    }


def parse_create(body: dict[str, Any], default_partitions: int, max_partitions: int) -> NewTopic:
    topic = name(body.get("name"), "name", code=ErrorCode.INVALID_TOPIC)
    # absent or null: the server's default
    count = body.get("partitions")
    partitions = _partitions(default_partitions if count is None else count, max_partitions)
    config = validate_config(optional(_config, body.get("config")) or {})
    return NewTopic(topic, partitions, config)


def parse_patch(body: dict[str, Any], max_partitions: int) -> TopicChange:
    partitions = optional(_partitions, body.get("partitions"), max_partitions)
    config = optional(_config, body.get("config"))
    if config is not None:
        validate_config(config)  # keys and bounds now; merged later, under the topic's lock
    return TopicChange(partitions, config)


def parse_delete_records(body: dict[str, Any]) -> list[tuple[int, int]]:
    """(partition, before offset) pairs; -1 is the high watermark. The upper bounds are those
    of the types (32 and 64 bits): a partition the topic does not have is the topic's error
    (404), not the body's."""
    out = []
    for i, item in enumerate(array(body.get("partitions"), "partitions", min_items=1)):
        item = obj(item, f"partitions[{i}]")
        out.append(
            (
                integer(item.get("partition"), f"partitions[{i}].partition", 0, MAX_INT32),
                integer(item.get("before_offset"), f"partitions[{i}].before_offset", -1),
            )
        )
    return out


def show_topic(topic: TopicView) -> dict[str, Any]:
    return {
        "name": topic.name,
        "config": effective_config(topic.config),
        "partitions": [
            {
                "partition": p,
                "log_start_offset": lg.log_start_offset,
                "high_watermark": lg.high_watermark,
                "last_stable_offset": lg.last_stable_offset,
            }
            for p, lg in enumerate(topic.logs)
        ],
    }
