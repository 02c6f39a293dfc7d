"""Requests a partition's leader answers for several partitions at once, sent by leader
(docs/kafka-protocol.md#topics-and-reads): ListOffsets and DeleteRecords.

The partitions asked about are grouped by their leader, as the cluster knows it, and each
leader gets one request for its partitions, the leaders side by side. A partition whose answer
says the cached metadata is stale (a leader that moved, a topic id learned anew) is asked
again, after the topic is learned again, up to the cluster's ``retries``; any other error of a
partition is answered through ``app.kafka.errors_map``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple, TypeVar

from app.kafka.cluster import Cluster, PartitionInfo, TopicInfo
from app.kafka.errors_map import to_sluice
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    ListOffsetsRequest,
    ListOffsetsResponse,
)

R = TypeVar("R", bound=Response)
T = TypeVar("T")

# ListOffsets' special timestamps
EARLIEST = -2
LATEST = -1
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
CONSUMER_REPLICA_ID = -1  # a client, not a follower: ListOffsets' replica_id
DEFAULT_TIMEOUT_MS = 30_000


class Found(NamedTuple):
    """ListOffsets' answer for one partition."""

    offset: int
    timestamp: int


async def by_leader(
    cluster: Cluster,
    topic: str,
    partitions: Sequence[int],
    build: Callable[[TopicInfo, list[PartitionInfo]], Request[R]],
    results_of: Callable[[R], Iterable[tuple[int, int, T]]],
    retries: int | None = None,
) -> dict[int, T]:
    """For each partition of ``partitions``, the value ``results_of`` reads from its leader's
    answer (``(partition, error code, value)`` per partition) to the request ``build`` makes
    for that leader's partitions. Raises the contract's error of the first partition that
    failed otherwise than by stale metadata, or still stale after the retries (the
    cluster's, unless ``retries`` says how many)."""
    if retries is None:
        retries = cluster.retries
    remaining = list(dict.fromkeys(partitions))
    out: dict[int, T] = {}
    for attempt in range(retries + 1):
        groups: dict[int, tuple[TopicInfo, list[PartitionInfo]]] = {}
        for p in remaining:
            try:
                info, part = await cluster.leader(topic, p)
            except BrokerError as exc:
                raise to_sluice(exc.code, None, f"{topic}-{p}") from None
            groups.setdefault(part.leader_id, (info, []))[1].append(part)

        async def ask(node_id: int, info: TopicInfo, parts: list[PartitionInfo]) -> R:
            conn = await cluster.connection(node_id)
            return await conn.send(build(info, parts))

        answers = await asyncio.gather(
            *(ask(node, info, parts) for node, (info, parts) in groups.items())
        )
        stale: list[int] = []
        for answer in answers:
            for p, code, value in results_of(answer):
                if code == NONE:
                    out[p] = value
                elif cluster.stale(topic, code) and attempt < retries:
                    stale.append(p)
                else:
                    raise to_sluice(code, None, f"{topic}-{p}")
        missing = [p for p in remaining if p not in out and p not in stale]
        if missing:
            raise to_sluice(-1, "no answer for the partition", f"{topic}-{missing[0]}")
        if not stale:
            return out
        remaining = stale
        # as the cluster backs off: doubling from its retry_backoff, at most a second
        await asyncio.sleep(min(cluster.retry_backoff * (2**attempt), 1.0))
    raise AssertionError("unreachable")


async def list_offsets(
    cluster: Cluster,
    topic: str,
    timestamps: Mapping[int, int],
    isolation_level: int = READ_UNCOMMITTED,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    retries: int | None = None,
) -> dict[int, Found]:
    """ListOffsets for each ``partition: timestamp`` (``EARLIEST``, ``LATEST`` or a time in
    ms): the offset and timestamp the leader answers (-1, -1 for a time past every record);
    ``retries`` as ``by_leader`` takes them."""

    def build(info: TopicInfo, parts: list[PartitionInfo]) -> ListOffsetsRequest:
        return ListOffsetsRequest(
            replica_id=CONSUMER_REPLICA_ID,
            isolation_level=isolation_level,
            timeout_ms=timeout_ms,
            topics=[
                ListOffsetsRequest.ListOffsetsTopic(
                    name=info.name,
                    partitions=[
                        ListOffsetsRequest.ListOffsetsPartition(
                            partition_index=p.partition,
                            current_leader_epoch=p.leader_epoch,
                            timestamp=timestamps[p.partition],
                        )
                        for p in parts
                    ],
                )
            ],
        )

    def results(answer: ListOffsetsResponse) -> Iterable[tuple[int, int, Found]]:
        for t in answer.topics:
            for p in t.partitions:
                yield p.partition_index, p.error_code, Found(p.offset, p.timestamp)

    return await by_leader(cluster, topic, list(timestamps), build, results, retries)


async def delete_records(
    cluster: Cluster,
    topic: str,
    offsets: Mapping[int, int],
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> dict[int, int]:
    """DeleteRecords for each ``partition: offset`` (-1: the high watermark): the partition's
    log start offset (its low watermark) once the leader moved it."""

    def build(info: TopicInfo, parts: list[PartitionInfo]) -> DeleteRecordsRequest:
        return DeleteRecordsRequest(
            timeout_ms=timeout_ms,
            topics=[
                DeleteRecordsRequest.DeleteRecordsTopic(
                    name=info.name,
                    partitions=[
                        DeleteRecordsRequest.DeleteRecordsPartition(
                            partition_index=p.partition, offset=offsets[p.partition]
                        )
                        for p in parts
                    ],
                )
            ],
        )

    def results(answer: DeleteRecordsResponse) -> Iterable[tuple[int, int, int]]:
        for t in answer.topics:
            for p in t.partitions:
                yield p.partition_index, p.error_code, p.low_watermark

    return await by_leader(cluster, topic, list(offsets), build, results)
