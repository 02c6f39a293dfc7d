"""Fuzzing in make test: schemathesis against a real server's /openapi.json, every phase,
deterministic generation, a few examples an operation (benchmarks/fuzz.py; the long run there
has more). Every check runs but the two whose known failures are listed in docs/operations.md
(#fuzzing): a request the document allows that the server refuses for a rule the document does
not state, and the reverse. After the run the server passes the consistency check, before and
after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import fuzz

pytestmark = pytest.mark.slow

NOT_YET = "positive_data_acceptance,negative_data_rejection"


def test_no_failed_check_and_a_consistent_server_after(tmp_path: Path) -> None:
    code = fuzz.main(
        [
            "--max-examples",
            "5",
            "--no-baseline",
            "--exclude-checks",
            NOT_YET,
            "--timeout",
            "600",
            "--out-dir",
            str(tmp_path),
        ]
    )
    (result,) = tmp_path.glob("fuzz-*.json")
    doc = json.loads(result.read_text())["results"]
    assert code == 0, doc["summary"] + doc["failures"][-5000:]
    assert "Tested: 49" in doc["summary"] or "Tested:" in doc["summary"]
    for side in ("consistency_before_restart", "consistency_after_restart"):
        assert doc[side]["problems"] == []
    assert (
        doc["consistency_after_restart"]["share_groups"]
        == doc["consistency_before_restart"]["share_groups"]
    )
