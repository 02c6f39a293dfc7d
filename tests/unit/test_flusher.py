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


async def test_a_cancelled_round_finishes_its_fsyncs_and_serves_its_waiters(
    tmp_path: Path,
) -> None:
    """The flusher task stopped in the middle of a round (at shutdown): the fsyncs under way
    finish (no later round may overlap them), its waiters are answered, then the round ends
    cancelled; the final round of ``close`` finds nothing left."""
    flusher, lg, _ = make(tmp_path)
    loop = asyncio.get_running_loop()
    flush = lg.flush
    entered = asyncio.Event()

    def slow_flush(ticket: object, *, checkpoint: bool = True) -> None:
        loop.call_soon_threadsafe(entered.set)
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0.01), loop).result()
        flush(ticket, checkpoint=checkpoint)  # type: ignore[arg-type]

    lg.append([Record(1, None, b"x")], now_ms=0)
    waiter = asyncio.create_task(flusher.wait_durable([lg]))
    await asyncio.sleep(0)
    lg.flush = slow_flush  # type: ignore[method-assign]
    round_ = asyncio.create_task(flusher.flush_round())
    await asyncio.wait_for(entered.wait(), 5)  # the fsync thread is at work
    round_.cancel()
    results = await asyncio.gather(round_, return_exceptions=True)
    del lg.flush
    assert isinstance(results[0], asyncio.CancelledError)
    assert waiter.done() and waiter.exception() is None
    assert lg.high_watermark == 1
    rounds = flusher.stats.rounds
    await asyncio.wait_for(flusher.close(), 5)
    assert flusher.stats.rounds == rounds  # nothing was left for the final round
    lg.close(clean=True)


async def test_one_round_fsyncs_several_logs(tmp_path: Path) -> None:
    flusher, _, woken = make(tmp_path)
    logs = [
        PartitionLog(str(tmp_path / f"q{i}"), LogConfig(), durable_reads=True) for i in range(12)
    ]
    for i, lg in enumerate(logs):
        lg.append([Record(i, None, b"x")], now_ms=0)
    flusher.mark_dirty(logs)
    await flusher.flush_round()
    assert flusher.stats.rounds == 1 and flusher.stats.fsyncs == 12
    assert all(lg.high_watermark == 1 for lg in logs)
    assert set(woken) == set(logs)
    await flusher.close()
    for lg in logs:
        lg.close(clean=True)
