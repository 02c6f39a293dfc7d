"""Sluice beside the queues its users would otherwise pick: the same workloads, the same
durability, one machine, one run.

Peers (``--peers``, all by default): Sluice (its own Python client), Redis Streams, PostgreSQL
(a table and ``SELECT … FOR UPDATE SKIP LOCKED``), NATS JetStream, RabbitMQ quorum queues and
Kafka share groups (Kafka 4.4 through ``make kafka BROKERS=1``, the native client). Each is
installed when missing (Debian packages through apt, Python clients from the ``peers`` extra),
started by this script on loopback with its data in a temporary directory, and stopped at the
end; what each does for each workload is in benchmarks/README.md.

Each peer runs at two durabilities when it has them (``--durability``): *sync*, every write and
acknowledgement answered after an fsync, and *nosync*, answered before the data is on disk; a
row says which is the peer's default, and its setting in words. A peer that cannot run at one
says why, and the table says it too.

Workloads (Python clients everywhere, each producer or consumer a process of its own; values of
256 bytes, 100 records a request):

- **W1** one producer, each request sent when the previous one was answered, ``--records``
  (200,000) records to one queue: records/s, request p50/p99.
- **W2** four consumers fetch up to 100 and acknowledge them, until all the records of W1 are
  accepted: records/s, fetch and acknowledge p50/p99.
- **W3** ``--w3-records`` (10,000) records, four consumers; on its first delivery each consumer
  releases the even-numbered records it got and accepts the rest; redelivered ones are
  accepted: the time until all are accepted, and the check that none is lost (by number).

For W1 and W2 the server's CPU (its whole process tree, from /proc) per record. The results go
to ``benchmarks/results/peers-<commit>.json``; ``--markdown`` prints the tables, with the ratio
of Sluice to the best peer at the same durability (:func:`markdown` writes them from a result
document, for ``--show``). The summary's ``targets`` (:func:`targets`) judge Sluice's W1 and W2
records/s against the best other peer's (≥ 2× with an fsync before every answer, ≥ 1.5× each at
its default durability) and its W3 time against Redis Streams' (≤ 1×); benchmarks/report.py
makes the README's rows from them.

    python -m benchmarks.peers [--peers redis,postgres,...] [--records N] [--quick] [--markdown]
"""

from __future__ import annotations

import argparse
import array
import asyncio
import json
import multiprocessing
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import _harness as h
from benchmarks import _peer_clients as pc
from benchmarks import _peer_servers as ps

NAME = "peers"
CONSUMERS = 4
FETCH_WAIT = 0.05  # seconds a fetch may wait when nothing is there
WARMUP_REQUESTS = 20
QUICK = {"records": 2_000, "w3_records": 1_000, "warmup": 2}
PEER_ORDER = ("sluice", "redis", "postgres", "nats", "rabbitmq", "kafka")
# figures of a row, with whether higher is better, for the summary and the table
FIGURES: dict[str, bool] = {
    "w1_records_per_s": True,
    "w1_request_ms_p50": False,
    "w1_request_ms_p99": False,
    "w1_server_us_per_record": False,
    "w2_records_per_s": True,
    "w2_fetch_ms_p50": False,
    "w2_fetch_ms_p99": False,
    "w2_ack_ms_p50": False,
    "w2_ack_ms_p99": False,
    "w2_server_us_per_record": False,
    "w3_seconds": False,
}

Json = dict[str, Any]


# -- running one workload -----------------------------------------------------------------------


