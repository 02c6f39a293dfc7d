"""Records and topics: produce, read, ListOffsets, topic admin, delete-records."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.api.schemas._base import (
    Encoding,
    Model,
    WireHeader,
    WireRecord,
    records_encoded,
    with_examples,
)
from app.topics import NAME_PATTERN, TOPIC_CONFIG


def _config_keys() -> dict[str, Any]:
    """The topic config object: the known keys, each an integer within its bounds (-1 where
    it means never) or null (back to the default). Any other key is INVALID_CONFIG."""
    props: dict[str, Any] = {}
    for key, spec in TOPIC_CONFIG.items():
        alts: list[dict[str, Any]] = [{"type": "integer", "minimum": spec.lo, "maximum": spec.hi}]
        if spec.minus_one_ok:
            alts.append({"const": -1})
        props[key] = {"anyOf": [*alts, {"type": "null"}], "description": spec.doc}
    return {"type": "object", "properties": props, "additionalProperties": False}


def _topic_config(schema: dict[str, Any]) -> None:
    schema.clear()
    schema.update(_config_keys())


def _topic_config_or_null(schema: dict[str, Any]) -> None:
    schema.clear()
    schema["anyOf"] = [_config_keys(), {"type": "null"}]


class ProduceRequest(Model):
    model_config = with_examples(
        {
            "records": [
                {"key": "customer-7", "value": "order created"},
                {
                    "key": "customer-9",
                    "value": "order paid",
                    "partition": 0,
                    "timestamp": 1700000000000,
                    "headers": [{"key": "trace-id", "value": "4bf92f35"}],
                },
            ],
            "encoding": "utf8",
        },
        {"records": [{"value": {"id": 7, "total": 12.5}}], "encoding": "json"},
        rules=[*records_encoded()],
    )

    records: list[WireRecord] = Field(min_length=1)
    encoding: Encoding | None = "utf8"


class ProducedOffset(Model):
    partition: int
    offset: int
    timestamp: int


class ProduceResponse(Model):
    offsets: list[ProducedOffset]


class TopicCreate(Model):
    model_config = with_examples(
        {"name": "orders", "partitions": 3, "config": {"retention_ms": 86_400_000}}
    )

    # (a JSON Schema pattern only: the model never validates, and its regex engine has no
    # look-ahead)
    name: str = Field(json_schema_extra={"pattern": NAME_PATTERN, "maxLength": 249})
    partitions: int = Field(1, ge=1)
    config: dict[str, int | None] = Field({}, json_schema_extra=_topic_config)


class TopicPatch(Model):
    model_config = with_examples({"partitions": 6, "config": {"retention_ms": None}})

    partitions: int | None = Field(None, ge=1)
    config: dict[str, int | None] | None = Field(None, json_schema_extra=_topic_config_or_null)


class PartitionDescription(Model):
    partition: int
    log_start_offset: int
    high_watermark: int
    last_stable_offset: int


class TopicDescription(Model):
    name: str
    config: dict[str, int]
    partitions: list[PartitionDescription]


class TopicSummary(Model):
    name: str
    partitions: int


class TopicList(Model):
    topics: list[TopicSummary]


class DeleteRecordsPartition(Model):
    partition: int = Field(ge=0)
    before_offset: int = Field(ge=-1)


class DeleteRecordsRequest(Model):
    model_config = with_examples(
        {
            "partitions": [
                {"partition": 0, "before_offset": 100},
                {"partition": 1, "before_offset": -1},
            ]
        }
    )

    partitions: list[DeleteRecordsPartition] = Field(min_length=1)


class LogStart(Model):
    partition: int
    log_start_offset: int


class DeleteRecordsResponse(Model):
    partitions: list[LogStart]


class ReadRecord(Model):
    topic: str
    partition: int
    offset: int
    timestamp: int
    key: Any = None
    value: Any = None
    headers: list[WireHeader]
    encoding: Encoding | None = Field(
        None, description="present (base64) when the bytes cannot be shown as requested"
    )


class ReadResponse(Model):
    records: list[ReadRecord]
    next_offset: int
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int


class ListOffsetsResponse(Model):
    offset: int
    timestamp: int


# idempotent producer and transactions
