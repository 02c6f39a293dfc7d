"""Wire schemas for the OpenAPI document. Wire format only, no behaviour.

Request bodies are not parsed through these models: the hand parsers of ``app.api.wire`` are
what the server runs, and these models only describe the same shapes in ``/openapi.json``.
Parsing through pydantic instead would make one declaration serve both, but it costs a third or
more of the throughput of produce, share fetch and acknowledge, and FastAPI's validation answers
422 with its own error shape where the wire promises 400 with a stable code and a message
naming the field. ``documented_body`` attaches a model as a request body without FastAPI
validating it.

So that the two descriptions cannot drift apart unnoticed, every model in ``REQUEST_MODELS``
carries at least one example (``examples``, also shown in the OpenAPI document), and a test
runs each example through the real parser and checks that it parses, and that dropping any
field documented as required makes the parser refuse the body.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Encoding = Literal["utf8", "base64", "json"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


def _examples(*bodies: dict[str, Any]) -> ConfigDict:
    """Config of a request model with these example bodies (OpenAPI ``examples``)."""
    return ConfigDict(json_schema_extra={"examples": list(bodies)})


def examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    """A request model's example bodies (copies: callers may change them)."""
    extra = model.model_config.get("json_schema_extra")
    found = extra.get("examples") if isinstance(extra, dict) else None
    bodies = found if isinstance(found, list) else []
    return copy.deepcopy([b for b in bodies if isinstance(b, dict)])


class ErrorDetail(_Model):
    code: str = Field(description="stable error code clients switch on")
    message: str
    retriable: bool
    kafka_code: int | None = None


class ErrorBody(_Model):
    error: ErrorDetail


class WireHeader(_Model):
    key: str
    value: Any = None


class WireRecord(_Model):
    key: Any = None
    value: Any = None
    headers: list[WireHeader] = []
    partition: int | None = Field(None, ge=0)
    timestamp: int | None = Field(None, ge=0)
    encoding: Encoding | None = None


class ProduceRequest(_Model):
    model_config = _examples(
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
    )

    records: list[WireRecord] = Field(min_length=1)
    encoding: Encoding = "utf8"


class ProducedOffset(_Model):
    partition: int
    offset: int
    timestamp: int


class ProduceResponse(_Model):
    offsets: list[ProducedOffset]


class TopicCreate(_Model):
    model_config = _examples(
        {"name": "orders", "partitions": 3, "config": {"retention_ms": 86_400_000}}
    )

    name: str = Field(pattern=r"^[A-Za-z0-9._-]{1,249}$")
    partitions: int = Field(1, ge=1)
    config: dict[str, int] = {}


class TopicPatch(_Model):
    model_config = _examples({"partitions": 6, "config": {"retention_ms": None}})

    partitions: int | None = Field(None, ge=1)
    config: dict[str, int | None] | None = None


class PartitionDescription(_Model):
    partition: int
    log_start_offset: int
    high_watermark: int
    last_stable_offset: int


class TopicDescription(_Model):
    name: str
    config: dict[str, int]
    partitions: list[PartitionDescription]


class TopicSummary(_Model):
    name: str
    partitions: int


class TopicList(_Model):
    topics: list[TopicSummary]


class DeleteRecordsPartition(_Model):
    partition: int = Field(ge=0)
    before_offset: int = Field(ge=-1)


class DeleteRecordsRequest(_Model):
    model_config = _examples(
        {
            "partitions": [
                {"partition": 0, "before_offset": 100},
                {"partition": 1, "before_offset": -1},
            ]
        }
    )

    partitions: list[DeleteRecordsPartition]


class LogStart(_Model):
    partition: int
    log_start_offset: int


class DeleteRecordsResponse(_Model):
    partitions: list[LogStart]


class ReadRecord(_Model):
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


class ReadResponse(_Model):
    records: list[ReadRecord]
    next_offset: int
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int


class ListOffsetsResponse(_Model):
    offset: int
    timestamp: int


# idempotent producer and transactions


class InitProducerRequest(_Model):
    model_config = _examples(
        {"transactional_id": "orders-tx", "transaction_timeout_ms": 60_000}, {}
    )

    transactional_id: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]{1,249}$")
    transaction_timeout_ms: int = Field(60_000, ge=1)
    producer_id: int | None = Field(None, ge=0)
    producer_epoch: int | None = Field(None, ge=0, le=32767)


class ProducerIdentity(_Model):
    model_config = _examples({"producer_id": 4000, "producer_epoch": 0})

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class ProduceBatchRequest(_Model):
    topic: str
    partition: int = Field(ge=0)
    base_sequence: int = Field(ge=0, le=2**31 - 1)
    records: list[WireRecord] = Field(min_length=1)


