"""benchmarks/report.py: the README's performance table from the recorded result files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarks import report
from tests.conftest import ROOT

RESULTS = ROOT / "benchmarks" / "results"
# recorded runs: every benchmark at 4b016a9, then W2 and W4 again at 30a897f (share and
# transactions with --only), and one run on a dirty tree at 876b83c
RECORDED = [
    "produce-4b016a9",
    "read-4b016a9",
    "restart-4b016a9",
    "memory-4b016a9",
    "share-4b016a9",
    "transactions-4b016a9",
    "share-30a897f",
    "transactions-30a897f",
    "produce-876b83c",
    "all-4b016a9",
]


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    for name in RECORDED:
        shutil.copy(RESULTS / f"{name}.json", tmp_path / f"{name}.json")
    return tmp_path


# the recorded files of these tests measured neither the users, the clients, the spark, the
# batches nor the peers one
RECORDED_ROWS = [
    row
    for row in report.ROWS
    if row.benchmark not in ("users", "clients", "spark", "batches", "peers")
]


def test_each_row_comes_from_the_newest_file_that_measured_it(recorded: Path) -> None:
    lines = report.lines(report.load(recorded))
    assert len(lines) == len(RECORDED_ROWS)
    by_row = {line.workload: line for line in lines}
    w2 = next(w for w in by_row if w.startswith("W2 share groups"))
    assert by_row[w2].commit == "30a897f"
    assert by_row[w2].measured == "58,800 records/s"
    assert by_row[w2].target == "≥ 60,000 records/s (missed)"
    w4 = next(w for w in by_row if w.startswith("W4 transactions"))
    assert by_row[w4].commit == "30a897f"
    assert by_row[w4].measured == "177 commits/s, commit p99 16 ms"
    assert by_row[w4].target == "≥ 1,000 commits/s (missed); ≤ 25 ms"
    # the 30a897f share run measured W2 only: W3 and memory come from the older full run
    w3 = next(w for w in by_row if w.startswith("W3 redelivery"))
    assert by_row[w3].commit == "4b016a9"
    assert by_row[w3].measured == "0.005 s, 0 lost, 5,000 redeliveries = releases"
    memory = next(w for w in by_row if w.startswith("share memory"))
    assert (by_row[memory].commit, by_row[memory].measured) == ("4b016a9", "79 / 350 MB")
    # the dirty 876b83c produce run is newer in nothing and ignored anyway
    produce = next(w for w in by_row if w.startswith("produce, 1 / 4 partitions"))
    assert by_row[produce].commit == "4b016a9"
    assert by_row[produce].measured == "156,000 / 118,000 records/s"
    read = next(w for w in by_row if w.startswith("read by offset"))
    assert by_row[read].target == "≥ 200,000 records/s (missed)"


def test_dirty_and_quick_runs_and_the_aggregate_are_passed_over(recorded: Path) -> None:
    newer = json.loads((recorded / "produce-4b016a9.json").read_text())
    newer["date"] = "2099-01-01T00:00:00+00:00"
    newer["commit"] = "f" * 40
    newer["dirty"] = True
    (recorded / "produce-fffffff.json").write_text(json.dumps(newer))
    newer["dirty"], newer["parameters"]["quick"] = False, True
    (recorded / "produce-eeeeeee.json").write_text(json.dumps(newer))
    results = report.load(recorded)
    assert "all" not in results
    assert [d["commit"][:7] for d in results["produce"]] == ["4b016a9"]


def test_the_markdown_names_every_commit_it_uses(recorded: Path) -> None:
    text = report.markdown(report.load(recorded))
    assert text.startswith("Measured on 4b016a9 and 30a897f")
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0] == "| Workload | Measured | Target | Commit |"
    assert len(table) == 1 + len(RECORDED_ROWS)
    assert all(line.endswith(("| 4b016a9 |", "| 30a897f |")) for line in table[1:])


def test_no_results_is_said_plainly(tmp_path: Path) -> None:
    assert report.markdown(report.load(tmp_path)) == "No benchmark results recorded yet."


def test_the_readme_block_is_replaced_between_its_markers() -> None:
    text = f"# A\n\nbefore\n{report.BEGIN}\nold table\n{report.END}\nafter\n"
    assert report.replace_block(text, "new") == (
        f"# A\n\nbefore\n{report.BEGIN}\nnew\n{report.END}\nafter\n"
    )
    with pytest.raises(ValueError, match="markers"):
        report.replace_block("no markers", "new")


def test_the_readme_table_is_the_report_of_the_recorded_results() -> None:
    readme = (ROOT / "README.md").read_text()
    expected = report.replace_block(readme, report.markdown(report.load()))
    assert readme == expected, (
        "the README's performance table is not the report of benchmarks/results: run "
        "python -m benchmarks.report --readme README.md"
    )


def _spread(value: float) -> dict[str, object]:
    return {"median": value, "min": value, "max": value, "runs": [value]}


def _users_doc(one_request: bool) -> dict[str, object]:
    """A users result as benchmarks.users writes it, reduced to what the report reads."""
    s: dict[str, object] = {
        key: _spread(value)
        for key, value in {
            "w1_records_per_s": 41234.5,
            "w1_request_ms_mean": 2.41,
            "w1_request_ms_p99": 5.07,
            "w1_server_us_per_record": 14.2,
            "w2_records_per_s": 30120.0,
            "w2_fetch_ms_p99": 12.3,
            "w2_ack_ms_p99": 8.1,
            "w2_server_us_per_record": 17.0,
            "w1dash_records_per_s": 40100.0,
            "w1dash_ratio_to_w1": 0.97,
            "w1dash_rss_mb_growth_idle": 6.4,
            "w2ws_records_per_s": 96500.0,
            "w2ws_ratio_to_w2": 3.2,
            "w2ws_ack_ms_p99": 6.2,
            "w2ws_server_us_per_record": 7.04,
            "w3_piggyback_s": 0.214,
            "w3_plain_s": 0.388,
            "p32_records_per_s": 70100.0,
            "p32_ceiling_records_per_s": 210400.0,
            "p32_ratio_to_ceiling": 0.3332,
            "w4_multi_transactions_per_s": 212.0,
            "w4_multi_commit_ms_p50": 9.9,
            "w4_multi_commit_ms_p99": 31.0,
            "w4_one_transactions_per_s": 1100.0,
            "w4_one_commit_ms_p50": 5.1,
            "w4_one_commit_ms_p99": 14.0,
            "w4_one-prepare_transactions_per_s": 1300.0,
            "w4_one-prepare_commit_ms_p50": 3.2,
            "w4_one-prepare_commit_ms_p99": 9.0,
        }.items()
    }
    s["w3_piggyback_loss"] = s["w3_plain_loss"] = [0]
    s["w3_piggyback_redeliveries"] = s["w3_plain_redeliveries"] = [10000]
    s["w4_multi_supported"] = True
    s["w4_one_supported"] = s["w4_one-prepare_supported"] = one_request
    names = [
        ("users W1 one producer, sequential: records/s", ">= 65000", "records/s", False),
        ("users W1 one producer: ms per request (mean)", "<= 1.5", "ms", False),
        ("users W1 one producer: server CPU per record", "<= 10", "µs", False),
        ("users W2 4 consumers: records/s", ">= 70000", "records/s", False),
        ("users W2 4 consumers: acknowledge p99", "<= 10", "ms", True),
        ("users dashboards: RSS growth, 50 idle", "<= 20", "MB", True),
        ("users dashboards: W1 with 50 ÷ W1, same run", ">= 0.9", "ratio", True),
        ("users push W2-WS 4 consumers: records/s", ">= 80000", "records/s", True),
        ("users push W2-WS 4 consumers: ack p99", "<= 10", "ms", True),
        ("users push W2-WS ÷ W2 over HTTP, same run", ">= 1.5", "ratio", True),
        ("users W3 release once, piggy-backed: all accepted", "<= 0.4", "s", True),
        ("users P32 produce / parse-only ceiling", ">= 0.6", "ratio", False),
        ("users W4 multi-step: transactions/s", ">= 500", "transactions/s", False),
    ]
    if one_request:
        names += [
            ("users W4 one-request: transactions/s", ">= 1000", "transactions/s", True),
            ("users W4 one-request: commit p99", "<= 25", "ms", True),
            (
                "users W4 one-request answered at the decision: transactions/s",
                ">= 1000",
                "transactions/s",
                True,
            ),
            ("users W4 one-request answered at the decision: commit p99", "<= 25", "ms", True),
        ]
    s["targets"] = [
        {"name": n, "goal": g, "unit": u, "ok": ok, "median": 0, "min": 0, "max": 0}
        for n, g, u, ok in names
    ]
    return {
        "benchmark": "users",
        "commit": "a" * 40,
        "dirty": False,
        "date": "2099-01-01T00:00:00+00:00",
        "machine": {"nproc": 2},
        "parameters": {
            "runs": 3,
            "quick": False,
            "fsync": "always",
            "w1_records": 100000,
            "w2_records": 200000,
            "w3_records": 10000,
        },
        "results": {"summary": s, "raw": {}},
    }


@pytest.mark.parametrize("one_request", [True, False])
def test_the_users_rows(tmp_path: Path, one_request: bool) -> None:
    (tmp_path / "users-aaaaaaa.json").write_text(json.dumps(_users_doc(one_request)))
    lines = report.lines(report.load(tmp_path))
    assert len(lines) == sum(row.benchmark == "users" for row in report.ROWS) == 9
    by = {line.workload.split(":")[0]: line for line in lines}
    assert all(line.commit == "aaaaaaa" for line in lines)
    w1 = by["W1 as an application measures (httpx on uvloop, 256 B binary values in base64)"]
    assert w1.measured == "41,200 records/s, 2.4 ms per request (p99 5.1), server 14 µs/record"
    assert w1.target == "≥ 65,000 records/s (missed); ≤ 1.5 ms (missed); ≤ 10 µs (missed)"
    w2 = by["W2 as an application measures"]
    assert w2.measured == (
        "30,100 records/s, fetch p99 12 ms, acknowledge p99 8.1 ms, server 17 µs/record"
    )
    assert w2.target == "≥ 70,000 records/s (missed); ≤ 10 ms"
    (dash,) = [line for line in lines if line.workload.startswith("W1 with 50 dashboards")]
    assert dash.measured == "40,100 records/s (0.97× W1), RSS +6.4 MB with 50 idle dashboards"
    assert dash.target == "≤ 20 MB; ≥ 0.9"
    ws = by["W2 over WebSocket push"]
    assert ws.measured == (
        "96,500 records/s (3.2× W2 over HTTP in the same run), ack p99 6.2 ms, server 7 µs/record"
    )
    assert ws.target == "≥ 80,000 records/s; ≤ 10 ms; ≥ 1.5"
    w3 = by["W3 as an application measures"]
    assert w3.measured == "0.21 / 0.39 s, 0 lost, 10,000 redeliveries"
    assert w3.target == "≤ 0.4 s"
    p32 = next(line for line in lines if line.workload.startswith("P32 produce"))
    assert p32.measured == "0.33 (70,100 / 210,000 records/s)"
    assert p32.target == "≥ 0.6 (missed)"
    w4 = [line for line in lines if line.workload.startswith("W4 as an application")]
    one, prepare, multi = w4
    assert multi.measured == "212 transactions/s, commit p50 / p99 9.9 / 31 ms"
    assert multi.target == "≥ 500 transactions/s (missed)"
    assert one.target == "≥ 1,000 transactions/s; ≤ 25 ms"
    assert prepare.target == "≥ 1,000 transactions/s; ≤ 25 ms"
    if one_request:
        assert one.measured == "1,100 transactions/s, commit p50 / p99 5.1 / 14 ms"
        assert prepare.measured == "1,300 transactions/s, commit p50 / p99 3.2 / 9 ms"
    else:
        assert one.measured == prepare.measured == "not supported by this server"


def test_the_spark_rows(tmp_path: Path) -> None:
    from benchmarks import spark

    runs = [
        {
            "batch_read": {"records_per_s": r},
            "stream_write": {"records_per_s": w},
            "topic_to_topic": {"records_per_s": t},
            "spark_pss_peak_bytes": g * spark.GiB,
            "server_rss_peak_bytes": 90 * 2**20,
        }
        for r, w, t, g in [(240_000, 95_000, 60_000, 1.4), (251_000, 102_000, 64_000, 1.5)]
    ]
    doc = {
        "benchmark": "spark",
        "commit": "bbbbbbb" + "0" * 33,
        "dirty": False,
        "date": "2026-11-26T00:00:00+00:00",
        "machine": {},
        "parameters": {"records": 1_000_000},
        "results": {"summary": spark.summarise(runs), "raw": runs},
    }
    (tmp_path / "spark-bbbbbbb.json").write_text(json.dumps(doc))
    read, write, memory = report.lines(report.load(tmp_path))
    assert read.workload.startswith("Spark batch read on local[2]: 1,000,000 records")
    assert read.measured == "246,000 records/s" and read.target == "≥ 200,000 records/s"
    assert write.measured == "98,500 records/s; topic to topic 62,000 records/s"
    assert write.target == "≥ 100,000 records/s (missed)"
    assert memory.measured == "1.45 GiB" and memory.target == "≤ 2 GiB"


def _doc(benchmark: str, commit: str, parameters: dict[str, Any], results: Any) -> Any:
    return {
        "benchmark": benchmark,
        "commit": commit + "0" * 33,
        "dirty": False,
        "date": "2026-11-26T00:00:00+00:00",
        "machine": {"nproc": 2},
        "parameters": parameters,
        "results": results,
    }


def test_the_batches_rows(tmp_path: Path) -> None:
    from benchmarks import batches

    def seq(cpu: tuple[float, float, float], rates: tuple[float, float, float]) -> Any:
        forms = {
            form: {
                "records_per_s": rate,
                "request_ms": {"mean": 100 / rate * 1000},
                "server_us_per_request": us * 100,
                "server_us_per_record": us,
            }
            for form, us, rate in zip(batches.FORMS, cpu, rates, strict=True)
        }
        return forms | {"batch_server_us_per_request": 150.0, "batch_server_us_per_record": 1.2}

    def p32(rate: float, ceiling: float, read: float) -> Any:
        return {
            "sluice": {"records_per_s": rate, "fsync_rounds": 812, "server_us_per_record": 1.0},
            "ceiling": {"records_per_s": ceiling},
            "ratio": round(rate / ceiling, 4),
            "read": {
                "batches": {"records_per_s": read, "server_us_per_record": 0.3},
                "json": {"records_per_s": read / 8, "server_us_per_record": 4.4},
            },
        }

    raw = {
        "seq": [
            seq((4.1, 2.6, 1.2), (36_000, 52_000, 160_000)),
            seq((4.3, 2.8, 1.0), (35_000, 50_000, 150_000)),
        ],
        "p32": [p32(300_000, 800_000, 1_100_000), p32(320_000, 800_000, 900_000)],
    }
    params = {"runs": 2, "quick": False, "fsync": "always", "p32_records": 1_000_000}
    summary = batches.summarise(raw)
    (tmp_path / "batches-ccccccc.json").write_text(
        json.dumps(_doc("batches", "ccccccc", params, {"summary": summary, "raw": raw}))
    )
    seq_row, p32_row, read = report.lines(report.load(tmp_path))
    assert seq_row.workload.startswith("SEQ one producer, sequential requests")
    assert seq_row.measured == (
        "4.2 / 2.7 / 1.1 µs a record (35,500 / 51,000 / 155,000 records/s); "
        "batches: 150 µs a request + 1.2 µs a record"
    )
    # the benchmark's own judgement of each form: JSON and 100 a request met, 1,000 missed
    assert seq_row.target == "≤ 5 µs; ≤ 3 µs; ≤ 1 µs (missed)"
    assert p32_row.workload.startswith("P32B produce, 32 connections")
    assert p32_row.measured == "0.388 (310,000 / 800,000 records/s, 812 fsync rounds)"
    assert p32_row.target == "≥ 0.3"
    assert read.workload.startswith("read by offset, one reader: record batches")
    assert read.measured == "1,000,000 / 125,000 records/s"
    assert read.target == "≥ 1,000,000 records/s"
    assert {line.commit for line in (seq_row, p32_row, read)} == {"ccccccc"}


def _peer(
    peer: str, title: str, mode: str, default: bool, w1: float, w2: float, w3: float
) -> dict[str, Any]:
    """A row of a peers result as benchmarks.peers writes it, reduced to what is compared."""
    figures = {key: {"median": 1.0} for key in ("w1_request_ms_p99", "w2_ack_ms_p99")}
    figures |= {
        "w1_records_per_s": {"median": w1},
        "w2_records_per_s": {"median": w2},
        "w3_seconds": {"median": w3},
    }
    return {
        "peer": peer,
        "title": title,
        "version": "1",
        "mode": mode,
        "default": default,
        "durability": f"{title} at {mode}",
        "runs": [{}],
        "error": None,
        "figures": figures,
        "w3_lost": 0,
    }


PEER_ROWS = [
    _peer("sluice", "Sluice", "sync", True, 60_000, 80_000, 0.2),
    _peer("sluice", "Sluice", "nosync", False, 90_000, 100_000, 0.15),
    _peer("redis", "Redis Streams", "sync", False, 25_000, 30_000, 0.25),
    _peer("redis", "Redis Streams", "nosync", True, 50_000, 45_000, 0.1),
    _peer("postgres", "PostgreSQL, SKIP LOCKED", "sync", True, 20_000, 35_000, 0.4),
    {"peer": "kafka", "title": "Kafka share groups", "mode": "nosync", "default": True}
    | {"runs": [], "error": "BenchError: broker died"},
]


def _peers_doc(rows: list[dict[str, Any]]) -> Any:
    params = {"runs": 1, "quick": False, "records": 200_000, "w3_records": 10_000}
    return _doc("peers", "ddddddd", params, {"rows": rows, "skipped": [], "summary": {}})


def test_the_peers_rows_name_the_best_peer_and_its_figure(tmp_path: Path) -> None:
    (tmp_path / "peers-ddddddd.json").write_text(json.dumps(_peers_doc(PEER_ROWS)))
    lines = report.lines(report.load(tmp_path))
    assert [(line.measured, line.target) for line in lines] == [
        # an fsync before every answer: Redis writes fastest, PostgreSQL consumes fastest
        ("2.4× Redis Streams (60,000 / 25,000 records/s)", "≥ 2"),
        ("2.3× PostgreSQL, SKIP LOCKED (80,000 / 35,000 records/s)", "≥ 2"),
        # each at its default: Redis without an fsync against Sluice with one
        ("1.2× Redis Streams (60,000 / 50,000 records/s)", "≥ 1.5 (missed)"),
        ("1.8× Redis Streams (80,000 / 45,000 records/s)", "≥ 1.5"),
        ("0.8× Redis Streams (0.2 / 0.25 s)", "≤ 1"),
        ("2× Redis Streams (0.2 / 0.1 s)", "≤ 1 (missed)"),
    ]
    assert [line.workload.split(" ÷ ")[0] for line in lines] == [
        "W1 one producer (100 records a request) through the Python client",
        "W2 four consumers (fetch 100, acknowledge) through the Python client",
        "W1 through the Python client",
        "W2 through the Python client",
        "W3 release once (4 consumers release the even-numbered records once): Sluice's time",
        "W3 release once: Sluice's time",
    ]
    assert lines[0].workload.endswith("both with an fsync before every answer")
    assert lines[2].workload.endswith(
        "each at its default durability (Sluice's: an fsync before every answer)"
    )
    assert {line.commit for line in lines} == {"ddddddd"}


def test_a_peers_comparison_without_its_rows_is_left_out(tmp_path: Path) -> None:
    # no Redis: the W3 rows go; Sluice failed with an fsync: so do the rows that need that row
    rows = [r for r in PEER_ROWS if r["peer"] != "redis"]
    rows[0] = {**rows[0], "error": "BenchError: server died"}
    (tmp_path / "peers-ddddddd.json").write_text(json.dumps(_peers_doc(rows)))
    assert report.lines(report.load(tmp_path)) == []
    # only the Redis rows failed: every comparison but the two with Redis still stands
    rows = [r if r["peer"] != "redis" else {**r, "error": "x"} for r in PEER_ROWS]
    (tmp_path / "peers-ddddddd.json").write_text(json.dumps(_peers_doc(rows)))
    measured = [line.measured for line in report.lines(report.load(tmp_path))]
    assert measured == [
        "3× PostgreSQL, SKIP LOCKED (60,000 / 20,000 records/s)",
        "2.3× PostgreSQL, SKIP LOCKED (80,000 / 35,000 records/s)",
        "3× PostgreSQL, SKIP LOCKED (60,000 / 20,000 records/s)",
        "2.3× PostgreSQL, SKIP LOCKED (80,000 / 35,000 records/s)",
    ]
