"""Topic bodies declared (create, patch, delete-records), the rules of each beyond its shape,
and topic descriptions.

The config object is declared as the topic config table states it (``app.topics``: its keys,
each an integer within its bounds, or null for the key's default) and checked there; so are the
partition count's bounds, one of them a setting. What needs the topic itself (does it exist,
would the partition count shrink) is the registry's, checked after the body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from msgspec import Meta

from app.api.wire.body import MAX_INT32, MAX_INT64, Body, Count, Name, Part, decode, integral
from app.config import Settings
from app.engine.topics import TopicView
from app.errors import ErrorCode, InvalidRequest
from app.topics import TOPIC_CONFIG, check_partitions, effective_config, validate_config

# the config table as JSON Schema: the known keys, each an integer within its bounds (-1 where
# it means never) or null (back to the default); any other key is INVALID_CONFIG
_CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        key: {
            "anyOf": [
                {"type": "integer", "minimum": spec.lo, "maximum": spec.hi},
                *([{"const": -1}] if spec.minus_one_ok else []),
                {"type": "null"},
            ],
            "description": spec.doc,
        }
        for key, spec in TOPIC_CONFIG.items()
    },
    "additionalProperties": False,
}
# the values are taken as any JSON here and checked by the config table (INVALID_CONFIG)
Config = Annotated[dict[str, Any], Meta(extra_json_schema=_CONFIG_SCHEMA)]
# the upper bound is a setting (SLUICE_MAX_PARTITIONS): app.api.openapi
Partitions = Count
_CODES = {
    "": ErrorCode.INVALID_REQUEST,
    "name": ErrorCode.INVALID_TOPIC,
    "partitions": ErrorCode.INVALID_PARTITIONS,
    "config": ErrorCode.INVALID_CONFIG,
}


class TopicCreate(Body):
    """POST /v1/topics."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {"name": "orders", "partitions": 3, "config": {"retention_ms": 86_400_000}}
    ]
    codes = _CODES

    name: Name
    # absent or null: the server's default (SLUICE_DEFAULT_PARTITIONS)
    partitions: Partitions | None = None
    config: Config | None = None


class TopicPatch(Body):
    """PATCH /v1/topics/{topic}: null or absent leaves a part as it is."""

    examples: ClassVar[list[dict[str, Any]]] = [{"partitions": 6, "config": {"retention_ms": None}}]
    codes = _CODES

    partitions: Partitions | None = None
    config: Config | None = None


class DeleteRecordsPartition(Part):
    partition: Annotated[int, Meta(ge=0, le=MAX_INT32)]
    before_offset: Annotated[int, Meta(ge=-1, le=MAX_INT64)]


class DeleteRecordsRequest(Body):
    """POST /v1/topics/{topic}/delete-records: (partition, before offset) pairs; -1 is the
    high watermark. The upper bounds are those of the types (32 and 64 bits): a partition the
    topic does not have is the topic's error (404), not the body's."""

    examples: ClassVar[list[dict[str, Any]]] = [
        {
            "partitions": [
                {"partition": 0, "before_offset": 100},
                {"partition": 1, "before_offset": -1},
            ]
        }
    ]

    partitions: Annotated[list[DeleteRecordsPartition], Meta(min_length=1)]


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


def _config(changes: dict[str, Any]) -> dict[str, int | None]:
    """Config changes, typed: key → integer, or null for the key's default."""
    typed: dict[str, int | None] = {}
    for key, value in changes.items():
        value = integral(value)
        if value is not None and type(value) is not int:
            raise InvalidRequest(
                ErrorCode.INVALID_CONFIG, f"config.{key}: expected an integer or null"
            )
        typed[key] = value
    return typed


def parse_create(raw: bytes, s: Settings) -> NewTopic:
    b = decode(raw, TopicCreate, s)
    partitions = check_partitions(
        s.default_partitions if b.partitions is None else b.partitions, s.max_partitions
    )
    return NewTopic(b.name, partitions, validate_config(_config(b.config or {})))


def parse_patch(raw: bytes, s: Settings) -> TopicChange:
    b = decode(raw, TopicPatch, s)
    partitions = None if b.partitions is None else check_partitions(b.partitions, s.max_partitions)
    config = None if b.config is None else _config(b.config)
    if config is not None:
        validate_config(config)  # keys and bounds now; merged later, under the topic's lock
    return TopicChange(partitions, config)


def parse_delete_records(raw: bytes, s: Settings) -> list[tuple[int, int]]:
    return [(p.partition, p.before_offset) for p in decode(raw, DeleteRecordsRequest, s).partitions]


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
