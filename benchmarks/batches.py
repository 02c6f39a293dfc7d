"""Record batches on the wire: what a batch costs the server against JSON, and how near the disk
and one reader get.

Each run starts a fresh server (fsync=always) for each part; values are 256 random bytes.

- **SEQ** one producer, each request sent when the previous answered (``httpx.AsyncClient`` on
  uvloop, one keep-alive connection, as W1 of ``benchmarks.users``), in three forms one after
  another on one server, each to a 1-partition topic of its own after 20 warm-up requests:
  *json-100*, ``POST /v1/topics/{t}/records`` with 100 base64 values a request (W1 itself);
  *batch-100* and *batch-1000*, ``POST /v1/topics/{t}/partitions/0/batches`` with one record
  batch of 100 or 1,000 records a request, encoded in the timed loop by the Python client's
  codec. For each form: records/s, ms a request, and the server's CPU a record; from the two
  batch forms, the server's CPU split into a part per request and a part per record (the
  solution of cpu = a × requests + b × records over both). Targets: batch-100 ≤ 3 µs a record,
  batch-1000 ≤ 1 µs, json-100 ≤ 5 µs.
- **P32B** 32 connections (a minimal HTTP/1.1 client on asyncio streams, bodies built before
  the timed phase) sending batches of 1,000 records to one partition, ``--p32-records``
  (1,000,000) in all, against the disk's own ceiling measured in the same run: a plain program
  appending the same bodies to a file beside the data directory with the same fsync cadence
  (as many fsyncs as the server's group-commit rounds, counted by its
  ``sluice_fsync_round_seconds`` metric, spread evenly over the bodies). Target: ≥ 0.3.
- **READ** one reader, one request at a time on the same minimal client, reads the P32B topic
  from offset 0 to its end: with ``format=batches`` (``max_records`` 10,000, ``max_bytes``
  4 MiB), opening each answer and walking its batches with the Python client's codec (framing
  and CRC-32C checked, offsets contiguous), and with ``format=json`` (``max_records`` 1,000, as
  ``benchmarks.read``) for comparison. Target: batches ≥ 1,000,000 records/s.

    python -m benchmarks.batches [--runs 3] [--quick] [--only seq p32]

(``p32`` includes the reads.) Results go to ``benchmarks/results/batches-<commit>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from sluice._codec import Record, batches, encode_batch, open_envelope

from benchmarks import _harness as h
from benchmarks import users as u
from benchmarks._loadgen import RawConnection

NAME = "batches"
VALUE_BYTES = 256
BATCH_MEDIA_TYPE = "application/vnd.sluice.record-batch"
FORMS = {"json-100": 100, "batch-100": 100, "batch-1000": 1000}
P32_CONNECTIONS = 32
P32_BATCH = 1000
READ_BATCHES_MAX_RECORDS = 10_000
READ_BATCHES_MAX_BYTES = 4 * h.MiB
READ_JSON_MAX_RECORDS = 1000
VARIANTS = 8  # distinct bodies cycled through by P32B
WORKLOADS = ("seq", "p32")

Json = dict[str, Any]


# -- pure parts (unit-tested) -----------------------------------------------------------------


def split_cost(
    small: tuple[float, int, int], large: tuple[float, int, int]
) -> tuple[float, float] | None:
    """The server's CPU per request and per record (µs) from two runs of ``(cpu_seconds,
    requests, records)`` with different records per request: cpu = a × requests + b × records.
    None when the two runs cannot tell the parts apart."""
    (c1, q1, r1), (c2, q2, r2) = small, large
    det = q1 * r2 - q2 * r1
    if det == 0:
        return None
    a = (c1 * r2 - c2 * r1) / det
    b = (q1 * c2 - q2 * c1) / det
    return round(a * 1e6, 2), round(b * 1e6, 3)


def fsync_points(bodies: int, fsyncs: int) -> list[int]:
    """After which bodies (0-based) a writer that makes ``fsyncs`` fsyncs over ``bodies``
    appended bodies fsyncs, spread evenly; the last body is always followed by one."""
    fsyncs = max(1, min(fsyncs, bodies))
    return sorted({(k + 1) * bodies // fsyncs - 1 for k in range(fsyncs)})


def metric_value(exposition: str, name: str) -> float:
    """A sample's value in a metrics exposition (the first line for ``name`` with no labels)."""
    for line in exposition.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise h.BenchError(f"the metrics have no {name}")


