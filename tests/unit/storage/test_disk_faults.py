"""Full disks and I/O errors through the file-layer seam (``app.storage.fileio``): a failed
append or fsync changes nothing acknowledged, leaves no torn bytes, and the log goes on."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.clock import FakeClock
from app.errors import ErrorCode, StorageError
from app.flusher import Flusher
from app.producers.manager import AppendPlan, ProducerStateManager
from app.storage import fileio
from app.storage.health import StorageHealth
from app.storage.log import LogConfig, PartitionLog
from app.storage.record import Record

CFG = LogConfig(segment_bytes=4096, index_interval_bytes=256, retention_ms=-1)


@pytest.fixture(autouse=True)
def no_fault_left() -> Iterator[None]:
    yield
    fileio.remove()


def open_log(path: Path, health: StorageHealth | None = None) -> PartitionLog:
    return PartitionLog(
        str(path),
        CFG,
        durable_reads=True,
        producer_state=ProducerStateManager(),
        health=health,
    )


def batch(i: int, n: int = 3) -> list[Record]:
    return [Record(i * 10 + j, f"k{i}".encode(), f"value-{i}-{j}".encode() * 5) for j in range(n)]


def values(lg: PartitionLog) -> list[bytes]:
    return [r.value or b"" for r in lg.read(0, 10_000, 1 << 24).records]


def flush(lg: PartitionLog) -> None:
    ticket = lg.prepare_flush(snapshot=True)
    assert ticket is not None
    lg.flush(ticket)
    lg.complete_flush(ticket)


def state(lg: PartitionLog) -> tuple[object, ...]:
    """Everything an append may change, on disk and in memory."""
    files = {
        name: os.path.getsize(os.path.join(lg.directory, name))
        for name in sorted(os.listdir(lg.directory))
        if name.endswith((".log", ".index"))
    }
    seg = lg.active
    return (
        files,
        lg.log_end_offset,
        lg.high_watermark,
        [(s.base_offset, s.size, s.next_offset) for s in lg.segments],
        list(seg.index.offsets),
        seg.max_timestamp,
    )


def fill(lg: PartitionLog, n: int) -> list[bytes]:
    out: list[bytes] = []
    for i in range(n):
        lg.append(batch(i), now_ms=0)
        out.extend(f"value-{i}-{j}".encode() * 5 for j in range(3))
    flush(lg)
    return out


def test_the_seam_is_the_os_itself_when_no_fault_is_installed() -> None:
    assert fileio.write is os.write
    assert fileio.fsync is os.fsync
    assert fileio.ftruncate is os.ftruncate
    fileio.install(fileio.Fault("write"))
    assert fileio.write is not os.write
    fileio.remove()
    assert fileio.write is os.write
    with pytest.raises(ValueError, match="unknown"):
        fileio.install(fileio.Fault("rename"))


@pytest.mark.parametrize(
    "fault",
    [
        fileio.Fault("write", errno.ENOSPC, suffix=".log"),
        fileio.Fault("write", errno.EIO, suffix=".log"),
        fileio.Fault("write", errno.ENOSPC, partial=17, suffix=".log"),
        fileio.Fault("write", errno.ENOSPC, partial=40, short=True, suffix=".log"),
    ],
    ids=["enospc", "eio", "torn", "short"],
)
def test_a_failed_append_changes_nothing_and_the_next_one_succeeds(
    tmp_path: Path, fault: fileio.Fault
) -> None:
    health = StorageHealth()
    lg = open_log(tmp_path / "p", health)
    expected = fill(lg, 30)  # several segments, index entries
    before = state(lg)
    fileio.install(fault)
    with pytest.raises(StorageError) as caught:
        lg.append(batch(99), now_ms=0)
    assert caught.value.code is ErrorCode.KAFKA_STORAGE_ERROR
    assert caught.value.code.status == 507 and caught.value.code.retriable
    assert caught.value.to_dict()["kafka_code"] == 56
    assert fault.failures == 1
    assert state(lg) == before, "the log, its index and its offsets are as before"
    assert health.failing and health.errors == 1
    # the next append goes where the failed one would have
    lg.append(batch(30), now_ms=0)
    assert not health.failing
    flush(lg)
    expected += [f"value-30-{j}".encode() * 5 for j in range(3)]
    assert values(lg) == expected
    lg.close(clean=False)
    again = open_log(tmp_path / "p")
    assert again.recovered_bytes_truncated == 0
    assert values(again) == expected
    again.close(clean=True)


def test_torn_bytes_that_cannot_be_cut_at_once_are_cut_before_the_next_append(
    tmp_path: Path,
) -> None:
    lg = open_log(tmp_path / "p")
    expected = fill(lg, 3)
    size = lg.active.size
    fileio.install(
        fileio.Fault("write", errno.EIO, partial=25, suffix=".log"),
        fileio.Fault("ftruncate", errno.EIO, suffix=".log"),
    )
    with pytest.raises(StorageError):
        lg.append(batch(9), now_ms=0)
    assert os.path.getsize(lg.active.log_path) == size + 25  # the cut failed as well
    assert lg.active.size == size and lg.log_end_offset == 9
    assert values(lg) == expected  # readers never see the torn bytes
    fileio.remove()
    lg.append(batch(3), now_ms=0)
    flush(lg)
    expected += [f"value-3-{j}".encode() * 5 for j in range(3)]
    assert values(lg) == expected
    lg.close(clean=False)
    again = open_log(tmp_path / "p")
    assert again.recovered_bytes_truncated == 0 and values(again) == expected
    again.close(clean=True)


@pytest.mark.parametrize("cut_fails", [False, True], ids=["cut", "cut-fails"])
def test_a_failed_index_write_does_not_fail_the_append(tmp_path: Path, cut_fails: bool) -> None:
    lg = open_log(tmp_path / "p")
    faults = [fileio.Fault("write", errno.ENOSPC, partial=5, sticky=True, suffix=".index")]
    if cut_fails:
        faults.append(fileio.Fault("ftruncate", errno.EIO, sticky=True, suffix=".index"))
    fileio.install(*faults)
    expected = fill(lg, 40)
    fileio.remove()
    assert len(lg.segments) > 1
    assert values(lg) == expected
    lg.close(clean=False)
    again = open_log(tmp_path / "p")  # a short or torn index is rebuilt, nothing is lost
    assert again.recovered_bytes_truncated == 0 and values(again) == expected
    assert again.read(40, 10, 1 << 20).records[0].value == expected[40]
    again.close(clean=True)


def test_a_failed_checkpoint_write_keeps_the_data_durable(tmp_path: Path) -> None:
    health = StorageHealth()
    lg = open_log(tmp_path / "p", health)
    lg.append(batch(0), now_ms=0)
    fileio.install(fileio.Fault("write", errno.ENOSPC, sticky=True, suffix=".tmp"))
    flush(lg)  # the segment's fsync worked: the records are durable and visible
    assert lg.high_watermark == 3 and health.errors == 1
    assert not [n for n in os.listdir(lg.directory) if n.endswith(".tmp")], "no half copy left"
    lg.close(clean=False)


async def test_a_failed_fsync_reverts_the_log_to_its_durable_end(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    health = StorageHealth()
    flusher = Flusher(always=True, interval_ms=10, checkpoint_interval_ms=0, clock=FakeClock())
    task = asyncio.create_task(flusher.run())
    lg = open_log(tmp_path / "p", health)
    other = open_log(tmp_path / "q", health)
    producers = lg.producer_state
    assert isinstance(producers, ProducerStateManager)

    def produce(seq: int) -> None:
        plan = producers.prepare(7, 0, seq, 3, False)
        assert isinstance(plan, AppendPlan)
        info = lg.append(batch(seq), now_ms=0, producer_id=7, producer_epoch=0, base_sequence=seq)
        producers.commit(plan, info.base_offset, info.last_offset, 0)

    produce(0)
    await flusher.wait_durable([lg])  # acknowledged
    acked = values(lg)
    produce(3)
    other.append(batch(1), now_ms=0)
    fileio.install(fileio.Fault("fsync", errno.EIO, suffix=f"p{os.sep}00000000000000000000.log"))
    caplog.set_level(logging.WARNING, "sluice")
    results = await asyncio.gather(
        flusher.wait_durable([lg]), flusher.wait_durable([other]), return_exceptions=True
    )
    assert isinstance(results[0], StorageError)
    assert results[0].code is ErrorCode.KAFKA_STORAGE_ERROR
    assert results[1] is None, "a log whose fsync worked answers its writers"
    assert other.high_watermark == 3
    # nothing whose fsync failed stays: the log, and the producer's sequence, are as acknowledged
    assert lg.log_end_offset == 3 and lg.high_watermark == 3
    assert os.path.getsize(lg.active.log_path) == lg.active.size
    assert values(lg) == acked
    assert producers.entries[7].batches[-1].last_seq == 2
    assert health.errors == 1  # (the other log's fsync worked: the episode is already over)
    assert any("dropped offsets 3 to 5" in r.getMessage() for r in caplog.records)
    fileio.remove()
    produce(3)  # the producer's retry is appended again, not taken for a duplicate
    await flusher.wait_durable([lg])
    assert not health.failing
    assert lg.high_watermark == 6
    assert values(lg) == acked + [f"value-3-{j}".encode() * 5 for j in range(3)]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, "one error per episode"
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await flusher.close()
    lg.close(clean=False)
    other.close(clean=True)
    again = open_log(tmp_path / "p")
    assert again.recovered_bytes_truncated == 0
    assert values(again) == acked + [f"value-3-{j}".encode() * 5 for j in range(3)]
    again.close(clean=True)


@pytest.mark.parametrize("stop", [False, True], ids=["stays-up", "stopped"])
def test_a_log_that_cannot_be_reopened_stays_offline_until_it_can(
    tmp_path: Path, stop: bool
) -> None:
    health = StorageHealth()
    lg = open_log(tmp_path / "p", health)
    expected = fill(lg, 2)
    lg.append(batch(2), now_ms=0)
    fileio.install(fileio.Fault("ftruncate", errno.EIO, sticky=True))
    with pytest.raises(StorageError):
        lg.revert_to_durable(0)
    assert lg.offline
    with pytest.raises(StorageError, match="offline"):
        lg.read(0, 10, 1 << 20)
    # every other read of the files too (they raised whatever a closed file raises: a 500)
    with pytest.raises(StorageError, match="offline"):
        lg.offset_for_timestamp(0)
    with pytest.raises(StorageError, match="offline"):
        lg.find_keyed_batch(0, 7)
    with pytest.raises(StorageError):
        lg.append(batch(5), now_ms=0)
    fileio.remove()
    if stop:  # closed while offline: the next open recovers the log as after a crash
        lg.close(clean=True)
        lg = open_log(tmp_path / "p", health)
        assert lg.recovered_bytes_truncated == 0
        assert values(lg)[:6] == expected  # (the unacknowledged batch may survive, whole)
        lg.close(clean=True)
        return
    lg.append(batch(5), now_ms=0)  # reopens at the durable end first
    assert not lg.offline and lg.log_end_offset == 9
    flush(lg)
    assert values(lg) == expected + [f"value-5-{j}".encode() * 5 for j in range(3)]
    lg.close(clean=True)


def test_health_logs_once_per_episode(caplog: pytest.LogCaptureFixture) -> None:
    health = StorageHealth()
    caplog.set_level(logging.INFO, "sluice")
    for _ in range(5):
        health.failed("append", OSError(errno.ENOSPC, "No space left on device"))
    health.recovered()
    health.recovered()
    health.failed("fsync", OSError(errno.EIO, "Input/output error"))
    assert (health.errors, health.episodes, health.failing) == (6, 2, True)
    assert "Input/output error" in health.last_error
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 3, msgs  # start, end, start


def test_a_revert_removes_the_segments_rolled_since_the_durable_end(tmp_path: Path) -> None:
    lg = open_log(tmp_path / "p")
    expected = fill(lg, 10)
    durable_segments = [s.base_offset for s in lg.segments]
    for i in range(10, 40):  # rolls new segments, none of them durable
        lg.append(batch(i), now_ms=0)
    assert len(lg.segments) > len(durable_segments)
    fileio.install(fileio.Fault("fsync", errno.EIO, suffix=".log"))
    ticket = lg.prepare_flush()
    assert ticket is not None
    with pytest.raises(StorageError):
        lg.flush(ticket)
    fileio.remove()
    assert lg.revert_to_durable(0) == 90
    assert [s.base_offset for s in lg.segments] == durable_segments
    assert sorted(n for n in os.listdir(lg.directory) if n.endswith(".log")) == [
        f"{b:020d}.log" for b in durable_segments
    ]
    assert lg.log_end_offset == lg.high_watermark == 30 and values(lg) == expected
    lg.close(clean=True)
    again = open_log(tmp_path / "p")
    assert values(again) == expected
    again.close(clean=True)
