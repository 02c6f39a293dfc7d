"""The soak and the crash trials, short, as make test runs them: real server processes, the
mixed workload, every id checked (benchmarks/soak.py, benchmarks/crash_trials.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import crash_trials, soak
from benchmarks.mixed import Ledger

pytestmark = pytest.mark.slow


def test_a_short_soak_passes_and_writes_its_json_and_plot(tmp_path: Path) -> None:
    soak.main(["--minutes", "0.4", "--interval", "3", "--rate", "3000", "--out-dir", str(tmp_path)])
    (result,) = tmp_path.glob("soak-*.json")
    doc = json.loads(result.read_text())["results"]
    verdict = doc["verdict"]
    # memory, descriptors and ids as the long run judges them; p99 drift is judged only by the
    # long run: over 24 s a third is two samples, and one slow interval on a shared machine
    # doubles it (a fresh-clone run failed that way)
    assert verdict["rss_mb"]["flat"] and verdict["fds"]["flat"] and verdict["ids_ok"], verdict
    assert result.with_suffix(".png").stat().st_size > 10_000
    check = doc["check"]
    assert check["produced"] > 1000 and check["failures"] == []
    assert check["share_rejected"] > 0 and check["share_released"] > 0
    assert check["transactional_committed"] > 0 and check["transactional_aborted"] > 0
    assert len(doc["samples"]) >= 6
    assert all(s["rss_mb"] > 0 and s["fds"] > 0 for s in doc["samples"])


def test_crash_trials_find_nothing_lost(tmp_path: Path) -> None:
    code = crash_trials.main(["--trials", "2", "--rate", "5000", "--out-dir", str(tmp_path)])
    (result,) = tmp_path.glob("crash_trials-*.json")
    doc = json.loads(result.read_text())["results"]
    assert code == 0, doc["trials"]
    assert doc["summary"]["passed"] == 2
    assert all(t["produced"] > 0 for t in doc["trials"])


def test_an_answer_to_a_release_does_not_clear_a_later_acknowledgement_in_doubt() -> None:
    # member A releases r, the server applies it, member B acquires r and accepts it, the server
    # is killed before B's answer; A then reads its (earlier) answer. r is in doubt: B's accept
    # may have been applied. Two crash trials failed as "never acknowledged" before this.
    ledger = Ledger()
    ledger.acknowledging({"r": "release", "s": "accept"})  # A (the workers pass id -> kind)
    ledger.acknowledging({"r": "accept"})  # B
    ledger.acknowledged({"r": "release", "s": "accept"})  # A's answer
    assert ledger.in_doubt("r") and not ledger.in_doubt("s")
    ledger.acknowledged(["r"])
    assert not ledger.in_doubt("r") and not ledger.in_flight
