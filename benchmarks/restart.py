"""Restart time with a 1 GiB log, after kill -9 and after a clean SIGTERM.

The log is filled once (fsync=interval for speed; 4 partitions; 1 KiB records, 100 per request)
until the data dir holds ``--log-bytes`` (1 GiB). Then, per run:

1. unclean: the server (fsync=always) takes produce load from a load generator and is killed
   with SIGKILL in the middle of it; a new server starts on the same dir and the time from
   process start to ``GET /readyz`` 200 is measured. Every offset acknowledged before the kill
   must be below the new high watermark (kill -9 loses nothing that was acknowledged).
2. clean: that server is stopped with SIGTERM (it must exit 0), restarted, and timed the same way.

The start time of a server on an empty data dir is measured too: it is the floor (interpreter
start and imports) that no log size can go below.

Target: <= 2 s from process start to ready, for both variants.

    python -m benchmarks.restart [--runs 3] [--log-bytes 1073741824] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import _harness as h

NAME = "restart"
TOPIC = "fill"


def _produce_spec(args: argparse.Namespace, port: int, records: int, **extra: Any) -> h.LoadSpec:
    spec = h.LoadSpec(
        port=port,
        mode="produce",
        topic=TOPIC,
        partitions=list(range(args.partitions)),
        records=records,
        batch=args.batch,
        value_bytes=args.record_bytes,
        concurrency=8,
        client=args.client,
        max_seconds=args.max_seconds,
    )
    for key, value in extra.items():
        setattr(spec, key, value)
    return spec


def fill(args: argparse.Namespace, data: Path, log_path: Path) -> dict[str, Any]:
    """Produce until the data dir holds ``args.log_bytes``; a bounded number of rounds."""
    server = h.sluice_server(data, log_path, fsync="interval", python=h.server_python(args))
    with server:
        server.wait_ready()
        config = {"segment_bytes": args.segment_bytes} if args.segment_bytes else {}
        h.create_topic(server, TOPIC, args.partitions, config)
        began = time.perf_counter()
        per_record = args.record_bytes + 40  # record framing; refined after the first round
        for _ in range(10):
            have = h.dir_bytes(data)
            if have >= args.log_bytes:
                break
            want = (args.log_bytes - have) // per_record + args.batch
            h.run_loadgen(_produce_spec(args, server.port, int(want)), server)
            per_record = max(
                args.record_bytes,
                h.dir_bytes(data) // max(1, sum(h.high_watermarks(server, TOPIC))),
            )
        took = time.perf_counter() - began
        size = h.dir_bytes(data)
        if size < args.log_bytes:
            raise h.BenchError(f"could not fill the log: {size} of {args.log_bytes} bytes")
        records = sum(h.high_watermarks(server, TOPIC))
        server.stop()
    h.log(
        f"  filled {size / h.MiB:,.0f} MiB ({records:,} records) in {took:.1f} s "
        f"({size / h.MiB / took:,.0f} MiB/s)"
    )
    return {"bytes": size, "records": records, "seconds": round(took, 2)}


def _start(args: argparse.Namespace, data: Path, log_path: Path) -> tuple[h.ServerProcess, float]:
    server = h.sluice_server(data, log_path, fsync=args.fsync, python=h.server_python(args))
    server.start()
    try:
        ready = server.wait_ready(timeout=args.ready_timeout)
    except BaseException:
        server.kill()
        raise
    return server, ready


def unclean_cycle(
    args: argparse.Namespace, server: h.ServerProcess, data: Path, log_path: Path
) -> tuple[h.ServerProcess, dict[str, Any]]:
    """Kill -9 ``server`` in the middle of produce load; restart; check acknowledged data."""
    before = h.high_watermarks(server, TOPIC)
    load = h.LoadGen(
        _produce_spec(args, server.port, 200_000, tolerate_errors=True, max_seconds=30.0)
    )
    time.sleep(args.kill_after)
    if not load.running():
        raise h.BenchError("the load had ended before the kill; raise --kill-after's load")
    server.kill()
    result = load.wait()
    acked = {int(p): o for p, o in result["last_offsets"].items()}
    new, ready = _start(args, data, log_path)
    after = h.high_watermarks(new, TOPIC)
    lost = {p: o for p, o in acked.items() if after[p] <= o}
    if lost or any(a < b for a, b in zip(after, before, strict=True)):
        new.kill()
        raise h.BenchError(
            f"acknowledged records lost after kill -9: acked up to {acked}, "
            f"high watermarks before {before}, after {after}"
        )
    return new, {
        "ready_s": round(ready, 3),
        "acked_during_load": result["records"],
        "memory_after_ready": new.memory(),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.quick:
        args.runs = 1
        args.log_bytes = min(args.log_bytes, 256 * h.MiB)
    raw: dict[str, Any] = {"empty": [], "unclean": [], "clean": [], "busy": []}
    with h.Workdir("restart", args.tmp, args.keep) as wd:
        h.log(f"[restart] filling {args.log_bytes / h.MiB:,.0f} MiB")
        raw["fill"] = fill(args, wd.data, wd.log("fill"))
        server, _ = _start(args, wd.data, wd.log("server"))
        try:
            for i in h.iter_runs(args, raw["busy"]):
                h.log(f"[restart] run {i}/{args.runs}")
                with h.Workdir("restart-empty", args.tmp, False) as empty:
                    floor, floor_ready = _start(args, empty.data, empty.log("server"))
                    raw["empty"].append(round(floor_ready, 3))
                    floor.stop()
                server, unclean = unclean_cycle(args, server, wd.data, wd.log("server"))
                raw["unclean"].append(unclean)
                server.stop(timeout=args.ready_timeout)
                server, clean = _start(args, wd.data, wd.log("server"))
                raw["clean"].append(
                    {"ready_s": round(clean, 3), "memory_after_ready": server.memory()}
                )
                h.log(
                    f"  ready after kill -9 {unclean['ready_s']} s, after SIGTERM "
                    f"{round(clean, 3)} s, empty dir {raw['empty'][-1]} s"
                )
            raw["final_bytes"] = h.dir_bytes(wd.data)
            server.stop(timeout=args.ready_timeout)
        finally:
            server.kill()

    summary: dict[str, Any] = {
        "log_bytes": raw["final_bytes"],
        "other_busy_cores_before_runs": raw["busy"],
        "empty_dir_ready_s": h.spread(raw["empty"]),
        "unclean_ready_s": h.spread([r["ready_s"] for r in raw["unclean"]]),
        "clean_ready_s": h.spread([r["ready_s"] for r in raw["clean"]]),
        "rss_after_restart_mib": h.spread(
            [r["memory_after_ready"]["VmRSS"] / h.MiB for r in raw["unclean"] + raw["clean"]]
        ),
    }
    size = f"{raw['final_bytes'] / 2**30:.2f} GiB"
    summary["targets"] = [
        h.target(
            f"restart after kill -9, {size} log: s to ready",
            summary["unclean_ready_s"],
            2,
            "s",
            higher_is_better=False,
        ),
        h.target(
            f"restart after SIGTERM, {size} log: s to ready",
            summary["clean_ready_s"],
            2,
            "s",
            higher_is_better=False,
        ),
    ]
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.print_targets(f"restart ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--log-bytes", type=int, default=2**30, help="log size to fill (1 GiB)")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--record-bytes", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=100, help="records per request")
    parser.add_argument(
        "--segment-bytes", type=int, default=0, help="topic segment_bytes (default: the server's)"
    )
    parser.add_argument(
        "--fsync",
        choices=("always", "interval"),
        default="always",
        help="fsync policy of the restarted servers",
    )
    parser.add_argument(
        "--kill-after", type=float, default=1.0, help="seconds of produce load before kill -9"
    )
    parser.add_argument("--ready-timeout", type=float, default=120.0)
    parser.add_argument(
        "--max-seconds", type=float, default=600.0, help="bound on one load generator run"
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main("restart", __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
