"""Topics on the Kafka backend (docs/kafka.md#topics, docs/kafka-protocol.md#topics-and-reads):
create, list, describe, change, delete, and delete-records, over a started ``Cluster``.

A topic's description is asked of the cluster each time: Metadata for its partitions,
DescribeConfigs for the keys set on it, and ListOffsets to each partition's leader for the log
start (EARLIEST), the high watermark (LATEST) and the last stable offset (LATEST under
read_committed). Nothing is kept between calls but the cluster's own metadata cache.

The contract's topic config keys map to Kafka's topic configs one to one (``CONFIG_NAMES``);
a key the contract does not have is refused here, as the embedded engine refuses it, and the
values are Kafka's to judge: a value Kafka refuses is ``INVALID_CONFIG`` with Kafka's reason.
Changes go to any broker, which forwards them to the controller. Kafka's errors are answered
through ``app.kafka.errors_map``.

The seam's ``Topics`` has synchronous members that are requests here: ``get`` is async, and the
``topics`` mapping is ``list()`` (docs/engine.md#kafka-async).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.engine.topics import TopicListing
from app.errors import ErrorCode, InvalidRequest, NotFound
from app.kafka.cluster import Cluster, TopicInfo
from app.kafka.errors_map import to_sluice
from app.kafka.offsets import (
    DEFAULT_TIMEOUT_MS,
    EARLIEST,
    LATEST,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    Found,
    delete_records,
    list_offsets,
)
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.messages import (
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
)
from app.topics import TOPIC_CONFIG, check_partitions, validate_name

# The contract's topic config keys (docs/api.md#topics) and Kafka's names for them.
CONFIG_NAMES: dict[str, str] = {
    "retention_ms": "retention.ms",
    "retention_bytes": "retention.bytes",
    "segment_bytes": "segment.bytes",
    "segment_ms": "segment.ms",
    "index_interval_bytes": "index.interval.bytes",
    "max_message_bytes": "max.message.bytes",
}
CONTRACT_NAMES: dict[str, str] = {kafka: ours for ours, kafka in CONFIG_NAMES.items()}

TOPIC_RESOURCE = 2  # ConfigResource.Type TOPIC
DYNAMIC_TOPIC_CONFIG = 1  # DescribeConfigs' config_source: set on the topic itself
SET, DELETE = 0, 1  # IncrementalAlterConfigs' operations
# Kafka's own internal topics are flagged by Metadata; the gateway's (docs/kafka.md) by name
GATEWAY_TOPIC_PREFIX = "__sluice_"
# A new partition's leader may be named by Metadata before it answers for the partition
# (NOT_LEADER_OR_FOLLOWER): a broker takes up hundreds of new partitions one after another.
# How many times a new topic's description asks again (the backoff doubling to at most a
# second: some 20 s).
NEW_PARTITION_RETRIES = 25


def kafka_configs(config: Mapping[str, int | None]) -> dict[str, str | None]:
    """The contract's ``config`` as Kafka's topic configs (None: back to Kafka's default).
    Raises ``INVALID_CONFIG`` for a key the contract does not have or a value that is not an
    integer; the bounds are Kafka's (docs/kafka.md#differences)."""
    out: dict[str, str | None] = {}
    for key, value in config.items():
        name = CONFIG_NAMES.get(key)
        if name is None:
            raise InvalidRequest(
                ErrorCode.INVALID_CONFIG,
                f"unknown config key {key!r}; known: {', '.join(sorted(TOPIC_CONFIG))}",
            )
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidRequest(ErrorCode.INVALID_CONFIG, f"config {key} must be an integer")
        out[name] = None if value is None else str(value)
    return out


def contract_config(entries: Iterable[tuple[str, str | None]]) -> dict[str, int]:
    """Kafka's topic configs ``(name, value)`` as the contract's keys; names the contract does
    not have, and values that are not integers, are left out."""
    out: dict[str, int] = {}
    for name, value in entries:
        key = CONTRACT_NAMES.get(name)
        if key is None or value is None:
            continue
        try:
            out[key] = int(value)
        except ValueError:
            continue
    return out


@dataclass(frozen=True, slots=True)
class PartitionView:
    """One partition's offsets (``app.engine.PartitionOffsets``)."""

    log_start_offset: int
    high_watermark: int
    last_stable_offset: int


@dataclass(frozen=True, slots=True)
class KafkaTopic:
    """A topic as described (``app.engine.TopicView``)."""

    name: str
    config: Mapping[str, int]
    logs: Sequence[PartitionView]
    topic_id: str = ""

    @property
    def partitions(self) -> int:
        return len(self.logs)

    @property
    def deleting(self) -> bool:
        # a deleted topic leaves Kafka's metadata as the controller deletes it
        return False


class KafkaTopics:
    """Topic administration on a Kafka cluster (``cluster`` started). Topics are created with
    ``replication_factor`` replicas (-1: the cluster's ``default.replication.factor``) and at
    most ``max_partitions`` partitions (``SLUICE_MAX_PARTITIONS``)."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        replication_factor: int = -1,
        max_partitions: int = 1000,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> None:
        self.cluster = cluster
        self.replication_factor = replication_factor
        self.max_partitions = max_partitions
        self.timeout_ms = timeout_ms

    # -- reading -------------------------------------------------------------------------------

    async def list(self) -> list[TopicListing]:
        """Every topic of the cluster but Kafka's and the gateway's internal ones, by name."""
        try:
            await self.cluster.refresh_metadata()
        except BrokerError as exc:
            raise to_sluice(exc.code, None, "Metadata") from None
        return sorted(
            TopicListing(t.name, len(t.partitions))
            for t in self.cluster.topics.values()
            if not t.is_internal and not t.name.startswith(GATEWAY_TOPIC_PREFIX)
        )

    async def get(self, name: str) -> KafkaTopic:
        """The topic's description, asked of the cluster now. Raises
        ``UNKNOWN_TOPIC_OR_PARTITION``."""
        return await self._described(name, None)

    async def _described(self, name: str, retries: int | None) -> KafkaTopic:
        """``get``, with ``retries`` for each partition whose leader does not answer for it
        yet, as ``list_offsets`` takes them (a topic just created)."""
        info = await self._learn(name)
        partitions = sorted(info.partitions)

        def offsets(at: int, isolation: int) -> Awaitable[dict[int, Found]]:
            wanted = dict.fromkeys(partitions, at)
            return list_offsets(self.cluster, name, wanted, isolation, retries=retries)

        config, earliest, latest, stable = await asyncio.gather(
            self._describe_config(name),
            offsets(EARLIEST, READ_UNCOMMITTED),
            offsets(LATEST, READ_UNCOMMITTED),
            offsets(LATEST, READ_COMMITTED),
        )
        logs = [
            PartitionView(earliest[p].offset, latest[p].offset, stable[p].offset)
            for p in partitions
        ]
        return KafkaTopic(name, config, logs, str(info.topic_id))

    async def _learn(self, name: str) -> TopicInfo:
        """The topic's partitions as Metadata answers now (never from the cache: another
        gateway may have changed it)."""
        try:
            await self.cluster.refresh_metadata([name])
        except BrokerError as exc:
            raise to_sluice(exc.code, None, "Metadata") from None
        info = self.cluster.topics.get(name)
        if info is None or info.is_internal or info.name.startswith(GATEWAY_TOPIC_PREFIX):
            raise NotFound(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"no topic {name!r}")
        return info

    async def _describe_config(self, name: str) -> dict[str, int]:
        """The contract's keys set on the topic itself (not the broker's defaults)."""
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            DescribeConfigsRequest(
                resources=[
                    DescribeConfigsRequest.DescribeConfigsResource(
                        resource_type=TOPIC_RESOURCE,
                        resource_name=name,
                        configuration_keys=list(CONFIG_NAMES.values()),
                    )
                ]
            )
        )
        (result,) = answer.results
        if result.error_code != NONE:
            raise to_sluice(result.error_code, result.error_message, f"topic {name!r}")
        return contract_config(
            (c.name, c.value) for c in result.configs if c.config_source == DYNAMIC_TOPIC_CONFIG
        )

    # -- changing ------------------------------------------------------------------------------

    async def create(
        self, name: str, partitions: int, config: Mapping[str, int | None]
    ) -> KafkaTopic:
        """CreateTopics, then the new topic's description (dated by the cluster). Raises
        ``INVALID_TOPIC``, ``INVALID_PARTITIONS``, ``INVALID_CONFIG``,
        ``TOPIC_ALREADY_EXISTS``."""
        validate_name(name)
        check_partitions(partitions, self.max_partitions)
        configs = kafka_configs(config)
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            CreateTopicsRequest(
                timeout_ms=self.timeout_ms,
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name=name,
                        num_partitions=partitions,
                        replication_factor=self.replication_factor,
                        configs=[
                            CreateTopicsRequest.CreatableTopicConfig(name=k, value=v)
                            for k, v in configs.items()
                            if v is not None  # null is Kafka's default: nothing to set
                        ],
                    )
                ],
            )
        )
        (result,) = answer.topics
        if result.error_code != NONE:
            raise to_sluice(
                result.error_code, result.error_message, f"topic {name!r}", answer.throttle_time_ms
            )
        return await self._described_when_led(name, partitions)

    async def _described_when_led(self, name: str, partitions: int = 1) -> KafkaTopic:
        """The description of a topic just created or grown to ``partitions``: its new
        partitions may have no leader for a moment, which the cluster's ``leader`` waits out;
        the broker asked may not have the topic, or its new partitions, in its metadata yet
        (CreateTopics and CreatePartitions answer once the controller has them), which is
        asked again. After the retries, the description as the broker has it."""
        for attempt in range(self.cluster.retries + 1):
            last = attempt == self.cluster.retries
            try:
                described = await self._described(name, NEW_PARTITION_RETRIES)
            except NotFound:
                if last:
                    raise
            else:
                if described.partitions >= partitions or last:
                    return described
                self.cluster.topics.pop(name, None)
            await asyncio.sleep(min(self.cluster.retry_backoff * (2**attempt), 1.0))
        raise AssertionError("unreachable")

    async def update(
        self,
        name: str,
        partitions: int | None,
        config: Mapping[str, int | None] | None,
    ) -> KafkaTopic:
        """More partitions (CreatePartitions; never fewer) and config keys
        (IncrementalAlterConfigs; None deletes a key, back to Kafka's default). Both changes
        are first sent with ``validate_only``, so that one Kafka refuses leaves the other
        unmade; another gateway's change between the two can still interleave. Raises
        ``UNKNOWN_TOPIC_OR_PARTITION``, ``INVALID_PARTITIONS``, ``INVALID_CONFIG``."""
        info = await self._learn(name)
        grow = False
        if partitions is not None:
            check_partitions(partitions, self.max_partitions)
            if partitions < len(info.partitions):
                raise InvalidRequest(
                    ErrorCode.INVALID_PARTITIONS,
                    f"partitions can only grow (now {len(info.partitions)})",
                )
            grow = partitions > len(info.partitions)
        configs = kafka_configs(config) if config else {}
        for validate_only in (True, False):
            if configs:
                await self._alter_configs(name, configs, validate_only)
            if grow:
                assert partitions is not None
                await self._create_partitions(name, partitions, validate_only)
        if grow:
            assert partitions is not None
            self.cluster.topics.pop(name, None)
            return await self._described_when_led(name, partitions)
        return await self.get(name)

    async def _alter_configs(
        self, name: str, configs: Mapping[str, str | None], validate_only: bool
    ) -> None:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            IncrementalAlterConfigsRequest(
                validate_only=validate_only,
                resources=[
                    IncrementalAlterConfigsRequest.AlterConfigsResource(
                        resource_type=TOPIC_RESOURCE,
                        resource_name=name,
                        configs=[
                            IncrementalAlterConfigsRequest.AlterableConfig(
                                name=k,
                                config_operation=DELETE if v is None else SET,
                                value=v,
                            )
                            for k, v in configs.items()
                        ],
                    )
                ],
            )
        )
        (result,) = answer.responses
        if result.error_code != NONE:
            raise to_sluice(result.error_code, result.error_message, f"topic {name!r}")

    async def _create_partitions(self, name: str, count: int, validate_only: bool) -> None:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            CreatePartitionsRequest(
                timeout_ms=self.timeout_ms,
                validate_only=validate_only,
                topics=[
                    CreatePartitionsRequest.CreatePartitionsTopic(
                        name=name, count=count, assignments=None
                    )
                ],
            )
        )
        (result,) = answer.results
        if result.error_code != NONE:
            raise to_sluice(
                result.error_code, result.error_message, f"topic {name!r}", answer.throttle_time_ms
            )

    async def delete(self, name: str) -> None:
        """DeleteTopics: answered once the controller has deleted the topic; Kafka's group
        coordinator drops its consumer-group offsets. Raises ``UNKNOWN_TOPIC_OR_PARTITION``."""
        validate_name(name)
        if name.startswith(GATEWAY_TOPIC_PREFIX):
            raise NotFound(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"no topic {name!r}")
        conn = await self.cluster.any_connection()
        version = conn.version(DeleteTopicsRequest)
        if DeleteTopicsRequest.carries("topics", version):
            request = DeleteTopicsRequest(
                timeout_ms=self.timeout_ms, topics=[DeleteTopicsRequest.DeleteTopicState(name=name)]
            )
        else:
            request = DeleteTopicsRequest(timeout_ms=self.timeout_ms, topic_names=[name])
        answer = await conn.send(request)
        self.cluster.topics.pop(name, None)
        (result,) = answer.responses
        if result.error_code != NONE:
            raise to_sluice(
                result.error_code, result.error_message, f"topic {name!r}", answer.throttle_time_ms
            )

    async def delete_records(
        self, topic_name: str, partitions: builtins.list[tuple[int, int]]
    ) -> builtins.list[tuple[int, int]]:
        """DeleteRecords: each ``(partition, offset)``'s log start moved forward (-1: to the
        high watermark), answered ``(partition, log_start_offset)`` in the order given. Raises
        ``UNKNOWN_TOPIC_OR_PARTITION``, ``OFFSET_OUT_OF_RANGE`` (beyond the high watermark)."""
        try:
            info = await self.cluster.topic(topic_name)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"topic {topic_name!r}") from None
        for p, _ in partitions:
            if p not in info.partitions:
                raise NotFound(
                    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                    f"topic {topic_name!r} has no partition {p}",
                )
        if not partitions:
            return []
        # one offset per partition: the last given for a partition named twice wins
        starts = await delete_records(
            self.cluster, topic_name, dict(partitions), timeout_ms=self.timeout_ms
        )
        return [(p, starts[p]) for p, _ in partitions]
