"""Consumer groups: the answers of heartbeat, offset commit and fetch, listings."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas._base import ErrorDetail, Model


class TopicPartitions(Model):
    topic: str
    partitions: list[int]


class GroupHeartbeatResponse(Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class OffsetCommitResult(Model):
    topic: str
    partition: int
    error: ErrorDetail | None


class OffsetCommitResponse(Model):
    offsets: list[OffsetCommitResult]


class FetchedOffset(Model):
    topic: str
    partition: int
    offset: int = Field(description="-1 when nothing is committed")
    metadata: str | None
    error: ErrorDetail | None


class OffsetFetchResponse(Model):
    offsets: list[FetchedOffset]


class GroupSummary(Model):
    group_id: str
    state: str
    group_epoch: int
    members: int


class GroupList(Model):
    groups: list[GroupSummary]


class GroupMemberDescription(Model):
    member_id: str
    member_epoch: int
    group_instance_id: str | None
    subscribed_topics: list[str]
    assignment: list[TopicPartitions]


class GroupOffsetLag(Model):
    topic: str
    partition: int
    offset: int
    lag: int


class GroupDescription(Model):
    group_id: str
    state: str
    group_epoch: int
    members: list[GroupMemberDescription]
    offsets: list[GroupOffsetLag]
