"""Reads by offset on the Kafka backend (docs/kafka.md#reads,
docs/kafka-protocol.md#topics-and-reads): Fetch to a partition's leader, and ListOffsets.

A read is one sessionless Fetch of one partition, at the version the connection chose (topic
ids from version 13), with ``max_bytes`` as the partition's and the request's limit, the
isolation level asked for, and ``max_wait_ms`` as the broker's wait (a long poll: the broker
answers once it has a byte to give or the wait is over). Kafka answers whole batches from the
one holding the offset asked for, the last of them possibly cut short by ``max_bytes``; the
answer here is cut to whole batches, and Fetch having no record limit, to ``max_records``.

- ``format=batches`` (``read_batches``): the batches as the broker sent them, byte for byte,
  in the contract's answer (``app.reads.BatchesAnswer``). As on the embedded engine, control
  batches (the markers) are left out, and under read_committed the batches of aborted
  transactions too: whole batches are dropped, none is changed.
- JSON (``read``): the records decoded with the repository's codec
  (``app.storage.record.decode_records``), from ``offset`` on, in ``app.reads.ReadAnswer``.

Under read_committed the broker stops at the last stable offset and lists the aborted
transactions of what it answered (producer id, first offset); Kafka leaves their removal to
the reader, which follows them as Kafka's own consumer does: a producer's transactional
batches are aborted from its listed first offset until its abort marker.

A Fetch that brings only batches left out (markers, aborted transactions) is followed by
another from past them, at once while the partition holds more below its end (a broker may
answer fewer batches than it holds), then for the rest of a long poll's wait: as the embedded
engine reads on past what it leaves out.

A Fetch that may wait goes on a connection of its own (``PollConnections``), so that one
client's poll of a quiet topic does not hold up the reads of others behind its wait.

The seam's ``Reads.list_offsets`` is synchronous; here it is a request to the leader, and
async (docs/engine.md#kafka-async).
"""

from __future__ import annotations

import asyncio
import heapq
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from app.clock import Clock, SystemClock
from app.errors import CorruptRecordError, ErrorCode, InvalidRequest, NotFound, SluiceError
from app.kafka.cluster import Cluster, PartitionInfo, TopicInfo
from app.kafka.errors_map import to_sluice
from app.kafka.offsets import (
    DEFAULT_TIMEOUT_MS,
    EARLIEST,
    LATEST,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    list_offsets,
)
from app.kafka.poll_connections import PollConnections
from app.kafka.protocol.errors import NONE, BrokerError
from app.kafka.protocol.messages import FetchRequest, FetchResponse
from app.reads import BatchesAnswer, ReadAnswer
from app.storage import record
from app.storage.log import BatchesRead, ReadResult
from app.storage.record import BatchHeader, StoredRecord

Result = TypeVar("Result", ReadResult, BatchesRead)


def parse_at(at: str) -> int:
    """The contract's ``at`` (``earliest``, ``latest`` or a time in ms) as ListOffsets'
    timestamp. Raises ``INVALID_TIMESTAMP`` (negative), ``INVALID_REQUEST`` (anything
    else), as the embedded engine does."""
    if at == "earliest":
        return EARLIEST
    if at == "latest":
        return LATEST
    if at.startswith("-") and at[1:].isascii() and at[1:].isdigit():
        raise InvalidRequest(ErrorCode.INVALID_TIMESTAMP, "at: a timestamp must be ≥ 0")
    if not at.isascii() or not at.isdigit() or len(at) > 18:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "at must be earliest, latest or a timestamp in ms"
        )
    return int(at)


class Batches:
    """The whole batches of a Fetch answer, in order, with what a reader leaves out: control
    batches always, and under read_committed the batches of aborted transactions."""

    def __init__(
        self,
        data: bytes | bytearray | memoryview,
        aborted: list[FetchResponse.AbortedTransaction] | None,
    ) -> None:
        self.data = data
        # (first offset, producer id) of each aborted transaction, the earliest first
        self._pending = sorted((a.first_offset, a.producer_id) for a in aborted or ())
        self._aborting: set[int] = set()

    def __iter__(self) -> BatchIterator:
        return BatchIterator(self)

    def skipped(self, h: BatchHeader) -> bool:
        """Whether the batch ``h`` is left out; called once for each batch, in order."""
        # a producer's transaction is aborted from its first offset on: every one listed at
        # or before this batch's last offset is under way
        while self._pending and self._pending[0][0] <= h.last_offset:
            self._aborting.add(heapq.heappop(self._pending)[1])
        if h.is_control:
            # the abort marker ends the producer's aborted transaction (a commit marker of a
            # producer with none under way changes nothing)
            if h.is_transactional:
                self._aborting.discard(h.producer_id)
            return True
        return h.is_transactional and h.producer_id in self._aborting


