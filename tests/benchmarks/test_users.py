"""benchmarks/users.py: the pure parts (acknowledgement ranges, sequences, CPU figures,
summaries) and that the command line answers --help. No timed test here."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from benchmarks import users
from tests.conftest import ROOT


def _acquired(partition: int, first: int, last: int, count: int) -> dict[str, Any]:
    return {
        "topic": "t",
        "partition": partition,
        "first_offset": first,
        "last_offset": last,
        "delivery_count": count,
    }


def test_acknowledgements_accept_exactly_the_acquired_ranges_sorted() -> None:
    acquired = [_acquired(1, 5, 9, 1), _acquired(0, 10, 19, 2), _acquired(0, 0, 3, 1)]
    acks = users.acknowledgements(acquired)
    assert [(a["partition"], a["first_offset"], a["last_offset"]) for a in acks] == [
        (0, 0, 3),
        (0, 10, 19),
        (1, 5, 9),
    ]
    assert {a["type"] for a in acks} == {"accept"}
    assert [a["delivery_count"] for a in acks] == [1, 2, 1]
    assert users.range_records(acks) == 4 + 10 + 5


def test_release_first_releases_first_deliveries_and_accepts_the_rest() -> None:
    acks = users.acknowledgements(
        [_acquired(0, 0, 49, 2), _acquired(0, 50, 99, 1)], release_first=True
    )
    assert [a["type"] for a in acks] == ["accept", "release"]


def test_sequences_count_records_per_partition_and_restart_with_each_epoch() -> None:
    seqs = users.Sequences()
    assert seqs.take("out", 0, 100, epoch=0) == 0
    assert seqs.take("out", 0, 100, epoch=0) == 100
    assert seqs.take("out", 1, 7, epoch=0) == 0
    assert seqs.take("out", 0, 5, epoch=0) == 200
    assert seqs.take("out", 0, 100, epoch=1) == 0  # a new epoch starts at 0
    assert seqs.take("out", 1, 1, epoch=1) == 0
    assert seqs.take("out", 0, 1, epoch=1) == 100


def test_cpu_per_record_and_ratios() -> None:
    assert users.per_record_us(0.5, 100_000) == 5.0
    assert users.per_record_us(1.0, 0) is None
    assert users.ratios([50.0, 30.0], [100.0, 0.0]) == [0.5, 0.0]
    with pytest.raises(ValueError):
        users.ratios([1.0], [1.0, 2.0])


def _w4(form: str, supported: bool, rate: float = 0.0) -> dict[str, Any]:
    if not supported:
        return {"form": form, "supported": False, "detail": "400"}
    return {
        "form": form,
        "supported": True,
        "transactions_per_s": rate,
        "commit_ms": {"p50": 2.0, "p99": 9.0},
        "server_us_per_transaction": 300.0,
    }


def test_summary_takes_medians_and_leaves_out_a_form_the_server_lacks() -> None:
    raw = {
        "w4": [
            {"one": _w4("one", False), "multi": _w4("multi", True, rate)}
            for rate in (400.0, 600.0, 500.0)
        ]
    }
    s = users.summarise(raw)
    assert s["w4_one_supported"] is False
    assert "w4_one_transactions_per_s" not in s
    assert s["w4_multi_transactions_per_s"]["median"] == 500.0
    assert s["w4_multi_transactions_per_s"]["runs"] == [400.0, 600.0, 500.0]
    assert [t["name"] for t in s["targets"]] == ["users W4 multi-step: transactions/s"]
    assert s["targets"][0]["ok"] is True


def test_the_command_line_answers_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.users", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "W1" in out.stdout and "--only" in out.stdout and "--quick" in out.stdout
