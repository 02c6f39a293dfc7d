"""W1 produce: 200,000 records of 256 bytes, 100 per request, fsync=always.

Each run starts a fresh server on a fresh data dir for every partition count (1 and 4 by
default), creates the topic, sends a few warm-up requests to another topic, then lets the load
generator (a separate process, ``--concurrency`` connections with one request in flight each,
8 and 16 by default) send all records. The raw FastAPI ceiling (:mod:`benchmarks.raw_ceiling`)
is loaded by the same load generator in the same run. After each run the topic's high
watermarks must add up to the records sent, and the server must stop cleanly on SIGTERM.

Targets: >= 100,000 records/s, >= 50% of the raw ceiling, request p99 <= 20 ms.

    python -m benchmarks.produce [--runs 3] [--partitions 1 4] [--concurrency 8 16] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from benchmarks import _harness as h

NAME = "produce"


def _spec(
    args: argparse.Namespace, port: int, partitions: int, concurrency: int, pid: int
) -> h.LoadSpec:
    return h.LoadSpec(
        port=port,
        mode="produce",
        topic="bench",
        partitions=list(range(partitions)),
        records=args.records,
        batch=args.batch,
        value_bytes=args.record_bytes,
        explicit_partition=args.explicit_partition,
        concurrency=concurrency,
        client=args.client,
        warmup_topic="warmup",
        warmup_requests=args.warmup_requests,
        max_seconds=args.max_seconds,
        server_pid=pid,
    )


def measure_ceiling(
    args: argparse.Namespace, concurrency: int, client: str | None = None
) -> dict[str, Any]:
    with h.Workdir("ceiling", args.tmp, args.keep) as wd:
        server = h.ceiling_server(wd.log("ceiling"))
        with server:
            server.wait_ready()
            spec = _spec(args, server.port, 1, concurrency, server.pid)
            spec.client = client or args.client
            result = h.run_loadgen(spec, server)
            server.stop()
    return result


def measure_server(args: argparse.Namespace, partitions: int, concurrency: int) -> dict[str, Any]:
    with h.Workdir(f"produce-p{partitions}", args.tmp, args.keep) as wd:
        server = h.sluice_server(
            wd.data, wd.log("server"), fsync=args.fsync, python=h.server_python(args)
        )
        with server:
            ready_s = server.wait_ready()
            h.create_topic(server, "bench", partitions)
            h.create_topic(server, "warmup", 1)
            result = h.run_loadgen(
                _spec(args, server.port, partitions, concurrency, server.pid), server
            )
            hws = h.high_watermarks(server, "bench")
            if sum(hws) != args.records:
                raise h.BenchError(f"high watermarks {hws} do not add up to {args.records}")
            result["server_memory"] = server.memory()
            result["ready_s"] = round(ready_s, 3)
            result["stop_s"] = round(server.stop(), 3)
    return result


def _line(what: str, r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    return (
        f"  {what}: {r['records_per_s']:>10,.0f} records/s, p50 {lat['p50']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms; CPU server {r['server_cpu']}, "
        f"load generator {r['loadgen_cpu']}"
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
    raw: dict[str, list[dict[str, Any]]] = {}
    busy: list[float] = []
    for i in h.iter_runs(args, busy):
        for c in args.concurrency:
            h.log(f"[produce] run {i}/{args.runs}, {c} connections, fsync={args.fsync}")
            raw.setdefault(f"ceiling-c{c}", []).append(measure_ceiling(args, c))
            h.log(_line("raw ceiling    ", raw[f"ceiling-c{c}"][-1]))
            for p in args.partitions:
                raw.setdefault(f"p{p}-c{c}", []).append(measure_server(args, p, c))
                h.log(_line(f"server, {p} part.", raw[f"p{p}-c{c}"][-1]))

    summary: dict[str, Any] = {"other_busy_cores_before_runs": busy}
    if args.compare_clients:
        c = args.concurrency[-1]
        other = "httpx" if args.client == "raw" else "raw"
        h.log(f"[produce] raw ceiling with the {other} client, {c} connections, for comparison")
        r = measure_ceiling(args, c, other)
        h.log(_line(f"{other} client", r))
        summary["ceiling_by_client"] = {
            "concurrency": c,
            other: {k: r[k] for k in ("records_per_s", "loadgen_cpu", "server_cpu")},
            args.client: {
                k: h.spread([x[k] for x in raw[f"ceiling-c{c}"]])["median"]
                for k in ("records_per_s", "loadgen_cpu", "server_cpu")
            },
        }

    targets: list[dict[str, Any]] = []
    for c in args.concurrency:
        ceiling = raw[f"ceiling-c{c}"]
        summary[f"ceiling-c{c}"] = _stats(ceiling)
        for p in args.partitions:
            runs = raw[f"p{p}-c{c}"]
            stats = _stats(runs)
            stats["ratio_to_ceiling"] = h.spread(
                [
                    r["records_per_s"] / x["records_per_s"]
                    for r, x in zip(runs, ceiling, strict=True)
                ]
            )
            stats["server_peak_rss_mib"] = h.spread(
                [r["server_memory"]["VmHWM"] / h.MiB for r in runs]
            )
            summary[f"p{p}-c{c}"] = stats
            label = f"{p} part., {c} conn."
            targets += [
                h.target(
                    f"W1 produce {label}: records/s", stats["records_per_s"], 100_000, "records/s"
                ),
                h.target(
                    f"W1 produce {label}: / raw ceiling", stats["ratio_to_ceiling"], 0.5, "ratio"
                ),
                h.target(
                    f"W1 produce {label}: request p99",
                    stats["latency_ms_p99"],
                    20,
                    "ms",
                    higher_is_better=False,
                ),
            ]
    summary["targets"] = targets
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.print_targets(f"produce ({path})", targets)
    return summary


def _stats(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "records_per_s": h.spread([r["records_per_s"] for r in runs]),
        "latency_ms_p50": h.spread([r["latency_ms"]["p50"] for r in runs]),
        "latency_ms_p99": h.spread([r["latency_ms"]["p99"] for r in runs]),
        "latency_ms_max": h.spread([r["latency_ms"]["max"] for r in runs]),
        "server_cpu": h.spread([r["server_cpu"] for r in runs]),
        "loadgen_cpu": h.spread([r["loadgen_cpu"] for r in runs]),
    }


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--record-bytes", type=int, default=256)
    parser.add_argument("--batch", type=int, default=100, help="records per request")
    parser.add_argument(
        "--concurrency",
        type=int,
        nargs="+",
        default=[8, 16],
        help="connections with one request in flight each (default 8 16)",
    )
    parser.add_argument("--partitions", type=int, nargs="+", default=[1, 4])
    parser.add_argument(
        "--explicit-partition",
        action=argparse.BooleanOptionalAction,
        default=True,
        help='records carry "partition" (default); without it '
        "unkeyed records go to one partition per request, rotating",
    )
    parser.add_argument("--fsync", choices=("always", "interval"), default="always")
    parser.add_argument("--warmup-requests", type=int, default=50)
    parser.add_argument(
        "--max-seconds", type=float, default=300.0, help="bound on one load generator run"
    )
    parser.add_argument(
        "--compare-clients",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the ceiling with the other client once",
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main("produce", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
