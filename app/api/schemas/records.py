"""Records and topics: the answers of produce, read, ListOffsets, topic admin, delete-records."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.api.schemas._base import Encoding, Model, RecordHeader


class ProducedOffset(Model):
    partition: int
    offset: int
    timestamp: int


class ProduceResponse(Model):
    offsets: list[ProducedOffset]


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
    headers: list[RecordHeader]
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