# -- the client process -----------------------------------------------------------------------


def _records(seed: int, count: int) -> list[Record]:
    """Records as the Python client prepares them: (timestamp, key, value, headers)."""
    rng = random.Random(seed)
    now = int(time.time() * 1000)
    return [(now, None, rng.randbytes(VALUE_BYTES), []) for _ in range(count)]


def _encode(records: list[Record]) -> bytes:
    return encode_batch(records)


def _check_answer(status: int, payload: bytes, count: int, last: int) -> int:
    """The base offset of a batch produce answer, checked; ``last`` is the previous one's last
    offset."""
    if status != 200:
        raise u.Broken(f"batch produce answered {status}: {payload[:300]!r}")
    (b,) = orjson.loads(payload)["batches"]
    if b["error"] is not None or b["base_offset"] <= last:
        raise u.Broken(f"batch produce answered {b} after offset {last}")
    base: int = b["base_offset"]
    return base + count - 1


async def _seq_batches(spec: Json, meter: u.Meter) -> Json:
    total, per = spec["records"], spec["per_request"]
    pool = _records(3, 997)
    deadline = time.monotonic() + spec["max_seconds"]
    latencies: list[float] = []
    sent = requests = 0
    last = -1
    headers = {"content-type": BATCH_MEDIA_TYPE}

    def body(i: int, n: int) -> bytes:
        return _encode([pool[(i + k) % len(pool)] for k in range(n)])

    async with u._client(spec) as c:
        for i in range(spec["warmup_requests"]):
            r = await c.post(
                f"/v1/topics/{spec['warmup_topic']}/partitions/0/batches",
                content=body(i, per),
                headers=headers,
            )
            _check_answer(r.status_code, r.content, per, -1)
        path = f"/v1/topics/{spec['topic']}/partitions/0/batches"
        meter.begin()
        while sent < total:
            if time.monotonic() > deadline:
                return {"timed_out": True}
            n = min(per, total - sent)
            t0 = time.perf_counter()
            r = await c.post(path, content=body(sent, n), headers=headers)
            last = _check_answer(r.status_code, r.content, n, last)
            latencies.append((time.perf_counter() - t0) * 1000.0)
            sent += n
            requests += 1
        meter.end()
    return {**meter.report(sent), "requests": requests, "request_ms": h.latency_summary(latencies)}


