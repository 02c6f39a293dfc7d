"""The seam's topics: create, describe, list, change, delete, and delete-records.

Used by ``app/api/routes/topics.py`` (every handler) and, through the feed's state, by the
dashboard. Implemented today by ``app.topics.TopicRegistry`` (``Broker.topics``) and, for
delete-records, ``app.retention.Retention`` (``Broker.retention``); on Kafka by CreateTopics,
Metadata, DescribeConfigs, ListOffsets, CreatePartitions, IncrementalAlterConfigs, DeleteTopics
and DeleteRecords (docs/kafka.md, "Topics").

A topic is answered as a ``TopicView``: the name, the explicit config and, per partition, the
three offsets of its description. The embedded ``Topic`` satisfies it as it is (its ``logs`` are
the partition logs themselves); the Kafka backend answers plain values. Nothing here is
redefined: the protocols below name the attributes the face reads, no more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class PartitionOffsets(Protocol):
    """One partition's offsets as a topic's description shows them."""

    @property
    def log_start_offset(self) -> int: ...

    @property
    def high_watermark(self) -> int: ...

    @property
    def last_stable_offset(self) -> int: ...


class TopicView(Protocol):
    """A topic as the face reads it (``app.api.wire.topics.show_topic``, the topic list)."""

    @property
    def name(self) -> str: ...

    @property
    def config(self) -> Mapping[str, int]:
        """The keys set on the topic (the wire layer fills in the defaults)."""
        ...

    @property
    def logs(self) -> Sequence[PartitionOffsets]:
        """One entry per partition, in partition order."""
        ...

    @property
    def partitions(self) -> int: ...

    @property
    def deleting(self) -> bool:
        """Being deleted: the list leaves it out; its name is not free yet."""
        ...


class Topics(Protocol):
    """Topic administration. Every change is durable before it returns
    (docs/semantics.md#durability-order: the row, then the partition files)."""

    @property
    def topics(self) -> Mapping[str, TopicView]:
        """Every topic by name, those being deleted among them (``GET /v1/topics`` leaves
        them out itself; see docs/engine.md, "Engine logic in the routes")."""
        ...

    async def create(
        self, name: str, partitions: int, config: Mapping[str, int | None], now_ms: int
    ) -> TopicView:
        """``POST /v1/topics``. Raises ``TOPIC_ALREADY_EXISTS`` (also while
        a topic of that name is being deleted), ``INVALID_TOPIC``, ``INVALID_PARTITIONS`` (above
        ``SLUICE_MAX_PARTITIONS``), ``INVALID_CONFIG``, ``KAFKA_STORAGE_ERROR``."""
        ...

    def get(self, name: str) -> TopicView:
        """``GET /v1/topics/{topic}``, and the existence check of ``PATCH`` before its body is
        judged. Raises ``UNKNOWN_TOPIC_OR_PARTITION`` (also while being deleted)."""
        ...

    async def update(
        self,
        name: str,
        partitions: int | None,
        config: Mapping[str, int | None] | None,
        now_ms: int,
    ) -> TopicView:
        """``PATCH /v1/topics/{topic}``: more partitions (never fewer) and config keys (None
        removes a key). Raises ``UNKNOWN_TOPIC_OR_PARTITION``, ``INVALID_PARTITIONS``,
        ``INVALID_CONFIG``, ``KAFKA_STORAGE_ERROR``."""
        ...

    async def delete(self, name: str) -> None:
        """``DELETE /v1/topics/{topic}``: the topic, its data, its consumer-group offsets and
        idempotency keys. Returns once the deletion is recorded (an interrupted one finishes
        at start). Raises ``UNKNOWN_TOPIC_OR_PARTITION``, ``KAFKA_STORAGE_ERROR``."""
        ...


class RecordDeletion(Protocol):
    """``POST /v1/topics/{topic}/delete-records`` (Kafka's DeleteRecords)."""

    async def delete_records(
        self, topic_name: str, partitions: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """Move each ``(partition, offset)``'s log start forward (-1: to the high watermark);
        answers ``(partition, log_start_offset)`` once each new start is durable. Raises
        ``UNKNOWN_TOPIC_OR_PARTITION``, ``OFFSET_OUT_OF_RANGE`` (beyond the high watermark),
        ``KAFKA_STORAGE_ERROR``."""
        ...
