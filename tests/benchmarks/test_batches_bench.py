"""benchmarks/batches.py: the pure parts (the split of the server's CPU, the disk ceiling's
fsync cadence, a metric read from the exposition, the summary) and the disk ceiling itself on a
small scale. No timed test here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from benchmarks import batches
from benchmarks._harness import BenchError
from tests.conftest import ROOT


def test_split_cost_recovers_the_parts_per_request_and_per_record() -> None:
    # 200 µs a request and 0.5 µs a record: 1,000 requests of 100, then 100 requests of 1,000
    small = (1000 * 200e-6 + 100_000 * 0.5e-6, 1000, 100_000)
    large = (100 * 200e-6 + 100_000 * 0.5e-6, 100, 100_000)
    assert batches.split_cost(small, large) == (200.0, 0.5)


def test_split_cost_cannot_tell_the_parts_apart_at_one_size() -> None:
    assert batches.split_cost((1.0, 10, 1000), (2.0, 20, 2000)) is None


@pytest.mark.parametrize(
    ("bodies", "fsyncs", "expected"),
    [
        (10, 1, [9]),
        (10, 2, [4, 9]),
        (10, 10, list(range(10))),
        (10, 40, list(range(10))),  # never more fsyncs than writes
        (7, 3, [1, 3, 6]),
        (5, 0, [4]),  # at least the one after the last write
    ],
)
def test_fsync_points_are_spread_evenly_and_end_with_the_last_body(
    bodies: int, fsyncs: int, expected: list[int]
) -> None:
    points = batches.fsync_points(bodies, fsyncs)
    assert points == expected
    assert points[-1] == bodies - 1


def test_metric_value_reads_the_unlabelled_sample() -> None:
    text = (
        "# HELP sluice_fsync_round_seconds duration of one group-commit round\n"
        'sluice_fsync_round_seconds_bucket{le="0.001"} 3.0\n'
        "sluice_fsync_round_seconds_count 42.0\n"
        "sluice_fsync_round_seconds_sum 0.5\n"
    )
    assert batches.metric_value(text, "sluice_fsync_round_seconds_count") == 42.0
    with pytest.raises(BenchError):
        batches.metric_value(text, "sluice_missing_total")


def test_the_disk_ceiling_appends_every_body_and_removes_its_file(tmp_path: Path) -> None:
    spec = {"path": str(tmp_path / "ceiling.log"), "bodies": 6, "per_request": 10, "fsyncs": 2}
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.batches", "--disk-ceiling", orjson.dumps(spec).decode()],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        check=True,
    )
    result = orjson.loads(out.stdout)
    assert result["records"] == 60
    assert result["fsyncs"] == 2
    assert result["records_per_s"] > 0
    assert not (tmp_path / "ceiling.log").exists()


def _seq_run(cpu100: float, cpu1000: float) -> dict[str, object]:
    def form(us: float, per: int) -> dict[str, object]:
        return {
            "records_per_s": 50_000.0,
            "request_ms": {"mean": 2.0},
            "server_us_per_request": us * per,
            "server_us_per_record": us,
        }

    return {
        "json-100": form(6.0, 100),
        "batch-100": form(cpu100, 100),
        "batch-1000": form(cpu1000, 1000),
        "batch_server_us_per_request": 150.0,
        "batch_server_us_per_record": 0.4,
    }


def test_summary_holds_each_form_against_its_goal() -> None:
    s = batches.summarise({"seq": [_seq_run(2.5, 1.2), _seq_run(2.9, 0.9), _seq_run(3.5, 0.8)]})
    by_name = {t["name"]: t for t in s["targets"]}
    assert by_name["batches SEQ batch-100: server CPU a record"]["median"] == 2.9
    assert by_name["batches SEQ batch-100: server CPU a record"]["ok"] is True
    assert by_name["batches SEQ batch-1000: server CPU a record"]["ok"] is True
    assert by_name["batches SEQ json-100: server CPU a record"]["ok"] is False
    assert s["seq_batch_server_us_per_request"]["median"] == 150.0


def test_help_describes_the_workloads() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.batches", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "P32B" in out.stdout and "--p32-records" in out.stdout
