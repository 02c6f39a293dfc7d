"""Server memory while the log grows to 2,000,000 records of 256 bytes, and while reading it.

One server (fsync=always) on a fresh data dir. The load generator produces the records in four
equal steps (100 per request); after each step the server's VmRSS is read from /proc. Then every
record is read back by offset (``max_records`` per request) in four quarters, sampling after each.
A thread also samples VmRSS every 0.25 s for the whole run, and VmHWM gives the peak.

Targets: peak RSS <= 150 MB (10^6 bytes), and RSS not growing with the log: the RSS after the
last produce step is at most 10 MB above the RSS after the first.

    python -m benchmarks.memory [--runs 3] [--records 2000000] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from benchmarks import _harness as h

NAME = "memory"
MB = 1_000_000
STEPS = 4


def _mb(value: int) -> float:
    return round(value / MB, 1)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    step = args.records // STEPS
    produced: list[dict[str, Any]] = []
    read: list[dict[str, Any]] = []
    with h.Workdir("memory", args.tmp, args.keep) as wd:
        server = h.sluice_server(
            wd.data, wd.log("server"), fsync=args.fsync, python=h.server_python(args)
        )
        with server:
            server.wait_ready()
            h.create_topic(server, "bench", args.partitions)
            start = {"records": 0, "rss_mb": _mb(server.memory()["VmRSS"])}
            with h.RssSampler(server) as sampler:
                for i in range(1, STEPS + 1):
                    r = h.run_loadgen(
                        h.LoadSpec(
                            port=server.port,
                            mode="produce",
                            topic="bench",
                            partitions=list(range(args.partitions)),
                            records=step,
                            batch=100,
                            value_bytes=args.record_bytes,
                            concurrency=args.concurrency,
                            client=args.client,
                            max_seconds=args.max_seconds,
                        ),
                        server,
                    )
                    produced.append(
                        {
                            "records": i * step,
                            "rss_mb": _mb(server.memory()["VmRSS"]),
                            "records_per_s": r["records_per_s"],
                        }
                    )
                    h.log(f"  produced {i * step:>9,}: RSS {produced[-1]['rss_mb']} MB")
                ends = h.high_watermarks(server, "bench")
                if sum(ends) != step * STEPS:
                    raise h.BenchError(f"high watermarks {ends} do not add up to {step * STEPS}")
                for i in range(1, STEPS + 1):
                    lo = [e * (i - 1) // STEPS for e in ends]
                    hi = [e * i // STEPS for e in ends]
                    r = h.run_loadgen(
                        h.LoadSpec(
                            port=server.port,
                            mode="read",
                            topic="bench",
                            partitions=list(range(args.partitions)),
                            read_starts=lo,
                            read_ends=hi,
                            max_records=args.max_records,
                            concurrency=args.read_concurrency,
                            client=args.client,
                            max_seconds=args.max_seconds,
                        ),
                        server,
                    )
                    if r["records"] != sum(hi) - sum(lo):
                        raise h.BenchError(f"read {r['records']} of {sum(hi) - sum(lo)} records")
                    read.append(
                        {
                            "records": sum(hi),
                            "rss_mb": _mb(server.memory()["VmRSS"]),
                            "records_per_s": r["records_per_s"],
                        }
                    )
                    h.log(f"  read     {sum(hi):>9,}: RSS {read[-1]['rss_mb']} MB")
            peak = server.memory()["VmHWM"]
            log_bytes = h.dir_bytes(wd.data)
            server.stop()
    return {
        "start": start,
        "produced": produced,
        "read": read,
        "peak_rss_mb": _mb(peak),
        "log_bytes": log_bytes,
        "series": [(t, _mb(rss)) for t, rss in sampler.samples],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
        args.records = min(args.records, 500_000)
    runs: list[dict[str, Any]] = []
    busy: list[float] = []
    for i in h.iter_runs(args, busy):
        h.log(f"[memory] run {i}/{args.runs}: {args.records:,} records of {args.record_bytes} B")
        runs.append(measure(args))
    peak = h.spread([r["peak_rss_mb"] for r in runs])
    growth = h.spread([r["produced"][-1]["rss_mb"] - r["produced"][0]["rss_mb"] for r in runs])
    summary: dict[str, Any] = {
        "peak_rss_mb": peak,
        "rss_mb_growth_first_to_last_produce_step": growth,
        "rss_mb_after_produce": {
            str(p["records"]): h.spread([r["produced"][k]["rss_mb"] for r in runs])
            for k, p in enumerate(runs[0]["produced"])
        },
        "rss_mb_after_read": {
            str(p["records"]): h.spread([r["read"][k]["rss_mb"] for r in runs])
            for k, p in enumerate(runs[0]["read"])
        },
        "rss_mb_at_start": h.spread([r["start"]["rss_mb"] for r in runs]),
        "log_bytes": runs[-1]["log_bytes"],
        "other_busy_cores_before_runs": busy,
    }
    summary["targets"] = [
        h.target(
            f"memory, {args.records:,} records: peak RSS", peak, 150, "MB", higher_is_better=False
        ),
        h.target(
            "memory: RSS growth, first to last step", growth, 10, "MB", higher_is_better=False
        ),
    ]
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": runs}, args.out)
    h.print_targets(f"memory ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--record-bytes", type=int, default=256)
    parser.add_argument("--partitions", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=8, help="produce connections")
    parser.add_argument("--read-concurrency", type=int, default=4, help="read connections")
    parser.add_argument("--max-records", type=int, default=1000, help="records per read request")
    parser.add_argument("--fsync", choices=("always", "interval"), default="always")
    parser.add_argument(
        "--max-seconds", type=float, default=600.0, help="bound on one load generator run"
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main("memory", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
