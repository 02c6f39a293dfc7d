"""W4 transactions: consume-transform-produce in 100-record transactions; idempotent produce.

Each run starts a fresh server (fsync=always) and fills an input topic of 4 partitions with
``--records`` records of 256 bytes. Then 4 workers (one per input partition, each with its own
transactional id) loop: read up to 100 records read_committed from their partition → produce
100 results to the output topic in a transaction → commit. The consumed position is kept by the
worker (consumer-group offsets in the transaction come with consumer groups). Reported: commits
per second, commit p50/p99 and whole-transaction p99. The output's read_committed records must
equal the input's.

Then the same number of records is produced with 4 concurrent connections, 100 records per
request, once as plain produce and once through ``POST /v1/produce`` with producer ids and
sequences (idempotent), to show what sequence checking costs.

The load generator is this process (asyncio, httpx), separate from the server process.

    python -m benchmarks.transactions [--runs 3] [--records 40000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any

import httpx

from benchmarks import _harness as h

NAME = "transactions"
WORKERS = 4
BATCH = 100


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


async def _check(r: httpx.Response) -> dict[str, Any]:
    if r.status_code != 200:
        raise h.BenchError(f"{r.request.method} {r.request.url.path} answered {r.status_code}: "
                           f"{r.text[:300]}")
    body: dict[str, Any] = r.json()
    for b in body.get("batches", ()):
        if b["error"] is not None:
            raise h.BenchError(f"batch error: {b['error']}")
    return body


async def _fill(c: httpx.AsyncClient, records: int, value: str) -> None:
    per = records // WORKERS
    for p in range(WORKERS):
        for start in range(0, per, BATCH):
            n = min(BATCH, per - start)
            await _check(await c.post("/v1/topics/in/records", json={"records": [
                {"value": value, "partition": p} for _ in range(n)]}))


async def _worker(c: httpx.AsyncClient, p: int, total: int, commits: list[float],
                  txns: list[float]) -> None:
    r = await _check(await c.post("/v1/producers", json={"transactional_id": f"w{p}",
                                                         "transaction_timeout_ms": 60_000}))
    pid, epoch = r["producer_id"], r["producer_epoch"]
    offset = done = 0
    while done < total:
        r = await _check(await c.get(f"/v1/topics/in/partitions/{p}/records", params={
            "offset": offset, "max_records": BATCH, "isolation_level": "read_committed"}))
        recs = r["records"]
        offset = r["next_offset"]
        began = time.perf_counter()
        await _check(await c.post("/v1/produce", json={
            "producer_id": pid, "producer_epoch": epoch, "transactional_id": f"w{p}",
            "batches": [{"topic": "out", "partition": p, "base_sequence": 0,
                         "records": [{"value": x["value"].upper()} for x in recs]}]}))
        committed = time.perf_counter()
        r = await _check(await c.post(f"/v1/transactions/w{p}/commit",
                                      json={"producer_id": pid, "producer_epoch": epoch}))
        ended = time.perf_counter()
        pid, epoch = r["producer_id"], r["producer_epoch"]
        commits.append(ended - committed)
        txns.append(ended - began)
        done += len(recs)


async def _w4(url: str, records: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        await _fill(c, records, "x" * 256)
        commits: list[float] = []
        txns: list[float] = []
        began = time.perf_counter()
        await asyncio.gather(*(_worker(c, p, records // WORKERS, commits, txns)
                               for p in range(WORKERS)))
        took = time.perf_counter() - began
        for p in range(WORKERS):
            r = await _check(await c.get(f"/v1/topics/out/partitions/{p}/offsets", params={
                "at": "latest", "isolation_level": "read_committed"}))
            # every transaction added BATCH records and one marker
            expected = (records // WORKERS) + (records // WORKERS + BATCH - 1) // BATCH
            if r["offset"] != expected:
                raise h.BenchError(f"output partition {p} ends at {r['offset']}, not {expected}")
    return {"commits": len(commits), "seconds": round(took, 3),
            "commits_per_s": round(len(commits) / took, 1),
            "records_per_s": round(records / took, 1),
            "commit_ms": {"p50": _pct(commits, 0.5), "p99": _pct(commits, 0.99),
                          "mean": round(statistics.fmean(commits) * 1000, 3)},
            "transaction_ms": {"p50": _pct(txns, 0.5), "p99": _pct(txns, 0.99)}}


async def _produce(url: str, records: int, idempotent: bool) -> dict[str, Any]:
    value = "y" * 256
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        topic = "idem" if idempotent else "plain"
        latencies: list[float] = []

        async def one(p: int) -> None:
            pid = -1
            if idempotent:
                pid = (await _check(await c.post("/v1/producers", json={})))["producer_id"]
            seq = 0
            for _ in range(0, records // WORKERS, BATCH):
                recs = [{"value": value} for _ in range(BATCH)]
                t0 = time.perf_counter()
                if idempotent:
                    await _check(await c.post("/v1/produce", json={
                        "producer_id": pid, "producer_epoch": 0, "batches": [
                            {"topic": topic, "partition": p, "base_sequence": seq,
                             "records": recs}]}))
                else:
                    await _check(await c.post(f"/v1/topics/{topic}/records", json={
                        "records": [{**r, "partition": p} for r in recs]}))
                latencies.append(time.perf_counter() - t0)
                seq += BATCH

        began = time.perf_counter()
        await asyncio.gather(*(one(p) for p in range(WORKERS)))
        took = time.perf_counter() - began
    return {"records_per_s": round(records / took, 1), "p99_ms": _pct(latencies, 0.99)}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    with h.Workdir("transactions", args.tmp, args.keep) as wd:
        server = h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args))
        with server:
            server.wait_ready()
            for name in ("in", "out", "plain", "idem"):
                h.create_topic(server, name, WORKERS)
            out: dict[str, Any] = {"w4": asyncio.run(_w4(server.base_url, args.records))}
            out["plain"] = asyncio.run(_produce(server.base_url, args.produce_records, False))
            out["idempotent"] = asyncio.run(_produce(server.base_url, args.produce_records,
                                                     True))
            out["server_memory"] = server.memory()
            out["stop_s"] = round(server.stop(), 3)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
        args.records = min(args.records, 2_000)
        args.produce_records = min(args.produce_records, 4_000)
    runs: list[dict[str, Any]] = []
    busy: list[float] = []
    for i in h.iter_runs(args, busy):
        h.log(f"[transactions] run {i}/{args.runs}")
        r = measure(args)
        runs.append(r)
        w = r["w4"]
        h.log(f"  W4: {w['commits_per_s']:,.0f} commits/s, commit p50 {w['commit_ms']['p50']} "
              f"ms, p99 {w['commit_ms']['p99']} ms; transaction p99 "
              f"{w['transaction_ms']['p99']} ms")
        h.log(f"  produce: plain {r['plain']['records_per_s']:,.0f} records/s, idempotent "
              f"{r['idempotent']['records_per_s']:,.0f} records/s")
    summary: dict[str, Any] = {
        "other_busy_cores_before_runs": busy,
        "commits_per_s": h.spread([r["w4"]["commits_per_s"] for r in runs]),
        "commit_ms_p99": h.spread([r["w4"]["commit_ms"]["p99"] for r in runs]),
        "transaction_ms_p99": h.spread([r["w4"]["transaction_ms"]["p99"] for r in runs]),
        "plain_records_per_s": h.spread([r["plain"]["records_per_s"] for r in runs]),
        "idempotent_records_per_s": h.spread([r["idempotent"]["records_per_s"] for r in runs]),
        "idempotent_to_plain": h.spread([r["idempotent"]["records_per_s"]
                                         / r["plain"]["records_per_s"] for r in runs]),
    }
    targets = [
        h.target("W4 transactions: commits/s", summary["commits_per_s"], 100, "commits/s"),
        h.target("W4 transactions: commit p99", summary["commit_ms_p99"], 50, "ms",
                 higher_is_better=False),
        h.target("idempotent produce / plain produce", summary["idempotent_to_plain"], 0.8,
                 "ratio"),
    ]
    summary["targets"] = targets
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": runs}, args.out)
    h.print_targets(f"transactions ({path})", targets)
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--records", type=int, default=40_000,
                        help="records consumed and produced in transactions (default 40000)")
    parser.add_argument("--produce-records", type=int, default=200_000,
                        help="records of the plain versus idempotent comparison")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.transactions",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_args(parser)
    args = parser.parse_args(argv)
    try:
        run(args)
    except h.BenchError as exc:
        h.log(f"transactions: FAILED: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
