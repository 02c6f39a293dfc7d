"""Fuzzing: schemathesis against the server's own ``/openapi.json``, with all of its checks.

    python -m benchmarks.fuzz                          # 100 examples an operation
    python -m benchmarks.fuzz --max-examples 5         # what make test runs

A real server (fsync=always) on a fresh data directory, with one API key whose principal is a
super-user (the key is made before the server starts, so the fuzzer's own calls to the key
endpoints cannot lock it out); schemathesis runs every phase (examples, coverage, fuzzing,
stateful) with ``--checks all``, a fixed seed, one worker and a per-request timeout (a hang is a
failure); any failed check fails the run. ``benchmarks/fuzz.toml`` configures it: the two
state-dependent answers of the wire contract that no document can state, each explained.

After the run, the server must still be consistent: every partition of every topic is read from
its log start to its high watermark, every consumer and share group and every transaction is
described; then the server is stopped with SIGTERM, started again on the same directory, and the
same checks pass. Writes ``benchmarks/results/fuzz-<commit>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks._harness import (
    REPO_ROOT,
    RESULTS_DIR,
    Workdir,
    log,
    sluice_server,
    write_result,
)

CONFIG = REPO_ROOT / "benchmarks" / "fuzz.toml"  # the state-dependent answers, each explained
PRINCIPAL = "fuzzer"


def make_key(data: Path) -> str:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "keys",
            "create",
            "--principal",
            PRINCIPAL,
            "--data-dir",
            str(data),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


# Data made before the run: the topics, groups and producer the documented examples name (so
# that the fuzzer reaches past "not found"), and one topic whose records are checked one by one
# after the run. The fuzzer may delete it (the stateful phase deletes what listings show) or
# delete its oldest records; what is left must be exactly what was produced.
SEED_TOPIC, SEED_RECORDS = "fuzz-seed-kept", 1000


def seed(base_url: str, key: str) -> None:
    h = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=base_url, headers=h, timeout=30) as c:
        for name, partitions in (("orders", 3), ("thumbnails", 1), (SEED_TOPIC, 2)):
            c.post("/v1/topics", json={"name": name, "partitions": partitions}).raise_for_status()
        for i in range(0, SEED_RECORDS, 100):
            records = [{"value": f"seed-{j}", "partition": j % 2} for j in range(i, i + 100)]
            r = c.post(f"/v1/topics/{SEED_TOPIC}/records", json={"records": records})
            r.raise_for_status()
        c.post(
            "/v1/topics/orders/records", json={"records": [{"value": f"o{i}"} for i in range(30)]}
        ).raise_for_status()
        for group in ("billing", "analytics"):
            c.post(
                f"/v1/groups/{group}/offsets",
                json={"offsets": [{"topic": "orders", "partition": 0, "offset": 1}]},
            ).raise_for_status()
            c.post(
                f"/v1/share-groups/{group}/heartbeat",
                json={"member_epoch": 0, "subscribed_topics": ["orders"]},
            ).raise_for_status()
        c.post(
            "/v1/producers",
            json={"transactional_id": "orders-tx", "transaction_timeout_ms": 60_000},
        ).raise_for_status()


def seed_kept(base_url: str, key: str) -> tuple[int, list[str]]:
    """(records checked, problems) of the seeded topic: from each partition's log start to its
    end, every record as produced, at its offset. Nothing to check once it is deleted."""
    h = {"Authorization": f"Bearer {key}"}
    checked, problems = 0, []
    with httpx.Client(base_url=base_url, headers=h, timeout=30) as c:
        d = c.get(f"/v1/topics/{SEED_TOPIC}")
        if d.status_code == 404:
            return 0, []
        for p in d.raise_for_status().json()["partitions"]:
            n = p["partition"]
            start = p["log_start_offset"]
            r = c.get(
                f"/v1/topics/{SEED_TOPIC}/partitions/{n}/records",
                params={"offset": start, "max_records": SEED_RECORDS},
            )
            seen = [(x["offset"], x["value"]) for x in r.json()["records"]]
            produced = list(enumerate(f"seed-{j}" for j in range(n, SEED_RECORDS, 2)))
            if (
                r.status_code != 200
                or p["high_watermark"] != len(produced)
                or seen != produced[start:]
            ):
                problems.append(f"{SEED_TOPIC}/{n}: not as produced")
            checked += len(seen)
    return checked, problems


def consistency(base_url: str, key: str) -> dict[str, Any]:
    """Read every partition end to end and describe every group and transaction; the seeded
    topic's records must all be there as produced."""
    h = {"Authorization": f"Bearer {key}"}
    out: dict[str, Any] = {
        "topics": 0,
        "partitions": 0,
        "records": 0,
        "groups": 0,
        "share_groups": 0,
        "transactions": 0,
        "problems": [],
    }
    with httpx.Client(base_url=base_url, headers=h, timeout=30) as c:
        for t in c.get("/v1/topics").raise_for_status().json()["topics"]:
            out["topics"] += 1
            d = c.get(f"/v1/topics/{t['name']}")
            if d.status_code != 200:
                out["problems"].append(f"describe topic {t['name']}: {d.status_code}")
                continue
            for p in d.json()["partitions"]:
                out["partitions"] += 1
                offset, end = p["log_start_offset"], p["high_watermark"]
                while offset < end:
                    r = c.get(
                        f"/v1/topics/{t['name']}/partitions/{p['partition']}/records",
                        params={"offset": offset, "max_records": 10_000, "encoding": "base64"},
                    )
                    if r.status_code != 200 or r.json()["next_offset"] <= offset:
                        out["problems"].append(
                            f"read {t['name']}/{p['partition']} at {offset}: {r.status_code}"
                        )
                        break
                    out["records"] += len(r.json()["records"])
                    offset = r.json()["next_offset"]
        for kind, path, key_name in (
            ("groups", "/v1/groups", "groups"),
            ("share_groups", "/v1/share-groups", "share_groups"),
            ("transactions", "/v1/transactions", "transactions"),
        ):
            listing = c.get(path).raise_for_status().json()[key_name]
            for item in listing:
                name = item.get("group_id") or item.get("transactional_id")
                r = c.get(f"{path}/{name}")
                out[kind] += 1
                if r.status_code != 200:
                    out["problems"].append(f"describe {path}/{name}: {r.status_code}")
    out["seed_records_checked"], problems = seed_kept(base_url, key)
    out["problems"] += problems
    return out