def run_workload(
    peer: str,
    spec: Json,
    server: ps.Running,
    role: str,
    processes: int,
    job: Json,
    max_seconds: float,
) -> Json:
    """``processes`` workload processes of ``role`` against a running peer; answers the wall
    time from the go to the end, the server's CPU seconds over it, and every process's result."""
    ctx = multiprocessing.get_context("spawn")
    shared = pc.Shared(
        ready=ctx.Queue(),
        results=ctx.Queue(),
        go=ctx.Event(),
        done=ctx.Event(),
        accepted=ctx.Value("q", 0),
        finished=ctx.Value("d", 0.0),
    )
    job = {**job, "max_seconds": max_seconds}
    procs = [
        ctx.Process(target=pc.work, args=(peer, spec, role, job, shared), daemon=True)
        for _ in range(processes)
    ]
    for p in procs:
        p.start()
    held = 0
    try:
        for _ in procs:
            ready = shared.ready.get(timeout=max_seconds)
            if "error" in ready:
                raise h.BenchError(f"{peer} {role}: {ready['error']}")
            held += ready.get("held", 0)
        server.check_alive()
        cpu0 = h.tree_cpu_seconds(server.pid)
        t0 = time.monotonic()
        shared.go.set()
        if not shared.done.wait(max_seconds + 30):
            raise h.BenchError(f"{peer} {role}: not done in {max_seconds:.0f} s")
        cpu1 = h.tree_cpu_seconds(server.pid)
        results = [shared.results.get(timeout=120) for _ in procs]
        errors = [r["error"] for r in results if "error" in r]
        if errors:
            raise h.BenchError(f"{peer} {role}: {errors[0]}")
        server.check_alive()
        return {
            "seconds": shared.finished.value - t0,
            "server_cpu_s": cpu1 - cpu0,
            "held_before_go": held,
            "processes": results,
        }
    except Exception:
        server.check_alive()  # a dead server is the cause to report
        raise
    finally:
        shared.go.set()
        shared.done.set()
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
                p.join(5)


def _latency(values: Iterable[float]) -> dict[str, float]:
    return h.latency_summary(list(values))


def _us_per(seconds: float, records: int) -> float | None:
    return round(seconds * 1e6 / records, 2) if records > 0 else None


def _accepted(results: Sequence[Json]) -> tuple[int, int, int]:
    """(distinct records accepted, records accepted more than once, the highest number + 1)."""
    seen: dict[int, int] = {}
    for r in results:
        numbers = array.array("q")
        numbers.frombytes(r["accepted"])
        for n in numbers:
            seen[n] = seen.get(n, 0) + 1
    return len(seen), sum(1 for c in seen.values() if c > 1), max(seen, default=-1) + 1


def produced(raw: Json, records: int) -> Json:
    (p,) = raw["processes"]
    seconds = raw["seconds"]
    return {
        "records": p["sent"],
        "seconds": round(seconds, 4),
        "records_per_s": round(p["sent"] / seconds, 1) if seconds > 0 else 0.0,
        "request_ms": _latency(p["request_ms"]),
        "server_cpu_s": round(raw["server_cpu_s"], 3),
        "server_us_per_record": _us_per(raw["server_cpu_s"], records),
        "client_us_per_record": _us_per(p["client_cpu_s"], records),
    }


def consumed(raw: Json, records: int) -> Json:
    results = raw["processes"]
    distinct, twice, _ = _accepted(results)
    seconds = raw["seconds"]
    total = {k: sum(r[k] for r in results) for k in ("fetches", "empty_fetches", "delivered")}
    total |= {k: sum(r[k] for r in results) for k in ("redeliveries", "releases")}
    return {
        "records": records,
        "seconds": round(seconds, 4),
        "records_per_s": round(records / seconds, 1) if seconds > 0 else 0.0,
        "fetch_ms": _latency(ms for r in results for ms in r["fetch_ms"]),
        "ack_ms": _latency(ms for r in results for ms in r["ack_ms"]),
        "accepted": distinct,
        "lost": records - distinct,
        "accepted_twice": twice,
        **total,
        # records the consumers took before the clock started (their first fetch)
        "held_before_go": raw["held_before_go"],
        "server_cpu_s": round(raw["server_cpu_s"], 3),
        "server_us_per_record": _us_per(raw["server_cpu_s"], records),
        "client_us_per_record": _us_per(sum(r["client_cpu_s"] for r in results), records),
    }


# -- one peer at one durability ------------------------------------------------------------------


