"""Read by offset: produce 200,000 records of 256 bytes, then read them all back.

Each run starts a fresh server (fsync=always), produces the records with the load generator,
then reads every partition from offset 0 to its high watermark with ``max_records`` per request
from a separate load generator process. Readers split the offset range into ``max_records``
chunks and check that each chunk comes back complete and in order; the records read must equal
the records produced. It is done with 1 reader (one request at a time: the latency-bound
figure) and with 4 concurrent readers (the throughput figure). The raw FastAPI ceiling, answering
made-up records of the same size in the same shape, is read the same way in the same run.

Target: >= 200,000 records/s.

    python -m benchmarks.read [--runs 3] [--max-records 1000] [--concurrency 1 4] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from benchmarks import _harness as h

NAME = "read"


def _read_spec(
    args: argparse.Namespace, server: h.ServerProcess, ends: list[int], concurrency: int
) -> h.LoadSpec:
    return h.LoadSpec(
        port=server.port,
        mode="read",
        topic="bench",
        partitions=list(range(len(ends))),
        read_ends=ends,
        max_records=args.max_records,
        max_bytes=args.max_bytes,
        concurrency=concurrency,
        client=args.client,
        max_seconds=args.max_seconds,
        server_pid=server.pid,
    )


def measure_server(args: argparse.Namespace) -> dict[str, Any]:
    with h.Workdir("read", args.tmp, args.keep) as wd:
        server = h.sluice_server(
            wd.data, wd.log("server"), fsync=args.fsync, python=h.server_python(args)
        )
        with server:
            server.wait_ready()
            h.create_topic(server, "bench", args.partitions)
            produced = h.run_loadgen(
                h.LoadSpec(
                    port=server.port,
                    mode="produce",
                    topic="bench",
                    partitions=list(range(args.partitions)),
                    records=args.records,
                    value_bytes=args.record_bytes,
                    batch=100,
                    concurrency=8,
                    client=args.client,
                    max_seconds=args.max_seconds,
                ),
                server,
            )
            ends = h.high_watermarks(server, "bench")
            if sum(ends) != args.records:
                raise h.BenchError(f"high watermarks {ends} do not add up to {args.records}")
            out: dict[str, Any] = {"produce_records_per_s": produced["records_per_s"]}
            for c in args.concurrency:
                result = h.run_loadgen(_read_spec(args, server, ends, c), server)
                if result["records"] != args.records:
                    raise h.BenchError(f"read {result['records']} of {args.records} records")
                out[f"c{c}"] = result
            out["server_memory"] = server.memory()
            server.stop()
    return out


def measure_ceiling(args: argparse.Namespace) -> dict[str, Any]:
    with h.Workdir("read-ceiling", args.tmp, args.keep) as wd:
        server = h.ceiling_server(wd.log("ceiling"))
        with server:
            server.wait_ready()
            ends = [args.records // args.partitions] * args.partitions
            out = {
                f"c{c}": h.run_loadgen(_read_spec(args, server, ends, c), server)
                for c in args.concurrency
            }
            server.stop()
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
    raw: dict[str, list[dict[str, Any]]] = {"server": [], "ceiling": []}
    busy: list[float] = []
    for i in h.iter_runs(args, busy):
        h.log(
            f"[read] run {i}/{args.runs}: {args.records:,} records, {args.partitions} "
            f"partition(s), max_records={args.max_records}"
        )
        raw["ceiling"].append(measure_ceiling(args))
        raw["server"].append(measure_server(args))
        for c in args.concurrency:
            s, x = raw["server"][-1][f"c{c}"], raw["ceiling"][-1][f"c{c}"]
            h.log(
                f"  {c} reader(s): server {s['records_per_s']:>10,.0f} records/s "
                f"(p99 {s['latency_ms']['p99']} ms, CPU server {s['server_cpu']}, "
                f"load generator {s['loadgen_cpu']}); raw ceiling "
                f"{x['records_per_s']:,.0f} records/s"
            )

    summary: dict[str, Any] = {"other_busy_cores_before_runs": busy}
    targets: list[dict[str, Any]] = []
    for c in args.concurrency:
        runs = [r[f"c{c}"] for r in raw["server"]]
        ceiling = [r[f"c{c}"] for r in raw["ceiling"]]
        rate = h.spread([r["records_per_s"] for r in runs])
        summary[f"c{c}"] = {
            "records_per_s": rate,
            "latency_ms_p50": h.spread([r["latency_ms"]["p50"] for r in runs]),
            "latency_ms_p99": h.spread([r["latency_ms"]["p99"] for r in runs]),
            "server_cpu": h.spread([r["server_cpu"] for r in runs]),
            "loadgen_cpu": h.spread([r["loadgen_cpu"] for r in runs]),
            "ceiling_records_per_s": h.spread([r["records_per_s"] for r in ceiling]),
            "ratio_to_ceiling": h.spread(
                [
                    r["records_per_s"] / x["records_per_s"]
                    for r, x in zip(runs, ceiling, strict=True)
                ]
            ),
        }
        targets.append(
            h.target(f"read by offset, {c} reader(s): records/s", rate, 200_000, "records/s")
        )
    summary["targets"] = targets
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.print_targets(f"read ({path})", targets)
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--record-bytes", type=int, default=256)
    parser.add_argument("--partitions", type=int, default=1)
    parser.add_argument("--max-records", type=int, default=1000, help="records per read request")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=None,
        help="max_bytes per read request (default: left to the server, 1 MiB)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        nargs="+",
        default=[1, 4],
        help="concurrent readers (default 1 4)",
    )
    parser.add_argument("--fsync", choices=("always", "interval"), default="always")
    parser.add_argument(
        "--max-seconds", type=float, default=300.0, help="bound on one load generator run"
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main("read", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
