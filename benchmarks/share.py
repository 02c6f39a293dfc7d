"""Share groups: W2 consume-and-acknowledge, W3 redelivery, and server memory of many groups.

- **W2**: 200,000 records of 256 B on 4 partitions; 4 consumers (own process, asyncio, the
  minimal HTTP/1.1 client of ``_loadgen``: httpx would be the bottleneck) each fetch up to 100
  records and acknowledge them, until every record is acknowledged.
  Records/s, and p50/p99 of the fetch and acknowledge calls.
- **W3**: 10,000 records; on first delivery every other record is released, the rest accepted.
  Time from the last release to all acknowledged, loss (records never acknowledged: must be 0)
  and redeliveries (must equal the releases).
- **memory**: 100 share groups × 8 partitions, each partition's window filled to the default
  2000 in-flight records by one fetching member, then every other record released (the worst
  case: one run per record); server RSS after each phase.

    python -m benchmarks.share [--runs 3] [--quick] [--only w2 w3 memory]

The consumers run in their own process (``--consume-spec``) so they do not share the server's
CPU accounting; all results go to ``benchmarks/results/share-<commit>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from benchmarks import _harness as h
from benchmarks._loadgen import RawConnection

NAME = "share"
MB = 1_000_000


# -- the consumer process ---------------------------------------------------------------------


async def _consume(spec: dict[str, Any]) -> dict[str, Any]:
    url, group, total = spec["url"], spec["group"], spec["records"]
    release_half = spec["release_half"]
    acked: set[tuple[int, int]] = set()
    fetch_ms: list[float] = []
    ack_ms: list[float] = []
    state = {"releases": 0, "redeliveries": 0, "last_release": 0.0}
    done = asyncio.Event()
    began = time.perf_counter()

    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None

    async def consumer() -> None:
        conn = RawConnection(parts.hostname, parts.port)

        async def post(path: str, body: dict[str, Any]) -> tuple[int, Any]:
            status, raw = await conn.request("POST", path, orjson.dumps(body))
            return status, orjson.loads(raw)

        try:
            _, joined = await post(
                f"/v1/share-groups/{group}/heartbeat",
                {"member_id": None, "member_epoch": 0, "subscribed_topics": [spec["topic"]]},
            )
            member = joined["member_id"]
            while not done.is_set():
                t0 = time.perf_counter()
                status, got = await post(
                    f"/v1/share-groups/{group}/fetch",
                    {"member_id": member, "max_records": spec["max_records"], "max_wait_ms": 100},
                )
                fetch_ms.append((time.perf_counter() - t0) * 1000)
                if status != 200:
                    raise RuntimeError(f"fetch answered {status}: {str(got)[:200]}")
                recs = got["records"]
                if not recs:
                    continue
                acks: list[dict[str, Any]] = []
                for x in sorted(recs, key=lambda x: (x["partition"], x["offset"])):
                    kind = "accept"
                    if x["delivery_count"] > 1:
                        state["redeliveries"] += 1
                    elif release_half and x["offset"] % 2 == 0:
                        kind = "release"
                    last = acks[-1] if acks else None
                    if (
                        last is not None
                        and last["partition"] == x["partition"]
                        and last["last_offset"] == x["offset"] - 1
                        and last["type"] == kind
                    ):
                        last["last_offset"] = x["offset"]  # contiguous: one range
                        continue
                    acks.append(
                        {
                            "topic": spec["topic"],
                            "partition": x["partition"],
                            "first_offset": x["offset"],
                            "last_offset": x["offset"],
                            "type": kind,
                        }
                    )
                t0 = time.perf_counter()
                status, got = await post(
                    f"/v1/share-groups/{group}/acknowledge",
                    {"member_id": member, "acknowledgements": acks},
                )
                ack_ms.append((time.perf_counter() - t0) * 1000)
                if status != 200 or any(x["error"] for x in got["results"]):
                    raise RuntimeError(f"acknowledge answered {status}: {str(got)[:200]}")
                for a in acks:
                    span = range(a["first_offset"], a["last_offset"] + 1)
                    if a["type"] == "release":
                        state["releases"] += len(span)
                        state["last_release"] = time.perf_counter()
                    else:
                        acked.update((a["partition"], o) for o in span)
                if len(acked) >= total:
                    done.set()
        finally:
            await conn.close()

    tasks = [asyncio.create_task(consumer()) for _ in range(spec["consumers"])]
    finished = asyncio.create_task(done.wait())
    # consumers end only by failing; the run ends when everything is acknowledged
    await asyncio.wait(
        [finished, *tasks], timeout=spec["max_seconds"], return_when=asyncio.FIRST_COMPLETED
    )
    finished.cancel()
    for t in tasks:
        t.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    errors = [repr(e) for e in results if not isinstance(e, asyncio.CancelledError | None)]
    ended = time.perf_counter()
    return {
        "acknowledged": len(acked),
        "seconds": round(ended - began, 3),
        "records_per_s": round(len(acked) / (ended - began), 1),
        "fetch_ms": h.latency_summary(fetch_ms),
        "ack_ms": h.latency_summary(ack_ms),
        "releases": state["releases"],
        "redeliveries": state["redeliveries"],
        "drain_after_last_release_s": (
            round(ended - state["last_release"], 3) if state["last_release"] else None
        ),
        "errors": errors[:5],
    }


def consume(server: h.ServerProcess, spec: dict[str, Any]) -> dict[str, Any]:
    spec = {**spec, "url": server.base_url}
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.share", "--consume-spec", orjson.dumps(spec).decode()],
        cwd=h.REPO_ROOT,
        capture_output=True,
        timeout=spec["max_seconds"] + 60,
        check=False,
    )
    server.check_alive()
    if out.returncode != 0 or not out.stdout.strip():
        raise h.BenchError(f"consumers failed: {out.stderr.decode(errors='replace')[-2000:]}")
    result: dict[str, Any] = orjson.loads(out.stdout)
    if result["errors"]:
        raise h.BenchError(f"consumers failed: {result['errors']}")
    return result


# -- workloads --------------------------------------------------------------------------------


def _configure(server: h.ServerProcess, group: str) -> None:
    r = httpx.patch(
        f"{server.base_url}/v1/share-groups/{group}/config",
        json={"auto_offset_reset": "earliest"},
        timeout=30,
    )
    if r.status_code != 200:
        raise h.BenchError(f"configuring {group} answered {r.status_code}: {r.text[:200]}")


def _produce(
    server: h.ServerProcess, args: argparse.Namespace, records: int, partitions: int
) -> None:
    h.create_topic(server, "bench", partitions)
    h.run_loadgen(
        h.LoadSpec(
            port=server.port,
            mode="produce",
            topic="bench",
            partitions=list(range(partitions)),
            records=records,
            batch=100,
            value_bytes=args.record_bytes,
            concurrency=4,
            client=args.client,
            max_seconds=args.max_seconds,
        ),
        server,
    )


def run_w2(args: argparse.Namespace) -> dict[str, Any]:
    with h.Workdir("share-w2", args.tmp, args.keep) as wd:
        server = h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args))
        with server:
            server.wait_ready()
            _produce(server, args, args.w2_records, 4)
            _configure(server, "w2")
            result = consume(
                server,
                {
                    "group": "w2",
                    "topic": "bench",
                    "consumers": 4,
                    "records": args.w2_records,
                    "max_records": 100,
                    "release_half": False,
                    "max_seconds": args.max_seconds,
                },
            )
            server.stop()
    if result["acknowledged"] != args.w2_records:
        raise h.BenchError(f"W2 acknowledged {result['acknowledged']} of {args.w2_records}")
    h.log(
        f"  W2: {result['records_per_s']:,} records/s, fetch {result['fetch_ms']}, "
        f"ack {result['ack_ms']}"
    )
    return result


def run_w3(args: argparse.Namespace) -> dict[str, Any]:
    with h.Workdir("share-w3", args.tmp, args.keep) as wd:
        server = h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args))
        with server:
            server.wait_ready()
            _produce(server, args, args.w3_records, 1)
            _configure(server, "w3")
            result = consume(
                server,
                {
                    "group": "w3",
                    "topic": "bench",
                    "consumers": 4,
                    "records": args.w3_records,
                    "max_records": 100,
                    "release_half": True,
                    "max_seconds": args.max_seconds,
                },
            )
            server.stop()
    result["loss"] = args.w3_records - result["acknowledged"]
    if result["loss"] or result["redeliveries"] != result["releases"]:
        raise h.BenchError(
            f"W3: loss {result['loss']}, redeliveries {result['redeliveries']} "
            f"for {result['releases']} releases"
        )
    h.log(
        f"  W3: drained {result['drain_after_last_release_s']} s after the last release, "
        f"{result['releases']} releases, {result['redeliveries']} redeliveries"
    )
    return result


def run_memory(args: argparse.Namespace) -> dict[str, Any]:
    partitions, window = 8, args.window
    with h.Workdir("share-memory", args.tmp, args.keep) as wd:
        server = h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args))
        with server:
            server.wait_ready()
            _produce(server, args, partitions * window, partitions)
            start = server.memory()["VmRSS"]
            with httpx.Client(base_url=server.base_url, timeout=120) as c:
                members = {}
                for g in range(args.groups):
                    group = f"m{g}"
                    _configure(server, group)
                    got, member = 0, None
                    while got < partitions * window:
                        r = c.post(
                            f"/v1/share-groups/{group}/fetch",
                            json={
                                "member_id": member,
                                "subscribed_topics": ["bench"],
                                "max_records": 10_000,
                            },
                        )
                        body = r.json()
                        member = body["member_id"]
                        if not body["records"]:
                            raise h.BenchError(f"{group}: only {got} records acquired")
                        got += len(body["records"])
                    members[group] = member
                acquired = server.memory()["VmRSS"]
                for group, member in members.items():
                    for p in range(partitions):
                        acks = [
                            {
                                "topic": "bench",
                                "partition": p,
                                "first_offset": 0,
                                "last_offset": window - 1,
                                "types": ["release", "renew"] * (window // 2),
                            }
                        ]
                        r = c.post(
                            f"/v1/share-groups/{group}/acknowledge",
                            json={"member_id": member, "acknowledgements": acks},
                        )
                        if any(x["error"] for x in r.json()["results"]):
                            raise h.BenchError(f"{group}: {r.text[:200]}")
                fragmented = server.memory()["VmRSS"]
            peak = server.memory()["VmHWM"]
            server.stop()
    out = {
        "groups": args.groups,
        "partitions": partitions,
        "window": window,
        "rss_mb_start": round(start / MB, 1),
        "rss_mb_acquired": round(acquired / MB, 1),
        "rss_mb_fragmented": round(fragmented / MB, 1),
        "peak_rss_mb": round(peak / MB, 1),
    }
    h.log(f"  memory: {out}")
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
        args.w2_records = min(args.w2_records, 5000)
        args.w3_records = min(args.w3_records, 1000)
        args.groups = min(args.groups, 5)
        args.window = min(args.window, 200)
    busy: list[float] = []
    raw: dict[str, list[dict[str, Any]]] = {"w2": [], "w3": [], "memory": []}
    for i in h.iter_runs(args, busy):
        h.log(f"[share] run {i}/{args.runs}")
        if "w2" in args.only:
            raw["w2"].append(run_w2(args))
        if "w3" in args.only:
            raw["w3"].append(run_w3(args))
        if "memory" in args.only:
            raw["memory"].append(run_memory(args))
    summary: dict[str, Any] = {"other_busy_cores_before_runs": busy, "targets": []}
    if raw["w2"]:
        rate = h.spread([r["records_per_s"] for r in raw["w2"]])
        summary["w2_records_per_s"] = rate
        summary["w2_fetch_p50_ms"] = h.spread([r["fetch_ms"]["p50"] for r in raw["w2"]])
        summary["w2_fetch_p99_ms"] = h.spread([r["fetch_ms"]["p99"] for r in raw["w2"]])
        summary["w2_ack_p50_ms"] = h.spread([r["ack_ms"]["p50"] for r in raw["w2"]])
        summary["w2_ack_p99_ms"] = h.spread([r["ack_ms"]["p99"] for r in raw["w2"]])
        summary["targets"] += [
            h.target(f"W2 share consume, {args.w2_records:,} records", rate, 60_000, "records/s"),
            h.target("W2 fetch p99", summary["w2_fetch_p99_ms"], 20, "ms", higher_is_better=False),
            h.target(
                "W2 acknowledge p99", summary["w2_ack_p99_ms"], 10, "ms", higher_is_better=False
            ),
        ]
    if raw["w3"]:
        drain = h.spread([r["drain_after_last_release_s"] or 0.0 for r in raw["w3"]])
        summary["w3_drain_after_last_release_s"] = drain
        summary["w3_loss"] = [r["loss"] for r in raw["w3"]]
        summary["w3_releases_redeliveries"] = [
            (r["releases"], r["redeliveries"]) for r in raw["w3"]
        ]
        summary["targets"].append(
            h.target("W3 drain after the last release", drain, 0.5, "s", higher_is_better=False)
        )
    if raw["memory"]:
        peak = h.spread([r["peak_rss_mb"] for r in raw["memory"]])
        summary["memory_peak_rss_mb"] = peak
        summary["targets"].append(
            h.target(
                f"share memory, {args.groups} groups x 8 partitions: peak RSS",
                peak,
                300,
                "MB",
                higher_is_better=False,
            )
        )
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.print_targets(f"share ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument(
        "--only", nargs="+", choices=("w2", "w3", "memory"), default=["w2", "w3", "memory"]
    )
    parser.add_argument("--w2-records", type=int, default=200_000)
    parser.add_argument("--w3-records", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument(
        "--window",
        type=int,
        default=2000,
        help="records per partition in flight in the memory workload",
    )
    parser.add_argument("--record-bytes", type=int, default=256)
    parser.add_argument("--max-seconds", type=float, default=600.0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--consume-spec"]:
        print(orjson.dumps(asyncio.run(_consume(orjson.loads(argv[1])))).decode())
        return 0
    return h.run_main("share", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