def measure_once(peer: ps.Peer, durability: ps.Durability, args: argparse.Namespace) -> Json:
    """A fresh server: W1, W2 on W1's records, then W3 on a queue of its own."""
    records, w3 = args.records, args.w3_records
    with (
        h.Workdir(f"peers-{peer.name}", args.tmp, args.keep) as wd,
        peer.running(wd, durability) as server,
    ):
        spec = {**server.spec, "partitions": args.partitions}
        setup = pc.client(peer.name, spec)
        for queue in ("bench", "warmup", "w3"):
            asyncio.run(setup.create(queue))

        def workload(role: str, processes: int, job: Json) -> Json:
            return run_workload(peer.name, spec, server, role, processes, job, args.max_seconds)

        out: Json = {}
        raw = workload(
            "produce",
            1,
            {
                "queue": "bench",
                "first": 0,
                "records": records,
                "warmup_queue": "warmup",
                "warmup_requests": args.warmup,
            },
        )
        out["w1"] = produced(raw, records)
        stored = asyncio.run(setup.stored("bench"))
        if stored != records:
            raise h.BenchError(f"W1: the queue holds {stored} records, not {records}")
        h.log(f"    W1 {out['w1']['records_per_s']:,.0f} records/s")

        job = {"queue": "bench", "total": records, "wait": FETCH_WAIT, "release_half": False}
        out["w2"] = consumed(workload("consume", CONSUMERS, job), records)
        if out["w2"]["lost"]:
            raise h.BenchError(f"W2: {out['w2']['lost']} records never accepted")
        h.log(f"    W2 {out['w2']['records_per_s']:,.0f} records/s")

        fill = {"queue": "w3", "first": 0, "records": w3, "warmup_queue": "", "warmup_requests": 0}
        workload("produce", 1, fill)
        job = {"queue": "w3", "total": w3, "wait": FETCH_WAIT, "release_half": True}
        out["w3"] = consumed(workload("consume", CONSUMERS, job), w3)
        if out["w3"]["lost"]:
            raise h.BenchError(f"W3: {out['w3']['lost']} records never accepted")
        h.log(f"    W3 {out['w3']['seconds']} s, lost {out['w3']['lost']}")
        return out


def figures(run: Json) -> dict[str, float | None]:
    """The figures of one run that the summary and the table compare."""
    return {
        "w1_records_per_s": run["w1"]["records_per_s"],
        "w1_request_ms_p50": run["w1"]["request_ms"].get("p50"),
        "w1_request_ms_p99": run["w1"]["request_ms"].get("p99"),
        "w1_server_us_per_record": run["w1"]["server_us_per_record"],
        "w2_records_per_s": run["w2"]["records_per_s"],
        "w2_fetch_ms_p50": run["w2"]["fetch_ms"].get("p50"),
        "w2_fetch_ms_p99": run["w2"]["fetch_ms"].get("p99"),
        "w2_ack_ms_p50": run["w2"]["ack_ms"].get("p50"),
        "w2_ack_ms_p99": run["w2"]["ack_ms"].get("p99"),
        "w2_server_us_per_record": run["w2"]["server_us_per_record"],
        "w3_seconds": run["w3"]["seconds"],
    }


def measure(
    peer: ps.Peer, durability: ps.Durability, args: argparse.Namespace, busy: list[float]
) -> Json:
    row: Json = {
        "peer": peer.name,
        "title": peer.title,
        "version": peer.version(),
        "mode": durability.mode,
        "default": durability.default,
        "durability": durability.words,
        "partitions": args.partitions if peer.name in ("sluice", "kafka") else 1,
        "runs": [],
        "error": None,
    }
    try:
        for i in h.iter_runs(args, busy):
            h.log(f"[peers] {peer.title} {peer.version()}, {durability.mode}, run {i}/{args.runs}")
            row["runs"].append(measure_once(peer, durability, args))
    except Exception as exc:  # the row says what failed; the other peers still run
        row["error"] = f"{type(exc).__name__}: {exc}"
        h.log(f"  {peer.name} {durability.mode} FAILED: {row['error']}")
    if row["runs"] and row["error"] is None:
        per_run = [figures(r) for r in row["runs"]]
        row["figures"] = {
            k: h.spread([v for f in per_run if (v := f[k]) is not None]) for k in FIGURES
        }
        row["w3_lost"] = max(r["w3"]["lost"] for r in row["runs"])
    return row


# -- summary and table ---------------------------------------------------------------------------


