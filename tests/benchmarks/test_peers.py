"""benchmarks/peers.py: its summary and tables, the Python clients it installs, and a quick run
end to end against Redis and Sluice (the cheapest peer; neither Kafka nor RabbitMQ is needed)
that checks the result file's shape. No timed assertion here."""

from __future__ import annotations

import array
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import _peer_servers as ps
from benchmarks import peers
from tests.conftest import ROOT


def _row(peer: str, mode: str, rate: float, w3: float, *, error: str | None = None) -> Any:
    figures = {k: {"median": 10.0} for k in peers.FIGURES}
    figures["w1_records_per_s"] = {"median": rate}
    figures["w2_records_per_s"] = {"median": rate * 2}
    figures["w3_seconds"] = {"median": w3}
    row = {
        "peer": peer,
        "title": peer.title(),
        "version": "1",
        "mode": mode,
        "default": True,
        "durability": f"{peer} at {mode}",
        "error": error,
        "w3_lost": 0,
    }
    if error is None:
        row["figures"] = figures
    return row


def test_the_summary_compares_sluice_with_the_best_other_peer_at_the_same_durability() -> None:
    rows = [
        _row("sluice", "sync", 30_000, 0.2),
        _row("redis", "sync", 20_000, 0.3),
        _row("postgres", "sync", 10_000, 0.1),
        _row("redis", "nosync", 90_000, 0.05),
        _row("kafka", "nosync", 0, 0, error="BenchError: broker died"),
    ]
    summary = peers.summarise(rows)
    w1 = summary["sync"]["w1_records_per_s"]
    assert (w1["best_peer"], w1["best"], w1["sluice_to_best"]) == ("redis", 20_000, 1.5)
    w3 = summary["sync"]["w3_seconds"]  # lower is better: the fastest drain is the best
    assert (w3["best_peer"], w3["sluice_to_best"]) == ("postgres", 2.0)
    # no Sluice row at nosync: the best is named, with no ratio; the failed row is left out
    nosync = summary["nosync"]["w1_records_per_s"]
    assert nosync["best_peer"] == "redis" and "sluice_to_best" not in nosync


def test_the_tables_state_each_rows_durability_and_what_was_not_measured() -> None:
    rows = [_row("sluice", "sync", 30_000, 0.2), _row("redis", "sync", 20_000, 0.3)]
    rows.append(_row("kafka", "sync", 0, 0, error="BenchError: broker died"))
    doc = {
        "commit": "abcdef0123",
        "dirty": False,
        "machine": {"nproc": 2},
        "parameters": {"records": 200_000, "w3_records": 10_000, "runs": 1},
        "results": {
            "rows": rows,
            "skipped": [
                {"peer": "nats", "title": "NATS JetStream", "mode": "sync", "reason": "no sync"}
            ],
            "summary": peers.summarise(rows),
        },
    }
    text = peers.markdown(doc)
    assert "| Redis 1 | redis at sync | 20,000 |" in text
    assert "| Kafka 1 | kafka at sync | failed: BenchError: broker died |" in text
    assert "| **Sluice ÷ best peer** | | 1.50 (redis) |" in text
    assert "- NATS JetStream (sync): no sync" in text
    assert "nosync" not in text  # no row at that durability: no table


def test_the_targets_compare_sluice_with_the_best_peer_at_each_setting() -> None:
    rows = [
        {**_row("sluice", "sync", 30_000, 0.2), "default": True},
        {**_row("sluice", "nosync", 50_000, 0.1), "default": False},
        {**_row("redis", "sync", 20_000, 0.3), "default": False},
        {**_row("redis", "nosync", 90_000, 0.05), "default": True},
        {**_row("postgres", "sync", 10_000, 0.1), "default": True},
    ]
    lines = {t["name"]: t for t in peers.targets(rows)}
    w1 = lines["peers W1 ÷ the best peer, an fsync before every answer"]
    assert (w1["peer"], w1["sluice"], w1["other"], w1["median"]) == ("redis", 30_000, 20_000, 1.5)
    assert (w1["goal"], w1["ok"]) == (">= 2", False)
    w1 = lines["peers W1 ÷ the best peer, each at its default durability"]
    assert (w1["peer"], w1["other"], w1["median"]) == ("redis", 90_000, 0.333)
    # W3 is a time, compared with Redis only (PostgreSQL drained faster with an fsync)
    w3 = lines["peers W3 ÷ Redis Streams, an fsync before every answer"]
    assert (w3["peer"], w3["median"], w3["goal"], w3["ok"]) == ("redis", 0.667, "<= 1", True)
    assert lines["peers W3 ÷ Redis Streams, each at its default durability"]["ok"] is False
    assert len(lines) == 6
    # without Sluice's row at its default, no comparison at that setting
    assert not any("default" in t["name"] for t in peers.targets(rows[1:]))


def test_accepted_counts_numbers_across_consumers() -> None:
    a = array.array("q", [0, 1, 2]).tobytes()
    b = array.array("q", [2, 3]).tobytes()
    assert peers._accepted([{"accepted": a}, {"accepted": b}]) == (4, 1, 4)


def test_every_peers_python_client_is_in_the_peers_extra() -> None:
    """What a peer installs when missing is the requirement pyproject.toml's extra names."""
    requirements = ps.peers_requirements()
    wanted = {d for peer in ps.PEERS.values() for d in peer.modules.values()}
    assert wanted <= set(requirements)
    assert requirements["psycopg"].startswith("psycopg[binary]")


@pytest.mark.slow
def test_a_quick_run_against_redis_and_sluice_writes_every_row(tmp_path: Path) -> None:
    flags = ["--quick", "--peers", "redis,sluice", "--wait-quiet", "0", "--markdown"]
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.peers", *flags, "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (path,) = tmp_path.glob("peers-*.json")
    doc = json.loads(path.read_text())
    assert doc["benchmark"] == "peers" and doc["parameters"]["quick"] is True
    results = doc["results"]
    assert results["skipped"] == []
    rows = {(r["peer"], r["mode"]): r for r in results["rows"]}
    assert set(rows) == {(p, m) for p in ("redis", "sluice") for m in ("sync", "nosync")}
    records, w3 = peers.QUICK["records"], peers.QUICK["w3_records"]
    for row in rows.values():
        assert row["error"] is None and row["durability"]
        assert set(row["figures"]) == set(peers.FIGURES)
        (measured,) = row["runs"]
        assert measured["w1"]["records"] == records
        assert measured["w2"]["accepted"] == records and measured["w2"]["lost"] == 0
        assert measured["w3"]["accepted"] == w3 and measured["w3"]["lost"] == 0
        # every record released once on its first delivery when its number is even
        assert measured["w3"]["releases"] == w3 // 2
        assert measured["w3"]["redeliveries"] == w3 // 2
        assert measured["w1"]["server_us_per_record"] is not None
    assert rows[("sluice", "sync")]["default"] and rows[("redis", "nosync")]["default"]
    for mode in ("sync", "nosync"):
        ratio = results["summary"][mode]["w2_records_per_s"]
        assert ratio["best_peer"] == "redis" and ratio["sluice_to_best"] > 0
    assert run.stdout.count("| **Sluice ÷ best peer** |") == 2
    # Redis is the only other peer: every comparison is with it, at both durabilities
    lines = results["summary"]["targets"]
    assert len(lines) == 6 and {t["peer"] for t in lines} == {"redis"}


def test_the_command_line_answers_help() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "benchmarks.peers", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "--peers" in r.stdout and "--durability" in r.stdout
