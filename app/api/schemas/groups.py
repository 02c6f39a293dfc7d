"""Consumer groups: heartbeat, offset commit and fetch, listings."""

from __future__ import annotations

from pydantic import Field

from app.api.schemas._base import ErrorDetail, Model, given, is_, unset, when, with_examples

MAX_INT32 = 2**31 - 1


class TopicPartitions(Model):
    topic: str
    partitions: list[int]


class GroupHeartbeatRequest(Model):
    model_config = with_examples(
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
        rules=[
            when(is_("member_epoch", 0), given("subscribed_topics")),
            when({"not": is_("member_epoch", 0)}, given("member_id")),
            when(is_("member_epoch", -2), given("group_instance_id")),
        ],
    )

    member_id: str | None = Field(None, description="null to join and get an id issued")
    member_epoch: int = Field(
        ge=-2, le=MAX_INT32, description="0 joins, -1 leaves, -2 static temporary leave"
    )
    group_instance_id: str | None = None
    subscribed_topics: list[str] | None = Field(
        None, description="required when joining; null keeps the current subscription"
    )
    rebalance_timeout_ms: int | None = Field(
        None, ge=1000, le=MAX_INT32, description="how long a revocation may take (default 300000)"
    )
    owned_partitions: list[TopicPartitions] | None = Field(
        None, description="optional: what the member still works on (confirms revocations)"
    )


class GroupHeartbeatResponse(Model):
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: list[TopicPartitions]


class OffsetCommitItem(Model):
    topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    metadata: str | None = None


class OffsetCommitRequest(Model):
    model_config = with_examples(
        {
            "member_id": "m-1",
            "member_epoch": 3,
            "offsets": [{"topic": "orders", "partition": 0, "offset": 42, "metadata": None}],
        },
        {"offsets": [{"topic": "orders", "partition": 1, "offset": 0}]},
        rules=[
            # a simple commit (no member) has epoch -1; a member's carries its epoch
            when(unset("member_id"), {"properties": {"member_epoch": {"const": -1}}}),
            when(given("member_id"), given("member_epoch")),
        ],
    )

    member_id: str | None = None
    member_epoch: int = Field(-1, ge=-1, le=MAX_INT32)
    offsets: list[OffsetCommitItem] = Field(min_length=1)


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
