"""Fuzzing in make test: schemathesis against a real server's /openapi.json, every phase, every
check, deterministic generation, a few examples an operation (benchmarks/fuzz.py; the long run
there has more). After the run the server passes the consistency check, before and after a
restart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import fuzz

pytestmark = pytest.mark.slow


def test_no_failed_check_and_a_consistent_server_after(tmp_path: Path) -> None:
    code = fuzz.main(
        [
            "--max-examples",
            "5",
            "--timeout",
            "600",
            "--out-dir",
            str(tmp_path),
        ]
    )
    (result,) = tmp_path.glob("fuzz-*.json")
    doc = json.loads(result.read_text())["results"]
    assert code == 0, doc["summary"] + doc["failures"][-5000:]
    # every operation the run selects (all but the key admin ones) was tested
    selected = re.search(r"Selected: (\d+)/(\d+)", doc["summary"])
    tested = re.search(r"Tested: (\d+)", doc["summary"])
    assert selected and tested, doc["summary"]
    assert int(tested.group(1)) == int(selected.group(1)) >= int(selected.group(2)) - 3
    for side in ("consistency_before_restart", "consistency_after_restart"):
        assert doc[side]["problems"] == []
    assert (
        doc["consistency_after_restart"]["share_groups"]
        == doc["consistency_before_restart"]["share_groups"]
    )
