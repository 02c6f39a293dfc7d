"""Group commit: writes that arrive together share one fsync round, run in a thread.

A producer appends on the event loop (page cache), then awaits ``wait_durable``. The flusher
task takes everything pending at that moment, fsyncs it in its own thread while new appends
queue up for the next round, moves the high watermarks and wakes the waiters. With
``fsync=interval`` nobody waits: the flusher fsyncs the dirty logs every interval.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from app.clock import Clock
from app.errors import ErrorCode, Unavailable
from app.storage.log import FlushTicket, PartitionLog

log = logging.getLogger("sluice.flusher")


@dataclass(slots=True)
class FlushStatistics:
    rounds: int = 0
    fsyncs: int = 0
    waiters_served: int = 0
    last_round_ms: float = 0.0
    total_round_ms: float = 0.0


class Flusher:
    def __init__(self, *, always: bool, interval_ms: int, checkpoint_interval_ms: int,
                 clock: Clock, on_durable: Callable[[PartitionLog], None]) -> None:
        self.always = always
        self.interval_ms = interval_ms
        self.checkpoint_interval_ms = checkpoint_interval_ms
        self.clock = clock
        self.on_durable = on_durable
        self.stats = FlushStatistics()
        self.observe_round: Callable[[float], None] = lambda seconds: None
        self._dirty: dict[PartitionLog, None] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sluice-fsync")
        self._last_checkpoint: dict[PartitionLog, float] = {}
        self._closed = False

    def mark_dirty(self, logs: Iterable[PartitionLog]) -> None:
        for lg in logs:
            self._dirty[lg] = None

    async def wait_durable(self, logs: Iterable[PartitionLog]) -> None:
        """Return once everything appended so far to ``logs`` is durable (fsync=always)."""
        self.mark_dirty(logs)
        if not self.always:
            return
        if self._closed:
            raise Unavailable(ErrorCode.NOT_READY, "the server is stopping")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        self._wake.set()
        await fut

    async def run(self) -> None:
        """The flusher task: one round per wake-up (always) or per interval."""
        while True:
            if self.always:
                await self._wake.wait()
                self._wake.clear()
            else:
                await asyncio.sleep(self.interval_ms / 1000)
            await self.flush_round()

    async def flush_round(self, *, checkpoint_all: bool = False) -> None:
        async with self._lock:
            logs, self._dirty = list(self._dirty), {}
            waiters, self._waiters = self._waiters, []
            if not logs and not waiters:
                return
            now = self.clock.monotonic()
            tickets: list[tuple[PartitionLog, FlushTicket, bool]] = []
            for lg in logs:
                due = checkpoint_all or (
                    now - self._last_checkpoint.get(lg, -1e18)
                    >= self.checkpoint_interval_ms / 1000
                )
                ticket = lg.prepare_flush(snapshot=due)
                if ticket is not None:
                    if due:
                        self._last_checkpoint[lg] = now
                    tickets.append((lg, ticket, due))
            started = self.clock.monotonic()
            try:
                await asyncio.get_running_loop().run_in_executor(
                    self._executor, _flush_all, tickets
                )
            except OSError as exc:
                log.error("fsync failed: %s", exc)
                for lg, ticket, _ in tickets:
                    lg.abort_flush(ticket)
                    self._dirty[lg] = None
                error = Unavailable(ErrorCode.STORAGE_ERROR, f"fsync failed: {exc}")
                for fut in waiters:
                    if not fut.done():
                        fut.set_exception(error)
                return
            elapsed = self.clock.monotonic() - started
            self.stats.rounds += 1
            self.stats.fsyncs += sum(len(t.segments) for _, t, _ in tickets)
            self.stats.waiters_served += len(waiters)
            self.stats.last_round_ms = elapsed * 1000
            self.stats.total_round_ms += elapsed * 1000
            self.observe_round(elapsed)
            for lg, ticket, _ in tickets:
                if lg.complete_flush(ticket):
                    self.on_durable(lg)
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

    def forget(self, lg: PartitionLog) -> None:
        """Stop tracking a log that is being closed (call while holding ``exclusive``)."""
        self._dirty.pop(lg, None)
        self._last_checkpoint.pop(lg, None)

    def exclusive(self) -> asyncio.Lock:
        """Held while no flush round runs: for closing or deleting segments."""
        return self._lock

    async def close(self) -> None:
        """Final round, then refuse new waiters."""
        await self.flush_round(checkpoint_all=True)
        self._closed = True
        self._executor.shutdown(wait=True)


def _flush_all(tickets: list[tuple[PartitionLog, FlushTicket, bool]]) -> None:
    for lg, ticket, checkpoint in tickets:
        lg.flush(ticket, checkpoint=checkpoint)
