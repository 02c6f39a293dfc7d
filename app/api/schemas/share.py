"""Share groups: the answers of heartbeat, fetch, acknowledge, views, offsets reset and
acquisitions by id."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.api.schemas._base import ErrorDetail, Model
from app.api.schemas.groups import TopicPartitions
from app.api.schemas.records import ReadRecord


class ShareHeartbeatResponse(Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


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


class ShareAcknowledgeResponse(Model):
    results: list[PartitionError]


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
    # shaped as the body of PATCH …/config, every key with its value (app.api.openapi points
    # the document at that body's component)
    config: dict[str, Any]
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


class ShareStartOffset(Model):
    partition: int
    start_offset: int


class ShareTopicStartOffsets(Model):
    topic: str
    partitions: list[ShareStartOffset]


class ShareOffsetsResetResponse(Model):
    dry_run: bool
    topics: list[ShareTopicStartOffsets]