class BatchIterator:
    """``(header, position)`` of each whole batch; a batch cut short by the answer's size
    ends the iteration."""

    def __init__(self, batches: Batches) -> None:
        self.data = batches.data
        self.pos = 0

    def __iter__(self) -> BatchIterator:
        return self

    def __next__(self) -> tuple[BatchHeader, int]:
        data, pos = self.data, self.pos
        if len(data) - pos < record.HEADER_SIZE:
            raise StopIteration
        try:
            h = record.read_header(data, pos, compacted=True)
        except CorruptRecordError as exc:
            raise SluiceError(
                ErrorCode.INTERNAL, f"the Kafka cluster answered a corrupt batch: {exc}"
            ) from None
        if pos + h.size > len(data):
            raise StopIteration
        self.pos = pos + h.size
        return h, pos


def cut_records(batches: Batches, offset: int, max_records: int, max_bytes: int) -> ReadResult:
    """The records of whole batches from ``offset`` on, as the embedded log answers a read:
    up to ``max_records`` records and ``max_bytes`` bytes of records (at least one record),
    ``next_offset`` past the last record answered or the last batch left out."""
    out: list[StoredRecord] = []
    result = ReadResult(out, offset)
    total = 0
    data = batches.data
    for h, pos in batches:
        if h.next_offset <= result.next_offset:
            continue
        result.batches.append(h)
        if batches.skipped(h):
            result.next_offset = h.next_offset
            continue
        try:
            record.check_batch(data, pos, compacted=True)
            records = list(record.decode_records(data, pos, h, result.next_offset))
        except CorruptRecordError as exc:
            raise SluiceError(
                ErrorCode.INTERNAL, f"the Kafka cluster answered a corrupt batch: {exc}"
            ) from None
        for r in records:
            size = record.record_size(r)
            if len(out) >= max_records or (out and total + size > max_bytes):
                return result
            total += size
            out.append(r)
            result.next_offset = r.offset + 1
            result.bytes = total
        # every record of the batch is taken: what follows it in a batch that compaction
        # thinned holds none
        result.next_offset = h.next_offset
        if len(out) >= max_records or (out and total >= max_bytes):
            return result
    return result


def cut_batches(batches: Batches, offset: int, max_records: int, max_bytes: int) -> BatchesRead:
    """Whole batches as the broker sent them, from the one holding ``offset`` (its records
    below ``offset`` included: the reader skips them), as the embedded log answers a read of
    batches: until ``max_records`` records from ``offset`` on or ``max_bytes`` bytes (at least
    one batch)."""
    out: list[bytes] = []
    result = BatchesRead(out, offset)
    data = batches.data
    for h, pos in batches:
        if h.next_offset <= result.next_offset:
            continue
        if not batches.skipped(h):
            if out and result.bytes + h.size > max_bytes:
                return result
            out.append(bytes(data[pos : pos + h.size]))
            result.bytes += h.size
            result.records += h.next_offset - max(h.base_offset, result.next_offset)
        result.next_offset = h.next_offset
        if result.records >= max_records:
            return result
    return result


