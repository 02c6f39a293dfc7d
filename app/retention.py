"""Retention: delete-records (log starts moved by request) and the retention sweep.

Moving a log start is made durable first (the log-start file), then applied in memory, one
move at a time per log; a failed write changes nothing. The sweep deletes whole sealed segments
past their topic's retention time or size, or wholly below the log start, while no flush round
runs (``Flusher.exclusive``).
"""

from __future__ import annotations

import asyncio
import logging

from app.clock import Clock
from app.errors import Conflict, ErrorCode
from app.flusher import Flusher
from app.storage.log import PartitionLog
from app.topics import TopicRegistry

log = logging.getLogger("sluice.retention")


class Retention:
    def __init__(
        self, topics: TopicRegistry, flusher: Flusher, clock: Clock, check_interval_ms: int
    ) -> None:
        self.topics = topics
        self.flusher = flusher
        self.clock = clock
        self.check_interval_ms = check_interval_ms
        self._moving: dict[PartitionLog, asyncio.Lock] = {}

    async def delete_records(
        self, topic_name: str, partitions: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """Move log starts forward to each (partition, before offset; -1 = the high
        watermark); answers (partition, new log start offset). Every target is checked
        before anything moves."""
        topic = self.topics.get(topic_name)
        targets: list[tuple[PartitionLog, int, int]] = []
        for p, before in partitions:
            lg = topic.log(p)
            offset = lg.high_watermark if before == -1 else before
            if not 0 <= offset <= lg.high_watermark:
                raise Conflict(
                    ErrorCode.OFFSET_OUT_OF_RANGE,
                    f"partition {p}: before_offset {before} is beyond the high "
                    f"watermark {lg.high_watermark}",
                )
            targets.append((lg, p, offset))
        out = []
        for lg, p, offset in targets:
            async with self._moving.setdefault(lg, asyncio.Lock()):
                if offset > lg.log_start_offset:
                    await asyncio.to_thread(lg.persist_log_start, offset)
                    lg.advance_log_start(offset)
            out.append((p, lg.log_start_offset))
        await self.apply()
        return out

    async def apply(self) -> int:
        """Delete whole segments past retention or below the log start; returns how many."""
        now = self.clock.now_ms()
        deleted = 0
        for topic in list(self.topics.topics.values()):
            if topic.deleting:
                continue
            for lg in topic.logs:
                if lg.active_expired(now):
                    lg.roll(now)
                doomed = lg.deletable_segments(now)
                if doomed:
                    async with self.flusher.exclusive():
                        lg.remove_segments(doomed)
                    deleted += len(doomed)
        return deleted

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.check_interval_ms / 1000)
            n = await self.apply()
            if n:
                log.info("retention deleted %d segments", n)
