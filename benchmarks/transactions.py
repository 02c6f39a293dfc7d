"""W4 transactions: consume-transform-produce in 100-record transactions; idempotent produce.

Each run starts a fresh server (fsync=always) and fills an input topic of 4 partitions with
``--records`` records of 256 bytes. Then 4 workers (one per input partition, each with its own
transactional id and its own keep-alive connection) loop: read up to 100 records
read_committed from their partition → produce 100 results to the output topic in a
transaction → send the input offset to the transaction for consumer group ``w4`` (KIP-447;
the group has no members, as for consumers that assign partitions themselves) → commit.
Reported: commits per second, commit p50/p99 and whole-transaction p99. The output's
read_committed records must equal the input's, and the group's committed offsets must cover the
input.

Then the same number of records is produced with 4 concurrent connections, 100 records per
request, once as plain produce and once through ``POST /v1/produce`` with producer ids and
sequences (idempotent), to show what sequence checking costs.

The load generator is this process on the minimal HTTP/1.1 client of ``_loadgen`` (httpx
would be the bottleneck at these request rates), separate from the server process.

Targets (the issue's): >= 1,000 committed transactions/s, commit p99 <= 25 ms, idempotent
produce within 10 % of plain produce.

    python -m benchmarks.transactions [--runs 3] [--records 40000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from benchmarks import _harness as h
from benchmarks._loadgen import RawConnection

NAME = "transactions"
WORKERS = 4
BATCH = 100
GROUP = "w4"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


def _connect(url: str) -> RawConnection:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return RawConnection(parts.hostname, parts.port)


async def _call(
    conn: RawConnection, method: str, target: str, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    status, raw = await conn.request(method, target, None if body is None else orjson.dumps(body))
    if status != 200:
        raise h.BenchError(f"{method} {target} answered {status}: {raw[:300]!r}")
    answer: dict[str, Any] = orjson.loads(raw)
    for item in answer.get("batches", ()):
        if item["error"] is not None:
            raise h.BenchError(f"batch error: {item['error']}")
    return answer


async def _fill(url: str, records: int, value: str) -> None:
    per = records // WORKERS
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        for p in range(WORKERS):
            for start in range(0, per, BATCH):
                n = min(BATCH, per - start)
                r = await c.post(
                    "/v1/topics/in/records",
                    json={"records": [{"value": value, "partition": p} for _ in range(n)]},
                )
                if r.status_code != 200:
                    raise h.BenchError(f"filling the input answered {r.status_code}")


async def _worker(url: str, p: int, total: int, commits: list[float], txns: list[float]) -> None:
    conn = _connect(url)
    tid = f"w{p}"
    try:
        r = await _call(
            conn,
            "POST",
            "/v1/producers",
            {"transactional_id": tid, "transaction_timeout_ms": 60_000},
        )
        pid, epoch = r["producer_id"], r["producer_epoch"]
        offset = done = 0
        while done < total:
            r = await _call(
                conn,
                "GET",
                f"/v1/topics/in/partitions/{p}/records?offset={offset}"
                f"&max_records={BATCH}&isolation_level=read_committed",
            )
            recs = r["records"]
            offset = r["next_offset"]
            began = time.perf_counter()
            await _call(
                conn,
                "POST",
                "/v1/produce",
                {
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "transactional_id": tid,
                    "batches": [
                        {
                            "topic": "out",
                            "partition": p,
                            "base_sequence": 0,
                            "records": [{"value": x["value"].upper()} for x in recs],
                        }
                    ],
                },
            )
            await _call(
                conn,
                "POST",
                f"/v1/transactions/{tid}/offsets",
                {
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "group_id": GROUP,
                    "member_id": None,
                    "member_epoch": -1,
                    "offsets": [{"topic": "in", "partition": p, "offset": offset}],
                },
            )
            committed = time.perf_counter()
            r = await _call(
                conn,
                "POST",
                f"/v1/transactions/{tid}/commit",
                {"producer_id": pid, "producer_epoch": epoch},
            )
            ended = time.perf_counter()
            pid, epoch = r["producer_id"], r["producer_epoch"]
            commits.append(ended - committed)
            txns.append(ended - began)
            done += len(recs)
    finally:
        await conn.close()


async def _w4(url: str, records: int) -> dict[str, Any]:
    await _fill(url, records, "x" * 256)
    commits: list[float] = []
    txns: list[float] = []
    began = time.perf_counter()
    await asyncio.gather(
        *(_worker(url, p, records // WORKERS, commits, txns) for p in range(WORKERS))
    )
    took = time.perf_counter() - began
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        per = records // WORKERS
        for p in range(WORKERS):
            r = await c.get(
                f"/v1/topics/out/partitions/{p}/offsets",
                params={"at": "latest", "isolation_level": "read_committed"},
            )
            # every transaction added BATCH records and one marker
            expected = per + (per + BATCH - 1) // BATCH
            if r.json()["offset"] != expected:
                raise h.BenchError(
                    f"output partition {p} ends at {r.json()['offset']}, not {expected}"
                )
        got = (
            await c.get(
                f"/v1/groups/{GROUP}/offsets", params={"topic": "in", "require_stable": "true"}
            )
        ).json()
        offsets = {o["partition"]: o["offset"] for o in got["offsets"]}
        if offsets != {p: per for p in range(WORKERS)}:
            raise h.BenchError(f"committed offsets {offsets} do not cover the input")
    return {
        "commits": len(commits),
        "seconds": round(took, 3),
        "commits_per_s": round(len(commits) / took, 1),
        "records_per_s": round(records / took, 1),
        "commit_ms": {
            "p50": _pct(commits, 0.5),
            "p99": _pct(commits, 0.99),
            "mean": round(statistics.fmean(commits) * 1000, 3),
        },
        "transaction_ms": {"p50": _pct(txns, 0.5), "p99": _pct(txns, 0.99)},
    }


async def _produce(url: str, records: int, idempotent: bool) -> dict[str, Any]:
    value = "y" * 256
    topic = "idem" if idempotent else "plain"
    latencies: list[float] = []

    async def one(p: int) -> None:
        conn = _connect(url)
        try:
            pid = -1
            if idempotent:
                pid = (await _call(conn, "POST", "/v1/producers", {}))["producer_id"]
            seq = 0
            plain = orjson.dumps({"records": [{"value": value, "partition": p}] * BATCH})
            for _ in range(0, records // WORKERS, BATCH):
                t0 = time.perf_counter()
                if idempotent:
                    await _call(
                        conn,
                        "POST",
                        "/v1/produce",
                        {
                            "producer_id": pid,
                            "producer_epoch": 0,
                            "batches": [
                                {
                                    "topic": topic,
                                    "partition": p,
                                    "base_sequence": seq,
                                    "records": [{"value": value}] * BATCH,
                                }
                            ],
                        },
                    )
                else:
                    status, raw = await conn.request("POST", f"/v1/topics/{topic}/records", plain)
                    if status != 200:
                        raise h.BenchError(f"plain produce answered {status}: {raw[:200]!r}")
                latencies.append(time.perf_counter() - t0)
                seq += BATCH
        finally:
            await conn.close()

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
            out["idempotent"] = asyncio.run(_produce(server.base_url, args.produce_records, True))
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
        h.log(
            f"  W4: {w['commits_per_s']:,.0f} commits/s, commit p50 {w['commit_ms']['p50']} "
            f"ms, p99 {w['commit_ms']['p99']} ms; transaction p99 "
            f"{w['transaction_ms']['p99']} ms"
        )
        h.log(
            f"  produce: plain {r['plain']['records_per_s']:,.0f} records/s, idempotent "
            f"{r['idempotent']['records_per_s']:,.0f} records/s"
        )
    summary: dict[str, Any] = {
        "other_busy_cores_before_runs": busy,
        "commits_per_s": h.spread([r["w4"]["commits_per_s"] for r in runs]),
        "commit_ms_p99": h.spread([r["w4"]["commit_ms"]["p99"] for r in runs]),
        "transaction_ms_p99": h.spread([r["w4"]["transaction_ms"]["p99"] for r in runs]),
        "plain_records_per_s": h.spread([r["plain"]["records_per_s"] for r in runs]),
        "idempotent_records_per_s": h.spread([r["idempotent"]["records_per_s"] for r in runs]),
        "idempotent_to_plain": h.spread(
            [r["idempotent"]["records_per_s"] / r["plain"]["records_per_s"] for r in runs]
        ),
    }
    targets = [
        h.target("W4 transactions: commits/s", summary["commits_per_s"], 1000, "commits/s"),
        h.target(
            "W4 transactions: commit p99",
            summary["commit_ms_p99"],
            25,
            "ms",
            higher_is_better=False,
        ),
        h.target(
            "idempotent produce / plain produce", summary["idempotent_to_plain"], 0.9, "ratio"
        ),
    ]
    summary["targets"] = targets
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": runs}, args.out)
    h.print_targets(f"transactions ({path})", targets)
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument(
        "--records",
        type=int,
        default=40_000,
        help="records consumed and produced in transactions (default 40000)",
    )
    parser.add_argument(
        "--produce-records",
        type=int,
        default=200_000,
        help="records of the plain versus idempotent comparison",
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main("transactions", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
