"""Share groups: heartbeat, fetch, acknowledge, config, views, offsets reset, acquisitions by
id; and acknowledgements in a transaction."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.api.schemas._base import (
    Encoding,
    ErrorDetail,
    Model,
    given,
    is_,
    unset,
    when,
    with_examples,
)
from app.api.schemas.groups import MAX_INT32, TopicPartitions
from app.api.schemas.records import ReadRecord
from app.share.group_config import OFFSET_RESET_PATTERN


class ShareAck(Model):
    topic: str
    partition: int = Field(ge=0)
    first_offset: int = Field(ge=0, le=2**62)
    last_offset: int = Field(ge=0, le=2**62)
    type: Literal["accept", "release", "reject", "renew"] | None = None
    types: list[Literal["accept", "release", "reject", "renew"]] | None = Field(
        None, description="one type per offset (or one for all) instead of type"
    )
    delay_ms: int | None = Field(None, ge=0, description="release only: not redelivered before")
    delivery_count: int | None = Field(
        None, ge=1, description="the delivery count received; a redelivered record refuses it"
    )


class ShareHeartbeatRequest(Model):
    model_config = with_examples(
        {"member_id": None, "member_epoch": 0, "subscribed_topics": ["orders"]},
        rules=[
            # member_epoch absent is 0: a join
            when({"not": given("member_epoch")}, given("subscribed_topics")),
            when(is_("member_epoch", 0), given("subscribed_topics")),
            when(
                {"not": {"anyOf": [is_("member_epoch", 0), {"not": given("member_epoch")}]}},
                given("member_id"),
            ),
        ],
    )

    member_id: str | None = None
    member_epoch: int = Field(0, ge=-1, le=MAX_INT32, description="0 joins, -1 leaves")
    subscribed_topics: list[str] | None = None


class ShareHeartbeatResponse(Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class ShareFetchRequest(Model):
    model_config = with_examples(
        {
            "member_id": "m-1",
            "subscribed_topics": ["orders"],
            "max_records": 100,
            "max_bytes": 1_048_576,
            "max_wait_ms": 0,
            "acquire_mode": "batch_optimized",
            "encoding": "utf8",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 9,
                    "type": "accept",
                }
            ],
        },
        {
            "acquisition_id": "run-7:batch-12:task-3",
            "subscribed_topics": ["orders"],
            "max_records": 100,
            "max_wait_ms": 1000,
        },
        rules=[
            when(unset("member_id"), given("subscribed_topics")),
            when(is_("held_only", True), given("acquisition_id")),
            when(
                given("acquisition_id"),
                {
                    "allOf": [
                        unset("member_id"),
                        {"properties": {"acknowledgements": {"maxItems": 0}}},
                    ]
                },
            ),
        ],
    )

    member_id: str | None = Field(None, description="null joins with subscribed_topics")
    acquisition_id: str | None = Field(
        None,
        min_length=1,
        max_length=255,
        description="fetch for this acquisition instead of a member: the records it still "
        "holds, again, or else new ones it then holds (member_id null, subscribed_topics "
        "required, no acknowledgements)",
    )
    held_only: bool = Field(
        False,
        description="with acquisition_id: answer only what the acquisition still holds, and "
        "nothing rather than new records (a replay)",
    )
    subscribed_topics: list[str] | None = None
    max_records: int = Field(500, ge=1)
    max_bytes: int = Field(
        8 * 1024 * 1024,
        ge=1,
        le=64 * 1024 * 1024,
        description="soft limit: at least one record is always returned",
    )
    max_wait_ms: int = Field(0, ge=0)
    acquire_mode: Literal["batch_optimized", "record_limit"] = "batch_optimized"
    format: Literal["json", "batches"] = Field(
        "json",
        description="batches: the answer is the record batches that hold the records acquired, "
        "with the acquired ranges (docs/api.md#share-fetch-batches)",
    )
    encoding: Encoding | None = "utf8"
    acknowledgements: list[ShareAck] = []


class ShareRecord(ReadRecord):
    delivery_count: int


class AcquiredRange(Model):
    topic: str
    partition: int
    first_offset: int
    last_offset: int
    delivery_count: int


class PartitionError(Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class ShareFetchResponse(Model):
    member_id: str | None = Field(description="null for a fetch by acquisition id")
    acquisition_id: str | None = Field(None, description="only in a fetch by acquisition id")
    records: list[ShareRecord]
    acquired: list[AcquiredRange]
    acquisition_lock_timeout_ms: int
    acknowledgement_errors: list[PartitionError]


class ShareAcknowledgeRequest(Model):
    model_config = with_examples(
        {
            "member_id": "m-1",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 10,
                    "last_offset": 19,
                    "type": "accept",
                },
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 20,
                    "last_offset": 22,
                    "types": ["accept", "release", "reject"],
                },
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 23,
                    "last_offset": 23,
                    "type": "release",
                    "delay_ms": 1000,
                    "delivery_count": 1,
                },
            ],
        }
    )

    member_id: str
    acknowledgements: list[ShareAck] = Field(
        default_factory=list, description="absent or empty: nothing to acknowledge"
    )


class ShareAcknowledgeResponse(Model):
    results: list[PartitionError]


AcquisitionId = Annotated[str, Field(min_length=1, max_length=255)]


class ShareAcquisitionsAcknowledgeRequest(Model):
    model_config = with_examples(
        {"acquisition_ids": ["run-7:batch-12:task-0", "run-7:batch-12:task-1"], "type": "accept"},
        {"prefix": "run-7:batch-12:"},
        rules=[{"oneOf": [given("acquisition_ids"), given("prefix")]}],
    )

    acquisition_ids: list[AcquisitionId] | None = Field(
        None, max_length=10_000, description="ids of 1 to 255 characters; or prefix"
    )
    prefix: str | None = Field(
        None, min_length=1, max_length=255, description="every acquisition whose id starts so"
    )
    type: Literal["accept", "release", "reject"] | None = "accept"


class ShareAcquisitionRecords(Model):
    acquisition_id: str
    records: int


class ShareAcquisitionsAcknowledgeResponse(Model):
    acknowledged: int = Field(description="records acknowledged, over all acquisitions")
    acquisitions: list[ShareAcquisitionRecords] = Field(
        description="the acquisitions that held records, by id"
    )


class ShareAcquisitionPartition(Model):
    topic: str
    partition: int
    records: int


class ShareAcquisition(Model):
    acquisition_id: str
    records: int
    partitions: list[ShareAcquisitionPartition]


class ShareAcquisitionList(Model):
    acquisitions: list[ShareAcquisition] = Field(
        description="the acquisitions that hold records, by id"
    )
    records: int


# transactional share acknowledgements
class TxnGroupAcknowledgements(Model):
    group_id: str
    member_id: str
    acknowledgements: list[ShareAck] = Field(min_length=1)


class TxnAcknowledgementsRequest(TxnGroupAcknowledgements):
    model_config = with_examples(
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "group_id": "analytics",
            "member_id": "m-1",
            "acknowledgements": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "first_offset": 0,
                    "last_offset": 9,
                    "type": "accept",
                }
            ],
        }
    )

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class ShareGroupConfig(Model):
    model_config = with_examples(
        {
            "record_lock_duration_ms": 30_000,
            "delivery_count_limit": 5,
            "partition_max_record_locks": 2000,
            "auto_offset_reset": "earliest",
            "isolation_level": "read_committed",
            "renew_enabled": True,
            "dead_letter_topic": "orders-dlq",
        },
        {"auto_offset_reset": "by_duration:3600000", "dead_letter_topic": None},
    )
    model_config["extra"] = "forbid"  # an unknown key is INVALID_CONFIG

    record_lock_duration_ms: int | None = None
    delivery_count_limit: int | None = Field(None, ge=2, le=10)
    partition_max_record_locks: int | None = Field(None, ge=100, le=10_000)
    auto_offset_reset: str | None = Field(
        None,
        description="latest | earliest | by_duration:<ms>",
        json_schema_extra={"pattern": OFFSET_RESET_PATTERN},
    )
    isolation_level: Literal["read_uncommitted", "read_committed"] | None = None
    renew_enabled: bool | None = None
    dead_letter_topic: str | None = Field(
        None, pattern=r"^([A-Za-z0-9._-]{1,249})?$", description='"" or null: none'
    )


class ShareGroupSummary(Model):
    group_id: str
    state: Literal["Empty", "Stable"]
    members: int


class ShareGroupList(Model):
    share_groups: list[ShareGroupSummary]


class ShareMember(Model):
    member_id: str
    member_epoch: int
    subscribed_topics: list[str]
    assignment: list[TopicPartitions]
    last_seen_ms: int


class SharePartitionState(Model):
    topic: str
    partition: int
    start_offset: int
    end_offset: int | None = Field(
        description="exclusive: the window is [start_offset, end_offset); null where the "
        "backend does not know it (Kafka)"
    )
    available: int | None = Field(description="null where the backend does not know it (Kafka)")
    acquired: int | None
    acknowledged: int | None
    archived: int | None
    lag: int | None


class ShareGroupDescription(Model):
    group_id: str
    state: Literal["Empty", "Stable"]
    group_epoch: int
    config: ShareGroupConfig
    members: list[ShareMember]
    partitions: list[SharePartitionState]


class ShareRecordState(Model):
    offset: int
    state: Literal["available", "acquired", "acknowledged", "archived"]
    delivery_count: int
    member_id: str | None
    lock_expires_at: int | None
    available_at: int | None


class ShareRecordsView(Model):
    start_offset: int
    end_offset: int
    records: list[ShareRecordState]


class ShareOffsetsTarget(Model):
    topic: str
    partitions: list[int] | None = None
    to: Any = Field(description='"earliest" | "latest" | {"timestamp": ms} | {"offset": n}')


class ShareOffsetsReset(Model):
    model_config = with_examples(
        {
            "topics": [
                {"topic": "orders", "partitions": None, "to": "earliest"},
                {"topic": "orders", "partitions": [0], "to": {"offset": 0}},
            ],
            "dry_run": True,
        }
    )

    topics: list[ShareOffsetsTarget] = Field(min_length=1)
    dry_run: bool = False


class ShareStartOffset(Model):
    partition: int
    start_offset: int


class ShareTopicStartOffsets(Model):
    topic: str
    partitions: list[ShareStartOffset]


class ShareOffsetsResetResponse(Model):
    dry_run: bool
    topics: list[ShareTopicStartOffsets]
