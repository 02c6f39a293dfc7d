"""Group commit: concurrent writers share fsync rounds; the high watermark moves only after."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.clock import FakeClock
from app.flusher import Flusher
from app.storage.log import LogConfig, PartitionLog
from app.storage.record import Record


def make(tmp_path: Path, always: bool = True) -> tuple[Flusher, PartitionLog, list[PartitionLog]]:
    woken: list[PartitionLog] = []
    flusher = Flusher(always=always, interval_ms=10, checkpoint_interval_ms=1000, clock=FakeClock())
    flusher.subscribe(woken.append)
    lg = PartitionLog(str(tmp_path / "p0"), LogConfig(), durable_reads=always)
    return flusher, lg, woken


async def test_concurrent_writers_share_fsync_rounds(tmp_path: Path) -> None:
    flusher, lg, woken = make(tmp_path)
    task = asyncio.create_task(flusher.run())

    async def write(i: int) -> None:
        lg.append([Record(i, None, b"x")], now_ms=0)
        await flusher.wait_durable([lg])
        assert lg.high_watermark >= i + 1  # our record is visible once we are answered

    await asyncio.gather(*(write(i) for i in range(200)))
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await flusher.close()
    assert lg.high_watermark == 200
    assert 1 <= flusher.stats.rounds < 200, "writers that arrive together share a round"
    assert flusher.stats.waiters_served == 200
    assert woken and woken[-1] is lg
    lg.close(clean=True)


async def test_high_watermark_waits_for_the_flush(tmp_path: Path) -> None:
    flusher, lg, _ = make(tmp_path)
    lg.append([Record(1, None, b"x")], now_ms=0)
    assert lg.log_end_offset == 1
    assert lg.high_watermark == 0
    assert lg.read(0, 10, 1 << 20).records == []
    await flusher.flush_round()  # nothing was marked dirty: nothing to do
    assert lg.high_watermark == 0
    flusher.mark_dirty([lg])
    await flusher.flush_round()
    assert lg.high_watermark == 1
    assert [r.value for r in lg.read(0, 10, 1 << 20).records] == [b"x"]
    await flusher.close()
    lg.close(clean=True)


async def test_interval_mode_answers_without_waiting(tmp_path: Path) -> None:
    flusher, lg, _ = make(tmp_path, always=False)
    lg.append([Record(1, None, b"x")], now_ms=0)
    await asyncio.wait_for(flusher.wait_durable([lg]), 1)
    assert lg.high_watermark == 1  # visible at once; fsynced by the next interval round
    assert flusher.stats.rounds == 0
    await flusher.close()
    assert flusher.stats.rounds == 1
    lg.close(clean=True)


async def test_interval_mode_forced_wait_fsyncs_before_answering(tmp_path: Path) -> None:
    """``force`` (transaction markers) makes a write durable now even under fsync=interval,
    with no flusher task running: the caller's own round does it."""
    flusher, lg, _ = make(tmp_path, always=False)
    lg.append([Record(1, None, b"x")], now_ms=0)
    await asyncio.wait_for(flusher.wait_durable([lg], force=True), 5)
    assert flusher.stats.rounds == 1 and flusher.stats.waiters_served == 1
    assert lg._durable_offset == 1
    await flusher.close()
    lg.close(clean=True)