def fuzz(base_url: str, key: str, args: argparse.Namespace, report: Path) -> dict[str, Any]:
    argv = [
        str(Path(sys.executable).with_name("st")),
        "--config-file",
        str(CONFIG),
        "run",
        f"{base_url}/openapi.json",
        "--checks",
        "all",
        "-n",
        str(args.max_examples),
        "--seed",
        str(args.seed),
        "-w",
        "1",
        "--request-timeout",
        "10",
        "--generation-deterministic",
        "-H",
        f"Authorization: Bearer {key}",
        "--report",
        "json",
        "--report-json-path",
        str(report),
        # the key admin operations are left out: they would revoke the fuzzer's own key (found
        # through GET /v1/admin/keys) and every later request would be 401; the tests of
        # tests/integration/test_authentication.py cover them
        "--exclude-path-regex",
        "^/v1/admin/keys",
    ]
    started = time.monotonic()
    # in the run's own directory: schemathesis keeps a cache of examples in its working directory
    # benchmarks/fuzz_hooks.py: how a record-batch body is sent (the fuzzer has no serializer
    # for the media type of its own)
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "benchmarks.fuzz_hooks"}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p
    )
    run = subprocess.run(
        argv, capture_output=True, text=True, timeout=args.timeout, cwd=report.parent, env=env
    )
    summary = (
        run.stdout[run.stdout.rfind("SUMMARY") :] if "SUMMARY" in run.stdout else run.stdout[-3000:]
    )
    return {
        "failures_text": run.stdout[: run.stdout.find("SUMMARY")][-200_000:],
        "exit_code": run.returncode,
        "duration_s": round(time.monotonic() - started, 1),
        "summary": summary,
        "report": json.loads(report.read_text()) if report.exists() else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.fuzz", description=__doc__.split("\n")[0]
    )
    p.add_argument("--max-examples", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument("--out-dir", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    with Workdir("fuzz") as work:
        data = work.path / "data"
        key = make_key(data)
        # long polls end within 2 s, so that the request timeout (10 s) tells a hang from one
        env = {"SLUICE_SUPER_USERS": PRINCIPAL, "SLUICE_MAX_WAIT_MS": "2000"}
        with sluice_server(data, work.log("server"), extra_env=env) as server:
            server.wait_ready()
            seed(server.base_url, key)
            result = fuzz(server.base_url, key, args, work.path / "report.json")
            server.check_alive()
            before = consistency(server.base_url, key)
            stop_s = server.stop()
        with sluice_server(data, work.log("server-restart"), extra_env=env) as server:
            ready_s = server.wait_ready()
            after = consistency(server.base_url, key)
            server.stop()
    print(result["summary"])
    ok = result["exit_code"] == 0 and not before["problems"] and not after["problems"]
    results = {
        "passed": ok,
        "schemathesis_exit_code": result["exit_code"],
        "duration_s": result["duration_s"],
        "summary": result["summary"],
        "failures": result["failures_text"],
        "consistency_before_restart": before,
        "consistency_after_restart": after,
        "stop_s": round(stop_s, 2),
        "restart_ready_s": round(ready_s, 2),
    }
    params = {k: v for k, v in vars(args).items() if k != "out_dir"}
    path = write_result("fuzz", params, results, args.out_dir)
    log(f"wrote {path}: passed={ok}, consistency {before} / after restart {after}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
