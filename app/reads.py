"""Reads: records by offset with long polls, and ListOffsets.

A read answers at once when records are there; otherwise it parks on a future per partition
log until new data is published (the flusher's subscribers: after the fsync round under
fsync=always, at append under fsync=interval), the wait ends, or the server stops. Reads see
only what is durable under fsync=always (the high watermark moves after the fsync).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.clock import Clock
from app.errors import Conflict, ErrorCode, InvalidRequest
from app.metrics import Counter
from app.storage.log import BatchesRead, PartitionLog, ReadResult
from app.topics import TopicRegistry

Result = TypeVar("Result", ReadResult, BatchesRead)


@dataclass(slots=True)
class ReadAnswer:
    result: ReadResult
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int


@dataclass(slots=True)
class BatchesAnswer:
    result: BatchesRead
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int


class Reads:
    def __init__(self, topics: TopicRegistry, clock: Clock, records_out: Counter) -> None:
        self.topics = topics
        self.clock = clock
        self.records_out = records_out
        self._waiters: dict[PartitionLog, list[asyncio.Future[None]]] = {}
        self.stopping = False

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
        """Records from ``offset``, waiting up to ``max_wait_ms`` for some."""
        result, lg = await self._polled(
            topic_name,
            partition,
            offset,
            max_wait_ms,
            lambda lg, at: lg.read(at, max_records, max_bytes, committed=committed),
            lambda r: len(r.records),
        )
        return ReadAnswer(result, lg.high_watermark, lg.last_stable_offset, lg.log_start_offset)

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
        """``read``, answering the batches as stored (``PartitionLog.read_batches``)."""
        result, lg = await self._polled(
            topic_name,
            partition,
            offset,
            max_wait_ms,
            lambda lg, at: lg.read_batches(at, max_records, max_bytes, committed=committed),
            lambda r: r.records,
        )
        return BatchesAnswer(result, lg.high_watermark, lg.last_stable_offset, lg.log_start_offset)

    async def _polled(
        self,
        topic_name: str,
        partition: int,
        offset: int,
        max_wait_ms: int,
        read: Callable[[PartitionLog, int], Result],
        count: Callable[[Result], int],
    ) -> tuple[Result, PartitionLog]:
        """A read (``read(log, offset)``) answered at once when it finds records, else again as
        new data comes, until ``max_wait_ms`` passes or the server stops (a long poll)."""
        topic = self.topics.get(topic_name)
        lg = topic.log(partition)
        if offset < lg.log_start_offset or offset > lg.high_watermark:
            raise Conflict(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"offset {offset} is outside [{lg.log_start_offset}, {lg.high_watermark}]",
            )
        result = read(lg, offset)
        if not count(result) and max_wait_ms > 0:
            deadline = self.clock.monotonic() + max_wait_ms / 1000
            while not count(result) and not self.stopping:
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0:
                    break
                await self._wait_for_data(lg, remaining)
                topic = self.topics.get(topic_name)
                lg = topic.log(partition)
                if result.next_offset < lg.log_start_offset:
                    break
                result = read(lg, result.next_offset)
        n = count(result)
        self.records_out.inc(n)
        topic.consumed += n
        return result, lg

    async def _wait_for_data(self, lg: PartitionLog, timeout: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._waiters.setdefault(lg, [])
        waiters.append(fut)
        try:
            await asyncio.wait([fut], timeout=timeout)
        finally:
            if fut in waiters:
                waiters.remove(fut)

    def waiting(self, lg: PartitionLog) -> int:
        """How many long polls wait on ``lg``."""
        return len(self._waiters.get(lg, ()))

    def on_new_data(self, lg: PartitionLog) -> None:
        """New records in ``lg`` (a flusher subscriber): wake every read waiting on it."""
        for fut in self._waiters.pop(lg, None) or ():
            if not fut.done():
                fut.set_result(None)

    def begin_shutdown(self) -> None:
        """Release every long poll: they answer what they have."""
        self.stopping = True
        for waiters in self._waiters.values():
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

    async def list_offsets(
        self, topic_name: str, partition: int, at: str, committed: bool = False
    ) -> tuple[int, int]:
        """ListOffsets: (offset, timestamp) for earliest, latest or a timestamp; "latest" is
        the last stable offset under read_committed. Answered from memory without awaiting
        (``async`` as the seam's, which is a request to the leader on Kafka)."""
        lg = self.topics.get(topic_name).log(partition)
        if at == "earliest":
            return lg.log_start_offset, -1
        if at == "latest":
            return (lg.last_stable_offset if committed else lg.high_watermark), -1
        if at.startswith("-") and at[1:].isascii() and at[1:].isdigit():
            raise InvalidRequest(ErrorCode.INVALID_TIMESTAMP, "at: a timestamp must be ≥ 0")
        if not at.isascii() or not at.isdigit() or len(at) > 18:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "at must be earliest, latest or a timestamp in ms"
            )
        found = lg.offset_for_timestamp(int(at), upto=lg.last_stable_offset if committed else None)
        return found if found is not None else (-1, -1)