async def _p32(spec: Json, meter: u.Meter) -> Json:
    total, per = spec["records"], spec["per_request"]
    bodies = [_encode(_records(10 + v, per)) for v in range(VARIANTS)]
    jobs = iter(range(total // per))
    path = f"/v1/topics/{spec['topic']}/partitions/0/batches"
    host, port = spec["url"].removeprefix("http://").rsplit(":", 1)
    conns = [RawConnection(host, int(port)) for _ in range(spec["connections"])]
    deadline = time.monotonic() + spec["max_seconds"]
    latencies: list[float] = []
    bases: list[int] = []

    async def worker(conn: RawConnection) -> None:
        for i in jobs:
            if time.monotonic() > deadline:
                raise u.Broken("not finished in time")
            t0 = time.perf_counter()
            status, payload = await conn.request(
                "POST", path, bodies[i % VARIANTS], BATCH_MEDIA_TYPE
            )
            latencies.append((time.perf_counter() - t0) * 1000.0)
            bases.append(_check_answer(status, payload, per, -1) - per + 1)

    meter.begin()
    try:
        await asyncio.gather(*(worker(c) for c in conns))
    finally:
        meter.end()
        for c in conns:
            await c.close()
    if sorted(bases) != list(range(0, len(bases) * per, per)):
        raise u.Broken("the batches' base offsets are not one after another")
    return {
        **meter.report(len(bases) * per),
        "requests": len(bases),
        "body_bytes": len(bodies[0]),
        "request_ms": h.latency_summary(latencies),
    }


async def _read(spec: Json, meter: u.Meter) -> Json:
    end, fmt = spec["end"], spec["format"]
    host, port = spec["url"].removeprefix("http://").rsplit(":", 1)
    conn = RawConnection(host, int(port))
    base = f"/v1/topics/{spec['topic']}/partitions/0/records?format={fmt}"
    base += f"&max_records={spec['max_records']}&max_bytes={spec['max_bytes']}"
    latencies: list[float] = []
    offset = records = requests = 0
    deadline = time.monotonic() + spec["max_seconds"]
    meter.begin()
    try:
        while offset < end:
            if time.monotonic() > deadline:
                return {"timed_out": True}
            t0 = time.perf_counter()
            status, payload = await conn.request("GET", f"{base}&offset={offset}", None)
            if status != 200:
                raise u.Broken(f"read at {offset} answered {status}: {payload[:300]!r}")
            if fmt == "batches":
                env = open_envelope(payload)
                at = offset
                for head, _ in batches(env.data, env.start):
                    if not head.base_offset <= at <= head.last_offset:
                        raise u.Broken(f"batch {head.base_offset}..{head.last_offset} at {at}")
                    records += head.last_offset - at + 1
                    at = head.last_offset + 1
                if env.head["next_offset"] != at or at == offset:
                    raise u.Broken(f"read at {offset} ended at {at}: {env.head}")
            else:
                answer = orjson.loads(payload)
                got = answer["records"]
                if not got or got[0]["offset"] != offset:
                    raise u.Broken(f"read at {offset} answered from {got[:1]}")
                records += len(got)
                at = answer["next_offset"]
            latencies.append((time.perf_counter() - t0) * 1000.0)
            requests += 1
            offset = at
        meter.end()
    finally:
        await conn.close()
    if records != end:
        raise u.Broken(f"read {records} records of {end}")
    return {
        **meter.report(records),
        "requests": requests,
        "request_ms": h.latency_summary(latencies),
    }


CLIENT_WORKLOADS = {"seq_batches": _seq_batches, "p32": _p32, "read": _read, "w1": u._w1}


async def _client_main(spec: Json) -> Json:
    meter = u.Meter(spec["server_pid"])
    try:
        return await CLIENT_WORKLOADS[spec["workload"]](spec, meter)
    except (u.Broken, httpx.HTTPError, OSError, KeyError, ValueError, TypeError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def disk_ceiling(spec: Json) -> Json:
    """Append ``bodies`` copies of the P32B bodies to ``path`` with ``fsyncs`` fsyncs spread
    evenly: what the disk does with the same bytes and the same cadence, nothing else."""
    bodies = [_encode(_records(10 + v, spec["per_request"])) for v in range(VARIANTS)]
    points = set(fsync_points(spec["bodies"], spec["fsyncs"]))
    fd = os.open(spec["path"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        t0 = time.perf_counter()
        for i in range(spec["bodies"]):
            os.write(fd, bodies[i % VARIANTS])
            if i in points:
                os.fsync(fd)
        elapsed = time.perf_counter() - t0
    finally:
        os.close(fd)
        Path(spec["path"]).unlink()
    records = spec["bodies"] * spec["per_request"]
    return {
        "records": records,
        "fsyncs": len(points),
        "seconds": round(elapsed, 4),
        "records_per_s": round(records / elapsed, 1),
    }


# -- the parts (parent side) ------------------------------------------------------------------


def _fsync_rounds(server: h.ServerProcess) -> float:
    r = httpx.get(f"{server.base_url}/metrics", timeout=30)
    return metric_value(r.text, "sluice_fsync_round_seconds_count")


def _spec(args: argparse.Namespace, **fields: Any) -> Json:
    return {"max_seconds": args.max_seconds, "warmup_requests": 20, **fields}


def run_seq(args: argparse.Namespace) -> Json:
    out: Json = {}
    with h.Workdir("batches-seq", args.tmp, args.keep) as wd, u._server(args, wd) as server:
        server.wait_ready()
        h.create_topic(server, "warmup", 1)
        for form, per in FORMS.items():
            h.create_topic(server, form, 1)
            records = args.seq_records * (10 if per == 1000 else 1)
            if form == "json-100":
                spec = _spec(args, workload="w1", topic=form, records=records)
                spec["warmup_topic"] = "warmup"
            else:
                spec = _spec(args, workload="seq_batches", per_request=per, topic=form)
                spec |= {"records": records, "warmup_topic": "warmup"}
            out[form] = u.run_client(server, spec, module="benchmarks.batches")
            if h.high_watermarks(server, form) != [records]:
                raise h.BenchError(f"SEQ {form}: the topic does not hold the {records} records")
            r = out[form]
            r["server_us_per_request"] = u.per_record_us(r["server_cpu_s"], r["requests"])
            h.log(
                f"  SEQ {form}: {r['records_per_s']:,} records/s, {r['request_ms']['mean']} ms "
                f"a request, server {r['server_us_per_record']} µs a record"
            )
        server.stop()
    parts = split_cost(
        *(
            (out[f]["server_cpu_s"], out[f]["requests"], out[f]["records"])
            for f in ("batch-100", "batch-1000")
        )
    )
    if parts is not None:
        out["batch_server_us_per_request"], out["batch_server_us_per_record"] = parts
        h.log(f"  SEQ batches: server {parts[0]} µs a request + {parts[1]} µs a record")
    return out


def run_p32(args: argparse.Namespace) -> Json:
    records = args.p32_records - args.p32_records % P32_BATCH
    with h.Workdir("batches-p32", args.tmp, args.keep) as wd:
        with u._server(args, wd) as server:
            server.wait_ready()
            h.create_topic(server, "bench", 1)
            rounds0 = _fsync_rounds(server)
            p32 = u.run_client(
                server,
                _spec(
                    args,
                    workload="p32",
                    topic="bench",
                    records=records,
                    per_request=P32_BATCH,
                    connections=P32_CONNECTIONS,
                ),
                module="benchmarks.batches",
            )
            p32["fsync_rounds"] = int(_fsync_rounds(server) - rounds0)
            if h.high_watermarks(server, "bench") != [records]:
                raise h.BenchError(f"P32B: the topic does not hold the {records} records")
            reads = {
                fmt: u.run_client(
                    server,
                    _spec(
                        args,
                        workload="read",
                        topic="bench",
                        end=records,
                        format=fmt,
                        max_records=limit,
                        max_bytes=READ_BATCHES_MAX_BYTES,
                    ),
                    module="benchmarks.batches",
                )
                for fmt, limit in (
                    ("batches", READ_BATCHES_MAX_RECORDS),
                    ("json", READ_JSON_MAX_RECORDS),
                )
            }
            server.stop()
        ceiling = _disk_ceiling_process(
            {
                "path": str(wd.path / "ceiling.log"),
                "bodies": p32["requests"],
                "per_request": P32_BATCH,
                "fsyncs": p32["fsync_rounds"],
            }
        )
    (ratio,) = u.ratios([p32["records_per_s"]], [ceiling["records_per_s"]])
    h.log(
        f"  P32B: {p32['records_per_s']:,} records/s in {p32['fsync_rounds']} fsync rounds, "
        f"disk ceiling {ceiling['records_per_s']:,}: ratio {ratio}"
    )
    for fmt, r in reads.items():
        h.log(
            f"  READ {fmt}: {r['records_per_s']:,} records/s, {r['request_ms']['mean']} ms a "
            f"request, server {r['server_us_per_record']} µs a record"
        )
    return {"sluice": p32, "ceiling": ceiling, "ratio": ratio, "read": reads}


def _disk_ceiling_process(spec: Json) -> Json:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.batches", "--disk-ceiling", orjson.dumps(spec).decode()],
        cwd=h.REPO_ROOT,
        capture_output=True,
        timeout=600,
        check=False,
    )
    if out.returncode != 0 or not out.stdout.strip():
        raise h.BenchError(f"disk ceiling failed: {out.stderr.decode(errors='replace')[-2000:]}")
    result: Json = orjson.loads(out.stdout)
    return result


RUNNERS = {"seq": run_seq, "p32": run_p32}


def summarise(raw: dict[str, list[Json]]) -> Json:
    s: Json = {"targets": []}
    t = s["targets"]

    def sp(key: str, runs: list[Json], path: str) -> Json:
        s[key] = h.spread([v for r in runs if (v := u._at(r, path)) is not None])
        spread: Json = s[key]
        return spread

    if runs := raw.get("seq"):
        goals = {"json-100": 5.0, "batch-100": 3.0, "batch-1000": 1.0}
        for form, goal in goals.items():
            key = form.replace("-", "_")
            sp(f"seq_{key}_records_per_s", runs, f"{form}.records_per_s")
            sp(f"seq_{key}_request_ms_mean", runs, f"{form}.request_ms.mean")
            sp(f"seq_{key}_server_us_per_request", runs, f"{form}.server_us_per_request")
            cpu = sp(f"seq_{key}_server_us_per_record", runs, f"{form}.server_us_per_record")
            t.append(
                h.target(
                    f"batches SEQ {form}: server CPU a record",
                    cpu,
                    goal,
                    "µs",
                    higher_is_better=False,
                )
            )
        sp("seq_batch_server_us_per_request", runs, "batch_server_us_per_request")
        sp("seq_batch_server_us_per_record", runs, "batch_server_us_per_record")
    if runs := raw.get("p32"):
        sp("p32_records_per_s", runs, "sluice.records_per_s")
        sp("p32_fsync_rounds", runs, "sluice.fsync_rounds")
        sp("p32_server_us_per_record", runs, "sluice.server_us_per_record")
        sp("p32_disk_ceiling_records_per_s", runs, "ceiling.records_per_s")
        ratio = sp("p32_ratio_to_disk", runs, "ratio")
        t.append(h.target("batches P32B 1,000 a request ÷ the disk's ceiling", ratio, 0.3, "ratio"))
        for fmt in ("batches", "json"):
            rate = sp(f"read_{fmt}_records_per_s", runs, f"read.{fmt}.records_per_s")
            sp(f"read_{fmt}_server_us_per_record", runs, f"read.{fmt}.server_us_per_record")
            if fmt == "batches":
                t.append(
                    h.target("batches READ one reader: records/s", rate, 1_000_000, "records/s")
                )
    return s


def run(args: argparse.Namespace) -> Json:
    if args.quick:
        args.runs = 1
        args.seq_records = min(args.seq_records, 5_000)
        args.p32_records = min(args.p32_records, 64_000)
    git = h.git_info()
    busy: list[float] = []
    raw: dict[str, list[Json]] = {w: [] for w in args.only}
    for i in h.iter_runs(args, busy):
        h.log(f"[batches] run {i}/{args.runs}")
        for w in args.only:
            raw[w].append(RUNNERS[w](args))
    summary = summarise(raw)
    summary["other_busy_cores_before_runs"] = busy
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    params["fsync"] = "always"
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out, git)
    h.print_targets(f"batches ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument(
        "--seq-records",
        type=int,
        default=100_000,
        help="records of each 100-a-request form (ten times as many at 1,000 a request)",
    )
    parser.add_argument("--p32-records", type=int, default=1_000_000)
    parser.add_argument(
        "--max-seconds", type=float, default=300.0, help="time limit of each workload's loop"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--client-spec"]:
        import uvloop

        spec = orjson.loads(argv[1])
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result = runner.run(_client_main(spec))
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
        return 1 if "error" in result else 0
    if argv[:1] == ["--disk-ceiling"]:
        sys.stdout.buffer.write(orjson.dumps(disk_ceiling(orjson.loads(argv[1]))) + b"\n")
        return 0
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