class StatefulProduceRequest(_Model):
    model_config = _examples(
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "transactional_id": "orders-tx",
            "encoding": "utf8",
            "batches": [
                {
                    "topic": "orders",
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"key": "customer-7", "value": "order created"}],
                }
            ],
        }
    )

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)
    transactional_id: str | None = None
    encoding: Encoding = "utf8"
    batches: list[ProduceBatchRequest] = Field(min_length=1)


class ProduceBatchResult(_Model):
    topic: str
    partition: int
    base_offset: int = Field(description="-1 when the batch failed")
    error: ErrorDetail | None


class StatefulProduceResponse(_Model):
    batches: list[ProduceBatchResult]


class TxnOffset(_Model):
    topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    metadata: str | None = None


class TxnOffsetsRequest(_Model):
    model_config = _examples(
        {
            "producer_id": 4000,
            "producer_epoch": 0,
            "group_id": "billing",
            "member_id": "m-1",
            "member_epoch": 3,
            "group_instance_id": None,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": "batch 7"}],
        }
    )

    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)
    group_id: str
    member_id: str | None = None
    member_epoch: int = -1
    group_instance_id: str | None = None
    offsets: list[TxnOffset] = Field(min_length=1)


class TxnOffsetResult(_Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class TxnOffsetsResponse(_Model):
    offsets: list[TxnOffsetResult]


class TxnPartition(_Model):
    topic: str
    partition: int


class TransactionDescription(_Model):
    transactional_id: str
    state: Literal[
        "Empty",
        "Ongoing",
        "PrepareCommit",
        "PrepareAbort",
        "CompleteCommit",
        "CompleteAbort",
        "Dead",
        "PrepareEpochFence",
    ]
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_ms: int = Field(description="-1 when no transaction is open")
    updated_ms: int
    partitions: list[TxnPartition]
    groups: list[str]
    share_groups: list[str] = Field(
        default_factory=list, description="share groups with acknowledgements in the transaction"
    )  # transactional share acknowledgements
    pending_state: str | None


class TransactionList(_Model):
    transactions: list[TransactionDescription]


# consumer groups


class TopicPartitions(_Model):
    topic: str
    partitions: list[int]


class GroupHeartbeatRequest(_Model):
    model_config = _examples(
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
    )

    member_id: str | None = Field(None, description="null to join and get an id issued")
    member_epoch: int = Field(ge=-2, description="0 joins, -1 leaves, -2 static temporary leave")
    group_instance_id: str | None = None
    subscribed_topics: list[str] | None = Field(
        None, description="required when joining; null keeps the current subscription"
    )
    rebalance_timeout_ms: int | None = Field(
        None, ge=1000, description="how long a revocation may take (default 300000)"
    )
    owned_partitions: list[TopicPartitions] | None = Field(
        None, description="optional: what the member still works on (confirms revocations)"
    )


class GroupHeartbeatResponse(_Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class OffsetCommitItem(_Model):
    topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    metadata: str | None = None


class OffsetCommitRequest(_Model):
    model_config = _examples(
        {
            "member_id": "m-1",
            "member_epoch": 3,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": None}],
        },
        {"offsets": [{"topic": "orders", "partition": 1, "offset": 0}]},
    )

    member_id: str | None = None
    member_epoch: int = Field(-1, ge=-1)
    offsets: list[OffsetCommitItem] = Field(min_length=1)


class OffsetCommitResult(_Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class OffsetCommitResponse(_Model):
    offsets: list[OffsetCommitResult]


class FetchedOffset(_Model):
    topic: str
    partition: int
    offset: int = Field(description="-1 when nothing is committed")
    metadata: str | None
    error: ErrorDetail | None


class OffsetFetchResponse(_Model):
    offsets: list[FetchedOffset]


class GroupSummary(_Model):
    group_id: str
    state: str
    group_epoch: int
    members: int


class GroupList(_Model):
    groups: list[GroupSummary]


class GroupMemberDescription(_Model):
    member_id: str
    member_epoch: int
    group_instance_id: str | None
    subscribed_topics: list[str]
    assignment: list[TopicPartitions]


class GroupOffsetLag(_Model):
    topic: str
    partition: int
    offset: int
    lag: int


class GroupDescription(_Model):
    group_id: str
    state: str
    group_epoch: int
    members: list[GroupMemberDescription]
    offsets: list[GroupOffsetLag]


# -- share groups -----------------------------------------------------------------------------


class ShareAck(_Model):
    topic: str
    partition: int = Field(ge=0)
    first_offset: int = Field(ge=0)
    last_offset: int = Field(ge=0)
    type: Literal["accept", "release", "reject", "renew"] | None = None
    types: list[Literal["accept", "release", "reject", "renew"]] | None = Field(
        None, description="one type per offset (or one for all) instead of type"
    )
    delay_ms: int | None = Field(None, ge=0, description="release only: not redelivered before")
    delivery_count: int | None = Field(
        None, ge=1, description="the delivery count received; a redelivered record refuses it"
    )


class ShareHeartbeatRequest(_Model):
    model_config = _examples(
        {"member_id": None, "member_epoch": 0, "subscribed_topics": ["orders"]}
    )

    member_id: str | None = None
    member_epoch: int = Field(0, description="0 joins, -1 leaves")
    subscribed_topics: list[str] | None = None


class ShareHeartbeatResponse(_Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class ShareFetchRequest(_Model):
    model_config = _examples(
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
        }
    )

    member_id: str | None = Field(None, description="null joins with subscribed_topics")
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
    encoding: Encoding = "utf8"
    acknowledgements: list[ShareAck] = []


class ShareRecord(ReadRecord):
    delivery_count: int


class AcquiredRange(_Model):
    topic: str
    partition: int
    first_offset: int
    last_offset: int
    delivery_count: int


class PartitionError(_Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class ShareFetchResponse(_Model):
    member_id: str
    records: list[ShareRecord]
    acquired: list[AcquiredRange]
    acquisition_lock_timeout_ms: int
    acknowledgement_errors: list[PartitionError]


class ShareAcknowledgeRequest(_Model):
    model_config = _examples(
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


class ShareAcknowledgeResponse(_Model):
    results: list[PartitionError]


# transactional share acknowledgements
class TxnAcknowledgementsRequest(_Model):
    model_config = _examples(
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
    group_id: str
    member_id: str
    acknowledgements: list[ShareAck] = Field(min_length=1)


class ShareGroupConfig(_Model):
    model_config = _examples(
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

    record_lock_duration_ms: int | None = None
    delivery_count_limit: int | None = Field(None, ge=2, le=10)
    partition_max_record_locks: int | None = Field(None, ge=100, le=10_000)
    auto_offset_reset: str | None = Field(None, description="latest | earliest | by_duration:<ms>")
    isolation_level: Literal["read_uncommitted", "read_committed"] | None = None
    renew_enabled: bool | None = None
    dead_letter_topic: str | None = None


class ShareGroupSummary(_Model):
    group_id: str
    state: Literal["Empty", "Stable"]
    members: int


class ShareGroupList(_Model):
    share_groups: list[ShareGroupSummary]


class ShareMember(_Model):
    member_id: str
    member_epoch: int
    subscribed_topics: list[str]
    assignment: list[TopicPartitions]
    last_seen_ms: int


class SharePartitionState(_Model):
    topic: str
    partition: int
    start_offset: int
    end_offset: int = Field(description="exclusive: the window is [start_offset, end_offset)")
    available: int
    acquired: int
    acknowledged: int
    archived: int
    lag: int


class ShareGroupDescription(_Model):
    group_id: str
    state: Literal["Empty", "Stable"]
    group_epoch: int
    config: ShareGroupConfig
    members: list[ShareMember]
    partitions: list[SharePartitionState]


class ShareRecordState(_Model):
    offset: int
    state: Literal["available", "acquired", "acknowledged", "archived"]
    delivery_count: int
    member_id: str | None
    lock_expires_at: int | None
    available_at: int | None


class ShareRecordsView(_Model):
    start_offset: int
    end_offset: int
    records: list[ShareRecordState]


class ShareOffsetsTarget(_Model):
    topic: str
    partitions: list[int] | None = None
    to: Any = Field(description='"earliest" | "latest" | {"timestamp": ms} | {"offset": n}')


class ShareOffsetsReset(_Model):
    model_config = _examples(
        {
            "topics": [
                {"topic": "orders", "partitions": None, "to": "earliest"},
                {"topic": "orders", "partitions": [0], "to": {"offset": 0}},
            ],
            "dry_run": True,
        }
    )

    topics: list[ShareOffsetsTarget]
    dry_run: bool = False


class ShareStartOffset(_Model):
    partition: int
    start_offset: int


class ShareTopicStartOffsets(_Model):
    topic: str
    partitions: list[ShareStartOffset]


class ShareOffsetsResetResponse(_Model):
    dry_run: bool
    topics: list[ShareTopicStartOffsets]


SHARE_REQUEST_MODELS: list[type[BaseModel]] = [
    ShareHeartbeatRequest,
    ShareFetchRequest,
    ShareAcknowledgeRequest,
    ShareGroupConfig,
    ShareOffsetsReset,
]


REQUEST_MODELS: list[type[BaseModel]] = [
    ProduceRequest,
    TopicCreate,
    TopicPatch,
    DeleteRecordsRequest,
    InitProducerRequest,
    ProducerIdentity,
    StatefulProduceRequest,
    TxnOffsetsRequest,  # txn
    GroupHeartbeatRequest,
    OffsetCommitRequest,  # consumer groups
    *SHARE_REQUEST_MODELS,  # share groups
    TxnAcknowledgementsRequest,  # transactional share acknowledgements
]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 404, 409, 413, 429, 503)
}


IDEMPOTENCY_KEY_HEADER: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "a retry with the same key within the retention window answers the first "
    "answer and appends nothing",
}


def documented_body(model: type[BaseModel]) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            },
        }
    }
