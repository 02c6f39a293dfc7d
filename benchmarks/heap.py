"""What a live server's Python heap holds, and what of it grows.

As a prefix of the server's command line, this starts ``tracemalloc``, runs the module named
after ``-m`` as ``python -m`` would, and from a thread dumps a heap snapshot every ``--every``
seconds into ``--out`` (with the process's RSS at that moment):

    python -m benchmarks.soak --minutes 60 --server-python \\
        "python -m benchmarks.heap --out /tmp/heap --every 300"

Then ``--report`` compares the snapshot taken after the warm-up with the last one and prints
what grew, by allocation site (the innermost frames inside the server's own code), with the
traced total and the RSS of each snapshot, so that growth outside the Python heap (the
allocator, native libraries) shows as RSS rising while the traced total does not:

    python -m benchmarks.heap --report /tmp/heap [--top 25] [--warmup 1]

Tracing slows the server down (about twice the CPU a request): the rates of such a run are not
the server's; what grows per request is.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import threading
import time
import tracemalloc
from pathlib import Path

OWN_CODE = f"{os.sep}app{os.sep}"


def _rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _dump_forever(out: Path, every: float) -> None:
    n = 0
    while True:
        time.sleep(every)
        snapshot = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        path = out / f"{n:04d}-{int(time.time())}-{_rss_bytes()}.snapshot"
        snapshot.dump(str(path))
        n += 1


def run(args: argparse.Namespace, rest: list[str]) -> None:
    if len(rest) < 2 or rest[0] != "-m":
        raise SystemExit("expected -m <module> [args] after the options")
    args.out.mkdir(parents=True, exist_ok=True)
    tracemalloc.start(args.frames)
    threading.Thread(target=_dump_forever, args=(args.out, args.every), daemon=True).start()
    sys.argv = [rest[1], *rest[2:]]
    runpy.run_module(rest[1], run_name="__main__", alter_sys=True)


def _site(trace: tracemalloc.Traceback) -> str:
    """The innermost frame, and the innermost frames of the server's own code (a traceback
    runs from the oldest frame to the most recent)."""
    innermost = trace[-1]
    own = [f for f in reversed(trace) if OWN_CODE in f.filename and f is not innermost][:3]
    return " <- ".join(f"{f.filename.split(OWN_CODE)[-1]}:{f.lineno}" for f in (innermost, *own))


def report(directory: Path, top: int, warmup: int) -> None:
    paths = sorted(directory.glob("*.snapshot"))
    if len(paths) <= warmup:
        raise SystemExit(f"{directory}: {len(paths)} snapshots, need more than {warmup}")
    print("snapshot                      traced MB   RSS MB")
    for p in paths:
        _, _, rss = p.stem.split("-")
        traced = sum(s.size for s in tracemalloc.Snapshot.load(str(p)).statistics("filename"))
        print(f"{p.stem:28} {traced / 1e6:10.1f} {int(rss) / 1e6:8.1f}")
    first = tracemalloc.Snapshot.load(str(paths[warmup]))
    last = tracemalloc.Snapshot.load(str(paths[-1]))
    grown: dict[str, list[int]] = {}
    for stat in last.compare_to(first, "traceback"):
        site = _site(stat.traceback)
        entry = grown.setdefault(site, [0, 0])
        entry[0] += stat.size_diff
        entry[1] += stat.count_diff
    print(f"\ngrowth from {paths[warmup].stem} to {paths[-1].stem}, by site:")
    for site, (size, count) in sorted(grown.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{size / 1e3:10.1f} kB {count:+9d} blocks  {site}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("-m") if "-m" in argv else len(argv)
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.heap", description=__doc__.split("\n")[0]
    )
    p.add_argument("--out", type=Path, help="where the server's snapshots go")
    p.add_argument("--every", type=float, default=300.0, help="seconds between snapshots")
    p.add_argument(
        "--frames", type=int, default=8, help="frames kept per allocation (fewer: faster)"
    )
    p.add_argument("--report", type=Path, help="compare the snapshots of a directory")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--warmup", type=int, default=1, help="snapshots left out at the start")
    args = p.parse_args(argv[:split])
    if args.report is not None:
        report(args.report, args.top, args.warmup)
        return 0
    if args.out is None:
        p.error("--out is required to run a server")
    run(args, argv[split:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
