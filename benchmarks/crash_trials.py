"""Crash trials: kill -9 at a random moment of the mixed workload, restart, check every id.

    python -m benchmarks.crash_trials               # 100 trials
    python -m benchmarks.crash_trials --trials 5 --seed 7

Each trial starts a server (fsync=always) on a fresh data directory, runs the mixed workload of
benchmarks/mixed.py for a random 1-4 s (seeded), kills the server with SIGKILL while requests
are in flight, starts it again on the same directory, waits for ``/readyz``, drains the share
group and checks (``Mixed.check``):

- every produce answered 200 is readable at its offset with its content, once;
- every transaction whose commit was answered is visible whole under ``read_committed``, every
  aborted one invisible, and a transaction whose end was never answered is all or nothing;
- consumer-group offsets answered as committed are not behind;
- no acknowledged share record is delivered again, no rejected one accepted later, and every
  record is eventually acknowledged (records of an acknowledgement whose answer never came are
  left out: it may or may not have been applied).

Writes ``benchmarks/results/crash_trials-<commit>.json``; the exit status is 1 if any trial
failed (its seed is in the results, to run it again).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import RESULTS_DIR, Workdir, log, sluice_server, write_result
from benchmarks.mixed import Mixed


async def _load(base_url: str, seconds: float, rate: float, seed: int, kill: Any) -> Mixed:
    mixed = Mixed(base_url, rate, seed=seed)
    await mixed.setup()
    runner = asyncio.create_task(mixed.run(None))
    await asyncio.sleep(seconds)
    kill()  # while the workers' requests are in flight
    mixed.stopping.set()
    await asyncio.gather(runner, return_exceptions=True)
    return mixed


async def _check(mixed: Mixed) -> dict[str, Any]:
    await mixed.drain_share(limit_s=90)
    return await mixed.check()


def trial(seed: int, rate: float, work: Path) -> dict[str, Any]:
    rng = random.Random(seed)
    seconds = rng.uniform(1.0, 4.0)
    data = work / f"data-{seed}"
    started = time.monotonic()
    with sluice_server(data, work / f"server-{seed}.log") as server:
        server.wait_ready()
        mixed = asyncio.run(_load(server.base_url, seconds, rate, seed, server.kill))
    with sluice_server(data, work / f"server-{seed}-restart.log") as server:
        ready_s = server.wait_ready()
        mixed.base_url = server.base_url  # the restarted server listens on another port
        check = asyncio.run(_check(mixed))
        server.stop()
    return {
        "seed": seed,
        "killed_after_s": round(seconds, 2),
        "restart_ready_s": round(ready_s, 2),
        "duration_s": round(time.monotonic() - started, 1),
        **check,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.crash_trials", description=__doc__.split("\n")[0]
    )
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--seed", type=int, default=1, help="seed of the first trial")
    p.add_argument("--rate", type=float, default=10_000, help="records/s produced")
    p.add_argument("--out-dir", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    started = time.monotonic()
    trials = []
    with Workdir("crash") as work:
        for seed in range(args.seed, args.seed + args.trials):
            try:
                t = trial(seed, args.rate, work.path)
            except Exception as exc:  # a trial that could not even run is a failure too
                t = {"seed": seed, "failures": [f"error: {exc!r}"]}
            trials.append(t)
            log(
                f"trial {seed}: killed after {t.get('killed_after_s')} s, "
                f"{t.get('produced')} produced, failures {t['failures']}"
            )
    failed = [t for t in trials if t["failures"]]
    summary = {
        "trials": len(trials),
        "passed": len(trials) - len(failed),
        "failed_seeds": [t["seed"] for t in failed],
        "duration_s": round(time.monotonic() - started, 1),
        "records_produced": sum(t.get("produced", 0) for t in trials),
        "transactions_undecided_at_kill": sum(
            1 for t in trials if t.get("transactional_undecided")
        ),
        "share_acknowledgements_unanswered": sum(t.get("share_unanswered", 0) for t in trials),
    }
    params = {k: v for k, v in vars(args).items() if k != "out_dir"}
    path = write_result(
        "crash_trials", params, {"summary": summary, "trials": trials}, args.out_dir
    )
    log(f"wrote {path}: {summary}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