def summarise(rows: Sequence[Json]) -> Json:
    """For each durability: every figure's best peer (Sluice aside) and Sluice ÷ that best."""
    out: Json = {}
    for mode in ps.MODES:
        measured = [r for r in rows if r["mode"] == mode and r.get("figures")]
        ours = next((r for r in measured if r["peer"] == "sluice"), None)
        others = [r for r in measured if r["peer"] != "sluice"]
        line: Json = {}
        for key, higher in FIGURES.items():
            candidates = [(r["figures"][key]["median"], r["peer"]) for r in others]
            candidates = [(v, p) for v, p in candidates if v is not None]
            if not candidates:
                continue
            best, who = (max if higher else min)(candidates)
            entry: Json = {"best_peer": who, "best": best, "higher_is_better": higher}
            if ours is not None and ours["figures"][key]["median"] is not None:
                mine = ours["figures"][key]["median"]
                entry["sluice"] = mine
                entry["sluice_to_best"] = round(mine / best, 3) if best else None
            line[key] = entry
        out[mode] = line
    return out


# Sluice ÷ the others: records/s of W1 and W2 at least this many times the best other peer's,
# with an fsync before every answer on both sides and each at its own default; W3's time at
# most Redis Streams' at either
GOAL_SAME_DURABILITY = 2.0
GOAL_DEFAULT_DURABILITY = 1.5
GOAL_W3_TO_REDIS = 1.0
W3_PEER = "redis"


def targets(rows: Sequence[Json]) -> list[Json]:
    """The target lines of a run: Sluice's W1 and W2 records/s ÷ the best other peer's (with an
    fsync before every answer, and each peer at its default durability), and Sluice's W3 time
    ÷ Redis Streams' at both. Each line names the peer it compares with (``peer``, ``title``)
    and both figures (``sluice``, ``other``); a comparison a row is missing for has no line."""
    measured = [r for r in rows if r.get("figures") and r.get("error") is None]
    sync = [r for r in measured if r["mode"] == ps.SYNC]
    default = [r for r in measured if r["default"]]
    comparisons: list[tuple[str, str, list[Json], str | None, float]] = [
        (f"peers {w} ÷ the best peer, {setting}", key, rows_, None, goal)
        for w, key in (("W1", "w1_records_per_s"), ("W2", "w2_records_per_s"))
        for setting, rows_, goal in (
            ("an fsync before every answer", sync, GOAL_SAME_DURABILITY),
            ("each at its default durability", default, GOAL_DEFAULT_DURABILITY),
        )
    ]
    comparisons += [
        (f"peers W3 ÷ Redis Streams, {setting}", "w3_seconds", rows_, W3_PEER, GOAL_W3_TO_REDIS)
        for setting, rows_ in (
            ("an fsync before every answer", sync),
            ("each at its default durability", default),
        )
    ]
    out: list[Json] = []
    for name, key, candidates, only, goal in comparisons:
        higher = FIGURES[key]
        ours = next((r for r in candidates if r["peer"] == "sluice"), None)
        others = [
            (value, r)
            for r in candidates
            if r["peer"] != "sluice" and (only is None or r["peer"] == only)
            if (value := _median(r, key)) is not None
        ]
        mine = None if ours is None else _median(ours, key)
        if mine is None or not others:
            continue
        best, who = (max if higher else min)(others, key=lambda pair: pair[0])
        if not best:
            continue
        ratio = round(mine / best, 3)
        line = h.target(name, {"median": ratio}, goal, "ratio", higher_is_better=higher)
        out.append(
            line | {"peer": who["peer"], "title": who["title"], "sluice": mine, "other": best}
        )
    return out


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def _median(row: Json, key: str) -> float | None:
    node = row.get("figures", {}).get(key)
    return None if node is None else node.get("median")


MODE_TITLES = {
    ps.SYNC: "Every write and acknowledgement answered after an fsync",
    ps.NOSYNC: "Answered before the data is on disk",
}


