"""Wire schemas for the OpenAPI document. Wire format only, no behaviour.

Hot paths parse bodies by hand (``app.api.wire``); these models describe the same shapes so
that ``/openapi.json`` agrees with API.md. ``documented_body`` attaches a model as a request
body without FastAPI validating it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Encoding = Literal["utf8", "base64", "json"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


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
    records: list[WireRecord] = Field(min_length=1)
    encoding: Encoding = "utf8"


class ProducedOffset(_Model):
    partition: int
    offset: int
    timestamp: int


class ProduceResponse(_Model):
    offsets: list[ProducedOffset]


class TopicCreate(_Model):
    name: str = Field(pattern=r"^[A-Za-z0-9._-]{1,249}$")
    partitions: int = Field(1, ge=1)
    config: dict[str, int] = {}


class TopicPatch(_Model):
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
        None, description="present (base64) when the bytes cannot be shown as requested")


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
    transactional_id: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]{1,249}$")
    transaction_timeout_ms: int = Field(60_000, ge=1)
    producer_id: int | None = Field(None, ge=0)
    producer_epoch: int | None = Field(None, ge=0, le=32767)


class ProducerIdentity(_Model):
    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)


class ProduceBatchRequest(_Model):
    topic: str
    partition: int = Field(ge=0)
    base_sequence: int = Field(ge=0, le=2**31 - 1)
    records: list[WireRecord] = Field(min_length=1)


class StatefulProduceRequest(_Model):
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
    state: Literal["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit",
                   "CompleteAbort", "Dead", "PrepareEpochFence"]
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    start_ms: int = Field(description="-1 when no transaction is open")
    updated_ms: int
    partitions: list[TxnPartition]
    groups: list[str]
    share_groups: list[str] = Field(
        default_factory=list, description="share groups with acknowledgements in the "
        "transaction")  # transactional share acknowledgements
    pending_state: str | None


class TransactionList(_Model):
    transactions: list[TransactionDescription]


# consumer groups

class TopicPartitions(_Model):
    topic: str
    partitions: list[int]


class GroupHeartbeatRequest(_Model):
    member_id: str | None = Field(None, description="null to join and get an id issued")
    member_epoch: int = Field(ge=-2, description="0 joins, -1 leaves, -2 static temporary leave")
    group_instance_id: str | None = None
    subscribed_topics: list[str] | None = Field(
        None, description="required when joining; null keeps the current subscription")
    rebalance_timeout_ms: int | None = Field(
        None, ge=1000, description="how long a revocation may take (default 300000)")
    owned_partitions: list[TopicPartitions] | None = Field(
        None, description="optional: what the member still works on (confirms revocations)")


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
        None, description="one type per offset (or one for all) instead of type")
    delay_ms: int | None = Field(None, ge=0, description="release only: not redelivered before")
    delivery_count: int | None = Field(
        None, ge=1, description="the delivery count received; a redelivered record refuses it")


class ShareHeartbeatRequest(_Model):
    member_id: str | None = None
    member_epoch: int = Field(0, description="0 joins, -1 leaves")
    subscribed_topics: list[str] | None = None


class ShareHeartbeatResponse(_Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class ShareFetchRequest(_Model):
    member_id: str | None = Field(None, description="null joins with subscribed_topics")
    subscribed_topics: list[str] | None = None
    max_records: int = Field(500, ge=1)
    max_bytes: int = Field(8 * 1024 * 1024, ge=1, le=64 * 1024 * 1024,
                           description="soft limit: at least one record is always returned")
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
    member_id: str
    acknowledgements: list[ShareAck]


class ShareAcknowledgeResponse(_Model):
    results: list[PartitionError]


# transactional share acknowledgements
class TxnAcknowledgementsRequest(_Model):
    producer_id: int = Field(ge=0)
    producer_epoch: int = Field(ge=0, le=32767)
    group_id: str
    member_id: str
    acknowledgements: list[ShareAck] = Field(min_length=1)


class ShareGroupConfig(_Model):
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
    ShareHeartbeatRequest, ShareFetchRequest, ShareAcknowledgeRequest, ShareGroupConfig,
    ShareOffsetsReset,
]


REQUEST_MODELS: list[type[BaseModel]] = [
    ProduceRequest, TopicCreate, TopicPatch, DeleteRecordsRequest,
    InitProducerRequest, ProducerIdentity, StatefulProduceRequest, TxnOffsetsRequest,  # txn
    GroupHeartbeatRequest, OffsetCommitRequest,  # consumer groups
    *SHARE_REQUEST_MODELS,  # share groups
    TxnAcknowledgementsRequest,  # transactional share acknowledgements
]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 404, 409, 413, 429, 503)
}


IDEMPOTENCY_KEY_HEADER: dict[str, Any] = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "a retry with the same key within the retention window answers the first "
                   "answer and appends nothing",
}


def documented_body(model: type[BaseModel]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}}}
