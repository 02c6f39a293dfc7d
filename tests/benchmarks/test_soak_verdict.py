"""The soak's verdict on samples made up to the purpose: a slope that a ±10 % band cannot see
fails it, once the run after warm-up is long enough to judge one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks import soak


def samples(minutes: float, rss_per_hour: float, *, every_s: float = 10.0) -> list[dict[str, Any]]:
    out = []
    for i in range(int(minutes * 60 / every_s) + 1):
        t = i * every_s
        out.append(
            {
                "t_s": t,
                "rss_mb": 70.0 + rss_per_hour * t / 3600 + (0.3 if i % 2 else -0.3),
                "metadata_mb": 4.0 + (1.0 if i % 7 == 0 else 0.0),  # a checkpoint now and then
                "fds": 37,
                "p99_ms": {"produce": 5.0},
            }
        )
    return out


def test_least_squares_slope() -> None:
    assert soak.slope_per_hour([(0, 10.0), (1800, 11.0), (3600, 12.0)]) == pytest.approx(2.0)
    assert soak.slope_per_hour([(0, 5.0), (3600, 5.0)]) == 0.0
    assert soak.slope_per_hour([(0, 5.0)]) == 0.0


def test_the_growth_of_the_long_run_fails_though_it_stays_within_the_band() -> None:
    """45 minutes at 14.3 MB an hour: within ±10 % of the median all along, as the old verdict
    passed it."""
    verdict = soak.judge(samples(45, 14.3))
    assert verdict["rss_mb"]["flat"]  # the band sees nothing
    assert verdict["slope_judged"]
    assert verdict["rss_mb"]["slope_per_hour"] == pytest.approx(14.3, abs=0.5)
    assert not verdict["rss_mb"]["slope_ok"] and not verdict["passed"]


def test_a_level_run_passes_and_a_short_one_reports_without_judging() -> None:
    level = soak.judge(samples(45, 0.2))
    assert level["passed"] and level["rss_mb"]["slope_ok"]
    assert level["metadata_mb"]["slope_ok"] and level["fds"]["slope_per_hour"] == 0
    short = soak.judge(samples(3, 14.3))
    assert not short["slope_judged"] and not short["rss_mb"]["slope_ok"]
    assert short["passed"]  # too short to tell a slope from noise


def test_the_samples_a_run_printed_are_read_back_and_plotted(tmp_path: Path) -> None:
    printed = "\n".join(
        [
            "     10 s  rss 70.66 MB  fds 39  produce 8910/s  p99 produce 12.08 ms",
            "     20 s  rss 72.5 MB  fds 40  produce 0/s  p99 produce None ms",
            "draining the share group and checking every id",
            "     30 s  rss 72.85 MB  fds 39  produce 4280/s  p99 produce 43.16 ms",
        ]
    )
    samples = soak.printed_samples(printed)
    assert [(s["t_s"], s["rss_mb"], s["fds"]) for s in samples] == [
        (10.0, 70.66, 39),
        (20.0, 72.5, 40),
        (30.0, 72.85, 39),
    ]
    assert [s["p99_ms"] for s in samples] == [{"produce": 12.08}, {}, {"produce": 43.16}]
    assert samples[2]["records_per_s"] == {"produce": 4280}
    log = tmp_path / "run.log"
    log.write_text(printed)
    png = tmp_path / "run.png"
    assert soak.main(["--plot-printed", str(log), str(png)]) == 0
    assert png.stat().st_size > 10_000