def markdown(doc: Json) -> str:
    """The tables of a ``peers`` result document, one per durability, with Sluice ÷ the best
    peer; the peers that could not run, and why."""
    results = doc["results"]
    rows, skipped, summary = results["rows"], results["skipped"], results["summary"]
    params = doc["parameters"]
    out = [
        f"Measured on commit {doc['commit'][:7]}{' (dirty tree)' if doc['dirty'] else ''}, "
        f"{doc['machine']['nproc']} cores, {params['records']:,} records for W1 and W2, "
        f"{params['w3_records']:,} for W3, {params['runs']} run(s) (medians).",
        "",
    ]
    header = (
        "| Peer | Durability | W1 records/s | W1 request p50 / p99 ms | W1 server µs/record "
        "| W2 records/s | W2 fetch p50 / p99 ms | W2 ack p50 / p99 ms | W2 server µs/record "
        "| W3 s (lost) |"
    )
    for mode in ps.MODES:
        in_mode = [r for r in rows if r["mode"] == mode]
        if not in_mode:
            continue
        out += [f"**{MODE_TITLES[mode]}** ({mode})", "", header, "|" + "---|" * 10]
        for r in sorted(in_mode, key=lambda r: PEER_ORDER.index(r["peer"])):
            name = f"{r['title']} {r['version']}"
            words = r["durability"]
            if r.get("error") or not r.get("figures"):
                out.append(f"| {name} | {words} | failed: {r.get('error')} |" + " |" * 8)
                continue

            def pair(a: str, b: str, row: Json = r) -> str:
                return f"{_num(_median(row, a), 2)} / {_num(_median(row, b), 2)}"

            out.append(
                f"| {name} | {words} | {_num(_median(r, 'w1_records_per_s'))} "
                f"| {pair('w1_request_ms_p50', 'w1_request_ms_p99')} "
                f"| {_num(_median(r, 'w1_server_us_per_record'), 1)} "
                f"| {_num(_median(r, 'w2_records_per_s'))} "
                f"| {pair('w2_fetch_ms_p50', 'w2_fetch_ms_p99')} "
                f"| {pair('w2_ack_ms_p50', 'w2_ack_ms_p99')} "
                f"| {_num(_median(r, 'w2_server_us_per_record'), 1)} "
                f"| {_num(_median(r, 'w3_seconds'), 3)} ({r.get('w3_lost')}) |"
            )
        line = summary.get(mode, {})

        def ratio(key: str, line: Json = line) -> str:
            entry = line.get(key)
            if not entry or entry.get("sluice_to_best") is None:
                return "–"
            return f"{entry['sluice_to_best']:.2f} ({entry['best_peer']})"

        out.append(
            "| **Sluice ÷ best peer** | | "
            + " | ".join(
                [
                    ratio("w1_records_per_s"),
                    f"{ratio('w1_request_ms_p50')} / {ratio('w1_request_ms_p99')}",
                    ratio("w1_server_us_per_record"),
                    ratio("w2_records_per_s"),
                    f"{ratio('w2_fetch_ms_p50')} / {ratio('w2_fetch_ms_p99')}",
                    f"{ratio('w2_ack_ms_p50')} / {ratio('w2_ack_ms_p99')}",
                    ratio("w2_server_us_per_record"),
                    ratio("w3_seconds"),
                ]
            )
            + " |"
        )
        out.append("")
    out.append(
        "Sluice ÷ best peer: Sluice's figure over the best of the others at the same durability "
        "(named): above 1 is better for records/s, below 1 for times and CPU."
    )
    if skipped:
        out += ["", "Not measured:", ""]
        out += [f"- {s['title']} ({s['mode']}): {s['reason']}" for s in skipped]
    return "\n".join(out) + "\n"


def newest_result(directory: Path | None = None) -> Path:
    found = sorted(
        (directory or h.RESULTS_DIR).glob(f"{NAME}-*.json"),
        key=lambda p: str(json.loads(p.read_text()).get("date")),
    )
    if not found:
        raise h.BenchError("no peers result file")
    return found[-1]


