"""W4 transactions in-process: per-step timing of one sequential worker, and durable writes.

One app in this process (fsync=always, its own temporary data directory), driven through its
ASGI interface (no sockets, so the timings are the server's own work plus the client's). A
worker loops: produce 100 records in a transaction → send the input offset for group ``w4``
(KIP-447) → commit. Reported per step: median and p99 in ms; per transaction: SQLite writers
served, SQLite commits, log fsync rounds and files fsynced (counted by the database and the
flusher). Then ``--workers`` concurrent workers run the same loop, to show how many writers
share a commit.

    python -m benchmarks.txn_steps [--transactions 300] [--workers 4] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.config import Settings
from app.main import create_app
from app.runtime import Broker

BATCH = 100
GROUP = "w4"


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


async def _ok(r: httpx.Response) -> dict[str, Any]:
    if not 200 <= r.status_code < 300:
        raise SystemExit(
            f"{r.request.method} {r.request.url} answered {r.status_code}: {r.text[:200]}"
        )
    body: dict[str, Any] = r.json()
    return body


async def _worker(c: httpx.AsyncClient, p: int, n: int, steps: dict[str, list[float]]) -> None:
    tid = f"s{p}"
    r = await _ok(
        await c.post(
            "/v1/producers", json={"transactional_id": tid, "transaction_timeout_ms": 60_000}
        )
    )
    pid, epoch = r["producer_id"], r["producer_epoch"]
    records = [{"value": "X" * 256}] * BATCH
    for i in range(n):
        t0 = time.perf_counter()
        await _ok(
            await c.post(
                "/v1/produce",
                json={
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "transactional_id": tid,
                    "batches": [
                        {"topic": "out", "partition": p, "base_sequence": 0, "records": records}
                    ],
                },
            )
        )
        t1 = time.perf_counter()
        await _ok(
            await c.post(
                f"/v1/transactions/{tid}/offsets",
                json={
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "group_id": GROUP,
                    "member_id": None,
                    "member_epoch": -1,
                    "offsets": [{"topic": "in", "partition": p, "offset": (i + 1) * BATCH}],
                },
            )
        )
        t2 = time.perf_counter()
        r = await _ok(
            await c.post(
                f"/v1/transactions/{tid}/commit", json={"producer_id": pid, "producer_epoch": epoch}
            )
        )
        t3 = time.perf_counter()
        pid, epoch = r["producer_id"], r["producer_epoch"]
        steps["produce"].append(t1 - t0)
        steps["offsets"].append(t2 - t1)
        steps["commit"].append(t3 - t2)
        steps["transaction"].append(t3 - t0)


async def _phase(c: httpx.AsyncClient, broker: Broker, workers: int, n: int) -> dict[str, Any]:
    steps: dict[str, list[float]] = {k: [] for k in ("produce", "offsets", "commit", "transaction")}
    writes, commits = broker.db.stats.writes, broker.db.stats.commits
    rounds, fsyncs = broker.flusher.stats.rounds, broker.flusher.stats.fsyncs
    began = time.perf_counter()
    await asyncio.gather(*(_worker(c, p, n, steps) for p in range(workers)))
    took = time.perf_counter() - began
    txns = workers * n
    return {
        "workers": workers,
        "transactions_per_s": round(txns / took, 1),
        "ms": {
            k: {
                "p50": _ms(v, 0.5),
                "p99": _ms(v, 0.99),
                "mean": round(statistics.fmean(v) * 1000, 3),
            }
            for k, v in steps.items()
        },
        "per_transaction": {
            "sqlite_writers": round((broker.db.stats.writes - writes) / txns, 2),
            "sqlite_commits": round((broker.db.stats.commits - commits) / txns, 2),
            "log_fsync_rounds": round((broker.flusher.stats.rounds - rounds) / txns, 2),
            "log_fsyncs": round((broker.flusher.stats.fsyncs - fsyncs) / txns, 2),
        },
        "sqlite_commits_per_s": round((broker.db.stats.commits - commits) / took, 1),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sluice-steps-") as tmp:
        app = create_app(Settings(data_dir=str(Path(tmp) / "data"), fsync="always"))
        async with app.router.lifespan_context(app):
            broker: Broker = app.state.broker
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://localhost", timeout=60
            ) as c:
                for name in ("in", "out"):
                    await _ok(
                        await c.post(
                            "/v1/topics", json={"name": name, "partitions": max(4, args.workers)}
                        )
                    )
                out = {
                    "sequential": await _phase(c, broker, 1, args.transactions),
                    "concurrent": await _phase(
                        c, broker, args.workers, args.transactions // args.workers
                    ),
                }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.txn_steps",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--transactions", type=int, default=300)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="20 transactions")
    args = parser.parse_args(argv)
    if args.quick:
        args.transactions = min(args.transactions, 20)
    out = asyncio.run(main_async(args))
    for phase, r in out.items():
        steps = ", ".join(f"{k} {v['p50']} ms" for k, v in r["ms"].items())
        print(
            f"{phase} ({r['workers']} workers): {r['transactions_per_s']} txn/s; p50 {steps}; "
            f"per transaction {r['per_transaction']}; "
            f"{r['sqlite_commits_per_s']} SQLite commits/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
