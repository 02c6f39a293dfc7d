"""benchmarks/gateway.py: its pure parts, and a small run end to end on the test cluster (a
gateway against the native client, every answer checked) so that the benchmark cannot rot. No
timed assertion here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import gateway
from tests.conftest import ROOT
from tests.kafka_cluster import KafkaCluster


def test_offsets_must_follow_one_another_after_the_last() -> None:
    assert gateway.contiguous([5, 6, 7], 4)
    assert not gateway.contiguous([5, 7], 4)  # a gap
    assert not gateway.contiguous([5, 6], 5)  # not after the last
    assert not gateway.contiguous([], -1)


def test_broker_pids_only_for_the_cluster_of_the_run_directory(tmp_path: Path) -> None:
    node = tmp_path / "node-1"
    node.mkdir()
    (node / "pid").write_text(f"{os.getpid()}\n")
    (tmp_path / "cluster.env").write_text("BROKERS=1\nBOOTSTRAP=127.0.0.1:9092\n")
    assert gateway.broker_pids(tmp_path, "127.0.0.1:9092") == [os.getpid()]
    assert gateway.broker_pids(tmp_path, "127.0.0.1:9093") == []
    assert gateway.broker_pids(tmp_path / "none", "127.0.0.1:9092") == []


def test_the_summary_keeps_every_form_and_a_target_for_each_gateway_form() -> None:
    def form(rate: float, us: float) -> dict[str, object]:
        return {
            "records_per_s": rate,
            "gateway_us_per_record": us,
            "gateway_system_share": 0.25,
            "broker_us_per_record": 10.0,
            "client_cpu": 0.5,
            "request_ms": {"mean": 2.0},
            "fetch_ms": {"mean": 3.0},
        }

    produce = {f: form(1000, 2.0) for f in gateway.PRODUCE_FORMS} | {
        "gateway_json_to_native": 0.5,
        "gateway_batch_us_per_request": 150.0,
        "gateway_batch_us_per_record": 0.5,
    }
    produce |= {f: form(1000, 1.5) for f in gateway.FLOOR_FORMS}
    share = {f: form(500, 4.0) for f in gateway.SHARE_FORMS} | {"gateway_to_native": 0.25}
    s = gateway.summarise({"produce": [produce], "share": [share]})
    # the floors are summarised, but are not the gateway: no target of theirs
    assert s["produce_floor_kafka_gateway_us_per_record"]["median"] == 1.5
    assert s["produce_gateway_batch_gateway_us_per_record"]["median"] == 2.0
    assert s["share_gateway_fetch_ms_mean"]["median"] == 3.0
    assert s["produce_gateway_json_to_native"]["median"] == 0.5
    assert s["produce_gateway_batch_us_per_request"]["median"] == 150.0
    verdicts = {t["name"]: t["ok"] for t in s["targets"]}
    assert verdicts == {
        "gateway produce gateway-json: its CPU a record": True,
        "gateway produce gateway-batch: its CPU a record": True,
        "gateway share gateway: its CPU a record": False,
        "gateway share gateway-piggyback: its CPU a record": False,
        "gateway share gateway-batches: its CPU a record": False,
    }


@pytest.mark.slow
@pytest.mark.kafka
def test_a_small_run_measures_both_sides(tmp_path: Path, kafka_cluster: KafkaCluster) -> None:
    sizes = ["--runs", "1", "--seconds", "1", "--share-records", "2000", "--wait-quiet", "0"]
    sizes += ["--floor"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.gateway",
            "--bootstrap",
            kafka_cluster.bootstrap,
            *sizes,
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (path,) = tmp_path.glob(f"gateway-*-brokers-{kafka_cluster.brokers}.json")
    doc = json.loads(path.read_text())
    assert doc["parameters"]["brokers"] == kafka_cluster.brokers
    summary = doc["results"]["summary"]
    assert summary["brokers"] == kafka_cluster.brokers
    (load,) = summary["load_average"]
    assert len(load["before"]) == len(load["after"]) == 3
    ((produce,), (share,)) = doc["results"]["raw"]["produce"], doc["results"]["raw"]["share"]
    for kind, measured, forms in (
        ("produce", produce, gateway.PRODUCE_FORMS),
        ("share", share, gateway.SHARE_FORMS),
    ):
        for f in forms:
            m = measured[f]
            assert m["records"] > 0 and m["records_per_s"] > 0, (kind, f, m)
            # the brokers of make kafka run here: their CPU is counted
            assert m["broker_us_per_record"] > 0, (kind, f, m)
            if f != "native":
                assert m["gateway_us_per_record"] > 0, (kind, f, m)
                assert 0 <= m["gateway_system_share"] <= 1, (kind, f, m)
        assert all(v > 0 for k, v in measured.items() if k.endswith("_to_native"))
    for f in gateway.SHARE_FORMS:
        assert 0 < share[f]["records_per_fetch"] <= gateway.BATCH
    assert {t["name"] for t in summary["targets"]} == {
        f"gateway {kind} {f}: its CPU a record"
        for kind, forms in (("produce", gateway.PRODUCE_FORMS), ("share", gateway.SHARE_FORMS))
        for f in forms
        if f != "native" and f not in gateway.PER_REQUEST
    }
    assert produce["gateway_batch_us_per_request"] is not None
    # the floors: the same client and answers, the records in Kafka for the second
    for floor in gateway.FLOOR_FORMS:
        assert produce[floor]["records"] > 0 and produce[floor]["gateway_us_per_record"] > 0
        assert summary[f"produce_{floor.replace('-', '_')}_gateway_us_per_record"]["median"] > 0


def test_the_command_line_answers_help() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "benchmarks.gateway", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--bootstrap" in r.stdout


def test_pin_moves_every_thread_of_a_process_onto_the_cores_given() -> None:
    cores = sorted(os.sched_getaffinity(0))
    threads = "import threading, time; [threading.Thread(target=time.sleep, args=(30,)).start()"
    child = subprocess.Popen([sys.executable, "-c", threads + " for _ in range(3)]"])
    try:
        tasks = Path(f"/proc/{child.pid}/task")
        # the three threads started (four tasks with the main one)
        for _ in range(200):
            if len(list(tasks.iterdir())) >= 4:
                break
            time.sleep(0.01)
        gateway.pin(child.pid, {cores[0]})
        assert {frozenset(os.sched_getaffinity(int(t.name))) for t in tasks.iterdir()} == {
            frozenset({cores[0]})
        }
    finally:
        child.kill()
        child.wait()