# -- the command ---------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> Json:
    if args.show is not None:
        path = Path(args.show) if args.show else newest_result(args.out)
        sys.stdout.write(markdown(json.loads(path.read_text())))
        return {}
    if args.quick:
        args.runs = 1
        args.records = min(args.records, QUICK["records"])
        args.w3_records = min(args.w3_records, QUICK["w3_records"])
        args.warmup = min(args.warmup, QUICK["warmup"])
    names = [n.strip() for n in args.peers.split(",") if n.strip()]
    unknown = [n for n in names if n not in ps.PEERS]
    if unknown:
        raise h.BenchError(f"unknown peers {unknown}; known: {', '.join(PEER_ORDER)}")
    modes = [m.strip() for m in args.durability.split(",") if m.strip()]
    if any(m not in ps.MODES for m in modes):
        raise h.BenchError(f"--durability takes {', '.join(ps.MODES)}")
    git = h.git_info()
    rows: list[Json] = []
    skipped: list[Json] = []
    busy: list[float] = []
    for name in sorted(names, key=PEER_ORDER.index):
        peer = ps.PEERS[name]()
        try:
            peer.install()
            durabilities = peer.durabilities()
        except ps.Unavailable as exc:
            for mode in modes:
                skipped.append(
                    {"peer": name, "title": peer.title, "mode": mode, "reason": str(exc)}
                )
            h.log(f"[peers] {peer.title}: not measured: {exc}")
            continue
        for mode in modes:
            durability = durabilities.get(mode, "not available")
            if isinstance(durability, str):
                skipped.append(
                    {"peer": name, "title": peer.title, "mode": mode, "reason": durability}
                )
                h.log(f"[peers] {peer.title} {mode}: not measured: {durability}")
                continue
            try:
                rows.append(measure(peer, durability, args, busy))
            except ps.Unavailable as exc:
                skipped.append(
                    {"peer": name, "title": peer.title, "mode": mode, "reason": str(exc)}
                )
    summary = summarise(rows)
    summary["targets"] = targets(rows)
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep", "show")}
    params["consumers"] = CONSUMERS
    params["fetch_wait_s"] = FETCH_WAIT
    doc_results = {
        "rows": rows,
        "skipped": skipped,
        "summary": summary,
        "other_busy_cores_before_runs": busy,
    }
    path = h.write_result(NAME, params, doc_results, args.out, git)
    h.print_targets(f"peers ({path})", summary["targets"])
    if args.markdown:
        sys.stdout.write(markdown(json.loads(path.read_text())))
    failed = [f"{r['peer']} {r['mode']}" for r in rows if r["error"]]
    if failed:
        raise h.BenchError(f"failed: {', '.join(failed)}")
    return doc_results


def add_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--peers",
        default=",".join(PEER_ORDER),
        help=f"comma-separated, of {','.join(PEER_ORDER)} (default: all)",
    )
    parser.add_argument(
        "--durability",
        default=",".join(ps.MODES),
        help="comma-separated: sync (an fsync before every answer), nosync (default: both)",
    )
    parser.add_argument("--records", type=int, default=200_000, help="W1 and W2 (200,000)")
    parser.add_argument("--w3-records", type=int, default=10_000, help="W3 (10,000)")
    parser.add_argument(
        "--partitions",
        type=int,
        default=1,
        help="partitions of the Sluice and Kafka topics (default 1: one queue, as the others)",
    )
    parser.add_argument("--warmup", type=int, default=WARMUP_REQUESTS, help="W1 warm-up requests")
    parser.add_argument("--runs", type=int, default=1, help="runs of each row (medians; default 1)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"one run of {QUICK['records']:,} and {QUICK['w3_records']:,} records, for a test",
    )
    parser.add_argument("--max-seconds", type=float, default=600.0, help="bound of a workload")
    parser.add_argument("--markdown", action="store_true", help="print the tables after the run")
    parser.add_argument(
        "--show",
        nargs="?",
        const="",
        default=None,
        metavar="RESULT",
        help="print the tables of a result file (default: the newest) and measure nothing",
    )
    parser.add_argument("--tmp", default=None, help="parent of the temporary directories")
    parser.add_argument("--keep", action="store_true", help="keep data directories and logs")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=120.0,
        help="wait up to this many seconds for an idle machine before each row (default 120)",
    )


def main(argv: list[str] | None = None) -> int:
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
