"""The seam's topics: create, describe, list, change, delete, and delete-records.

Used by ``app/api/routes/topics.py`` (every handler, through ``deps.engine_of``) and, through
the feed's state, by the dashboard. Implemented by ``app.engine.embedded.topics.EmbeddedTopics``
(over the topic registry, retention's ``delete_records`` and the engine's clock) and, on Kafka,
by ``app.kafka.topics.KafkaTopics``: CreateTopics, Metadata, DescribeConfigs, ListOffsets,
CreatePartitions, IncrementalAlterConfigs, DeleteTopics and DeleteRecords (docs/kafka.md,
"Topics").

A topic is answered as a ``TopicView``: the name, the explicit config and, per partition, the
three offsets of its description. The embedded ``Topic`` satisfies it as it is (its ``logs`` are
the partition logs themselves); the Kafka backend answers plain values. Nothing here is
redefined: the protocols below name the attributes the face reads, no more.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol


class TopicListing(NamedTuple):
    """A topic as ``GET /v1/topics`` lists it."""

    name: str
    partitions: int


class PartitionOffsets(Protocol):
    """One partition's offsets as a topic's description shows them."""

    @property
    def log_start_offset(self) -> int: ...

    @property
    def high_watermark(self) -> int: ...

    @property
    def last_stable_offset(self) -> int: ...


class TopicView(Protocol):
    """A topic as the face reads it (``app.api.wire.topics.show_topic``)."""

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


class Topics(Protocol):
    """Topic administration. Every change is durable before it returns
    (docs/semantics.md#durability-order: the row, then the partition files). The engine keeps
    its own time: a new partition's first segment is dated by the engine's clock (Kafka's: the
    cluster's)."""

    async def list(self) -> builtins.list[TopicListing]:
        """``GET /v1/topics``: the live topics (none being deleted), by name."""
        ...

    async def create(
        self, name: str, partitions: int, config: Mapping[str, int | None]
    ) -> TopicView:
        """``POST /v1/topics``. Raises ``TOPIC_ALREADY_EXISTS`` (also while
        a topic of that name is being deleted), ``INVALID_TOPIC``, ``INVALID_PARTITIONS`` (above
        ``SLUICE_MAX_PARTITIONS``), ``INVALID_CONFIG``, ``KAFKA_STORAGE_ERROR``."""
        ...

    async def get(self, name: str) -> TopicView:
        """``GET /v1/topics/{topic}``, and the existence check of ``PATCH`` before its body is
        judged. Raises ``UNKNOWN_TOPIC_OR_PARTITION`` (also while being deleted)."""
        ...

    async def update(
        self,
        name: str,
        partitions: int | None,
        config: Mapping[str, int | None] | None,
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

    async def delete_records(
        self, topic_name: str, partitions: builtins.list[tuple[int, int]]
    ) -> builtins.list[tuple[int, int]]:
        """``POST /v1/topics/{topic}/delete-records`` (Kafka's DeleteRecords): move each
        ``(partition, offset)``'s log start forward (-1: to the high watermark); answers
        ``(partition, log_start_offset)`` once each new start is durable. Raises
        ``UNKNOWN_TOPIC_OR_PARTITION``, ``OFFSET_OUT_OF_RANGE`` (beyond the high watermark),
        ``KAFKA_STORAGE_ERROR``."""
        ...