class KafkaReads:
    """Reads by offset on a Kafka cluster (``cluster`` started). ``clock`` measures a long
    poll's wait; ``request_timeout_ms`` is how long a broker may take beyond it."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        clock: Clock | None = None,
        request_timeout_ms: int = DEFAULT_TIMEOUT_MS,
        polls: PollConnections | None = None,
        consumed: Counter[str] | None = None,
    ) -> None:
        self.cluster = cluster
        self.clock: Clock = clock or SystemClock()
        self.request_timeout_ms = request_timeout_ms
        # with ``polls``, a Fetch that may wait goes on a connection of its own, so that the
        # reads of other clients are not held up behind its wait
        self.polls = polls
        # records answered, by topic: the event feed's consume rate (the gateway's engine)
        self.consumed = consumed

    async def read(
        self,
        topic_name: str,
        partition: int,
        offset: int,
        *,
        max_records: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool = False,
    ) -> ReadAnswer:
        """Records from ``offset`` (``committed``: below the last stable offset, without the
        records of aborted transactions), waiting up to ``max_wait_ms`` for some."""
        result, part = await self._polled(
            topic_name,
            partition,
            offset,
            max_bytes,
            max_wait_ms,
            committed,
            lambda b, at: cut_records(b, at, max_records, max_bytes),
            lambda r: len(r.records),
        )
        return ReadAnswer(
            result, part.high_watermark, part.last_stable_offset, part.log_start_offset
        )

    async def read_batches(
        self,
        topic_name: str,
        partition: int,
        offset: int,
        *,
        max_records: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool = False,
    ) -> BatchesAnswer:
        """As ``read``, the batches as the broker sent them (``format=batches``)."""
        result, part = await self._polled(
            topic_name,
            partition,
            offset,
            max_bytes,
            max_wait_ms,
            committed,
            lambda b, at: cut_batches(b, at, max_records, max_bytes),
            lambda r: r.records,
        )
        return BatchesAnswer(
            result, part.high_watermark, part.last_stable_offset, part.log_start_offset
        )

    async def _polled(
        self,
        topic: str,
        partition: int,
        offset: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool,
        cut: Callable[[Batches, int], Result],
        count: Callable[[Result], int],
    ) -> tuple[Result, FetchResponse.PartitionData]:
        """A Fetch, cut; fetched again from past what it left out while it found no records
        and there is more to read or the wait is not over."""
        deadline = self.clock.monotonic() + max_wait_ms / 1000
        at = offset
        while True:
            wait_ms = max(0, round((deadline - self.clock.monotonic()) * 1000))
            part = await self._fetch(topic, partition, at, max_bytes, wait_ms, committed)
            result = cut(Batches(part.records or b"", part.aborted_transactions), at)
            if result.next_offset == at or count(result):
                if self.consumed is not None:
                    self.consumed[topic] += count(result)
                return result, part  # records, or nothing at all (the wait ended)
            # only batches left out came (markers, aborted transactions). A broker may answer
            # fewer batches than it holds below its end: read on from past them at once while
            # there is more, then for the rest of the wait
            end = part.last_stable_offset if committed else part.high_watermark
            if result.next_offset >= end and (wait_ms == 0 or self.clock.monotonic() >= deadline):
                return result, part  # only batches left out: no record to count
            at = result.next_offset

    async def _fetch(
        self,
        topic: str,
        partition: int,
        offset: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool,
    ) -> FetchResponse.PartitionData:
        """One Fetch of one partition to its leader; a stale leader or topic id is learned
        again and the Fetch sent again, up to the cluster's retries."""

        def build(t: TopicInfo, p: PartitionInfo) -> FetchRequest:
            return FetchRequest(
                max_wait_ms=max_wait_ms,
                min_bytes=1 if max_wait_ms > 0 else 0,
                max_bytes=max_bytes,
                isolation_level=READ_COMMITTED if committed else READ_UNCOMMITTED,
                topics=[
                    FetchRequest.FetchTopic(
                        topic=t.name,
                        topic_id=t.topic_id,
                        partitions=[
                            FetchRequest.FetchPartition(
                                partition=p.partition,
                                current_leader_epoch=p.leader_epoch,
                                fetch_offset=offset,
                                partition_max_bytes=max_bytes,
                            )
                        ],
                    )
                ],
            )

        # the broker may hold the answer for the whole wait before it answers
        timeout = (self.request_timeout_ms + max_wait_ms) / 1000
        where = f"{topic}-{partition}"
        cluster = self.cluster
        for attempt in range(cluster.retries + 1):
            try:
                info, p = await cluster.leader(topic, partition)
            except BrokerError as exc:
                raise to_sluice(exc.code, None, where) from None
            if self.polls is not None and max_wait_ms > 0:
                async with self.polls.lease(p.leader_id) as conn:
                    answer = await conn.send(build(info, p), timeout=timeout)
            else:
                conn = await cluster.connection(p.leader_id)
                answer = await conn.send(build(info, p), timeout=timeout)
            code = answer.error_code
            part: FetchResponse.PartitionData | None = None
            if code == NONE:
                for t in answer.responses:
                    for candidate in t.partitions:
                        if candidate.partition_index == partition:
                            part = candidate
                if part is None:
                    raise to_sluice(-1, "the Fetch answer names no such partition", where)
                code = part.error_code
            if code == NONE and part is not None:
                return part
            if not cluster.stale(topic, code) or attempt == cluster.retries:
                raise to_sluice(code, None, where, answer.throttle_time_ms)
            await _backoff(cluster, attempt)
        raise AssertionError("unreachable")

    async def list_offsets(
        self, topic_name: str, partition: int, at: str, committed: bool = False
    ) -> tuple[int, int]:
        """``(offset, timestamp)`` at ``earliest``, ``latest`` (the last stable offset under
        ``committed``) or the first record at a time (ms); ``(-1, -1)`` when no record is that
        late. Raises ``INVALID_TIMESTAMP``, ``INVALID_REQUEST``,
        ``UNKNOWN_TOPIC_OR_PARTITION``."""
        timestamp = parse_at(at)
        try:
            info = await self.cluster.topic(topic_name)
        except BrokerError as exc:
            raise to_sluice(exc.code, None, f"topic {topic_name!r}") from None
        if partition not in info.partitions:
            raise NotFound(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                f"topic {topic_name!r} has no partition {partition}",
            )
        found = await list_offsets(
            self.cluster,
            topic_name,
            {partition: timestamp},
            READ_COMMITTED if committed else READ_UNCOMMITTED,
            timeout_ms=self.request_timeout_ms,
        )
        offset, ts = found[partition]
        if timestamp < 0:
            return offset, -1  # the contract answers no time for the ends
        return (offset, ts) if offset >= 0 else (-1, -1)


async def _backoff(cluster: Cluster, attempt: int) -> None:
    # as the cluster backs off: doubling from its retry_backoff, at most a second
    await asyncio.sleep(min(cluster.retry_backoff * (2**attempt), 1.0))
