"""Run every benchmark and print the targets table (what ``make bench`` runs).

    python -m benchmarks.run_all [--quick] [--runs 3]
                                 [--only produce read restart memory share transactions users
                                        batches]

Each benchmark writes its own ``benchmarks/results/<name>-<commit>.json``; this writes
``benchmarks/results/all-<commit>.json`` with every target line and prints them as a Markdown
table. It exits 1 when a server failed (died, not ready, unclean stop, wrong answers, lost
records) and 0 otherwise, including when a target is missed: benchmarks measure, tests judge.
``--strict`` makes a missed target exit 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from benchmarks import _harness as h
from benchmarks import (
    batches,  # record batches against JSON, the disk and one reader
    memory,
    produce,
    read,
    restart,
    share,  # share groups
    transactions,  # transactions
    users,  # workloads measured as an application measures them
)

BENCHMARKS: dict[str, ModuleType] = {
    "produce": produce,
    "read": read,
    "restart": restart,
    "memory": memory,
    "share": share,  # share groups: W2, W3 and memory of many groups
    "transactions": transactions,  # transactions
    "users": users,  # W1-W4 and P32 through an application's own client
    "batches": batches,  # record batches: server CPU, P32B against the disk, reads
}


def _args_for(module: ModuleType, opts: argparse.Namespace) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_args: Callable[[argparse.ArgumentParser], None] = module.add_args
    add_args(parser)
    argv = ["--runs", str(opts.runs), "--client", opts.client, "--wait-quiet", str(opts.wait_quiet)]
    if opts.quick:
        argv.append("--quick")
    if opts.tmp:
        argv += ["--tmp", opts.tmp]
    if opts.server_python:
        argv += ["--server-python", opts.server_python]
    if opts.keep:
        argv.append("--keep")
    if opts.out is not None:
        argv += ["--out", str(opts.out)]
    return parser.parse_args(argv)


def markdown(targets: list[dict[str, Any]]) -> str:
    lines = ["| target | median | min – max | goal | |", "|---|---:|---:|---|---|"]
    for t in targets:
        mark = "ok" if t["ok"] else "MISS"
        lines.append(
            f"| {t['name']} | {t['median']:,} {t['unit']} | {t['min']:,} – "
            f"{t['max']:,} | {t['goal']} {t['unit']} | {mark} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run_all",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    h.add_common_args(parser)
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(BENCHMARKS),
        default=list(BENCHMARKS),
        help="run only these benchmarks",
    )
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is missed")
    opts = parser.parse_args(argv)

    began = time.perf_counter()
    summaries: dict[str, Any] = {}
    targets: list[dict[str, Any]] = []
    failures: dict[str, str] = {}
    for name in opts.only:
        module = BENCHMARKS[name]
        h.log(f"\n=== {name} ===")
        try:
            summary = module.run(_args_for(module, opts))
        except h.BenchError as exc:
            h.log(f"{name}: FAILED: {exc}")
            failures[name] = str(exc)
            continue
        summaries[name] = summary
        targets += summary["targets"]

    took = time.perf_counter() - began
    params = {
        "only": opts.only,
        "runs": 1 if opts.quick else opts.runs,
        "quick": opts.quick,
        "client": opts.client,
        "seconds": round(took, 1),
    }
    path = h.write_result(
        "all", params, {"targets": targets, "failures": failures, "summaries": summaries}, opts.out
    )
    print(markdown(targets))
    h.log(f"\nall benchmarks took {took:.0f} s; results in {path}")
    if failures:
        h.log(f"FAILED: {', '.join(failures)}")
        return 1
    if opts.strict and any(not t["ok"] for t in targets):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
