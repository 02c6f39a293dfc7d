"""benchmarks/quota_fairness.py: the parsing of the server's counters and that the command
line answers --help. No timed test here."""

from __future__ import annotations

import subprocess
import sys

from benchmarks import quota_fairness
from tests.conftest import ROOT


def test_throttle_counters_are_read_per_principal() -> None:
    text = "\n".join(
        [
            "# TYPE sluice_quota_throttled_requests_total counter",
            'sluice_quota_throttled_requests_total{principal="A",kind="produce"} 42',
            'sluice_quota_throttled_requests_total{principal="A",kind="fetch"} 7',
            'sluice_quota_throttled_requests_total{principal="B",kind="produce"} 0',
        ]
    )
    assert quota_fairness.throttle_counters(text) == {"A": 42.0, "B": 0.0}


def test_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.quota_fairness", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "--quota" in done.stdout and "a_flood_quota" in done.stdout
