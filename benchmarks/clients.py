"""The clients against raw HTTP: W1 and W2 through the Python async client and the JavaScript
client in Node, measured in the same run, on the same server, as an application's own HTTP
client doing the same requests.

Each run starts one server (fsync=always) and measures, one after another on it:

- **W1**, one producer sending 100 records of 256 random bytes a request, each request when
  the previous answered, ``--w1-records`` (100,000) records to a 1-partition topic of its own,
  after 20 warm-up requests: *raw* — ``httpx.AsyncClient`` on uvloop posting the idempotent
  producer's JSON requests (``POST /v1/producers``, then ``POST /v1/produce`` with the sequence
  of each batch, values base64), what a service without a client library sends; *python* —
  ``AsyncProducer`` of the Python client as it comes (``max_batch=100``: 100 ``send`` calls,
  then the futures awaited; its record batches to ``POST …/partitions/0/batches``); *js* — the
  JavaScript client's ``Producer`` in Node as it comes (``maxBatch: 100``, 100 ``send``
  promises awaited together; record batches too).
- **W2**, 4 consumers of one share group each (``--w2-records``, 200,000 records pre-filled on
  4 partitions; each form reads them all through a group of its own), fetching up to 100
  (``record_limit``) and acknowledging them (accept) before the next fetch: *raw* — JSON fetch
  then ``POST …/acknowledge`` of the acquired ranges; *python* — ``AsyncShareConsumer``
  (implicit mode) ``poll`` then ``commit_sync``: the same two requests, its fetches answered
  as record batches; *js* — the JavaScript ``ShareConsumer`` doing the same.

The clients carry records as record batches and the raw form as JSON, so the ratio client ÷
raw says what a user gains or loses by taking the client instead of writing JSON requests by
hand, wire format included.

Every answer is checked (counts, offsets, per-item errors); after each form the topic must hold
every record sent (W1) or the group must have no lag (W2). The ratios client ÷ raw are taken
run by run. Target: the Python client ≥ 85 % of raw for W1 and W2; the JavaScript figures are
recorded.

    python -m benchmarks.clients [--runs 3] [--quick]

Results go to ``benchmarks/results/clients-<commit>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from benchmarks import _harness as h
from benchmarks import users as u

NAME = "clients"
BATCH = 100
VALUE_BYTES = 256
PARTITIONS = 4
CONSUMERS = 4
FORMS = ("raw", "python", "js")
JS_CLIENT = h.REPO_ROOT / "benchmarks" / "clients_js.mjs"

Json = dict[str, Any]


def _values(count: int) -> list[bytes]:
    rng = random.Random(1)
    return [rng.randbytes(VALUE_BYTES) for _ in range(count)]


# -- the client process: raw and Python forms ----------------------------------------------------


async def _sequential(
    spec: Json, meter: u.Meter, send: Callable[[str, int], Awaitable[None]]
) -> list[float]:
    """W1's loop: warm-up requests, then ``records`` in requests of 100, each sent when the
    previous answered, timed; answers each request's milliseconds."""
    latencies: list[float] = []
    for i in range(spec["warmup_requests"]):
        await send(spec["warmup_topic"], i * BATCH)
    meter.begin()
    for sent in range(0, spec["records"], BATCH):
        t0 = time.perf_counter()
        await send(spec["topic"], sent)
        latencies.append((time.perf_counter() - t0) * 1000.0)
    meter.end()
    return latencies


async def _w1_raw(spec: Json, meter: u.Meter) -> Json:
    """The idempotent producer's requests, written by hand."""
    pool = _values(997)
    total = spec["records"]
    async with u._client(spec) as c:
        ident = await u._ok(c, "/v1/producers", {})
        pid, epoch = ident["producer_id"], ident["producer_epoch"]
        sequences = {spec["topic"]: 0, spec["warmup_topic"]: 0}

        async def send(topic: str, start: int) -> None:
            records = [
                {"value": base64.b64encode(pool[(start + k) % len(pool)]).decode()}
                for k in range(BATCH)
            ]
            body = {
                "producer_id": pid,
                "producer_epoch": epoch,
                "encoding": "base64",
                "batches": [
                    {
                        "topic": topic,
                        "partition": 0,
                        "base_sequence": sequences[topic],
                        "records": records,
                    }
                ],
            }
            answer = await u._ok(c, "/v1/produce", body)
            (result,) = answer["batches"]
            if result.get("error") is not None:
                raise u.Broken(f"produce refused: {result['error']}")
            sequences[topic] += BATCH

        latencies = await _sequential(spec, meter, send)
    return {**meter.report(total), "request_ms": h.latency_summary(latencies)}


async def _w1_python(spec: Json, meter: u.Meter) -> Json:
    import sluice

    pool = _values(997)
    total = spec["records"]
    async with sluice.AsyncSluice(spec["url"]) as client:
        producer = client.producer(max_batch=BATCH, linger=0.005)

        async def send(topic: str, start: int) -> None:
            futures = [
                await producer.send(topic, pool[(start + k) % len(pool)], partition=0)
                for k in range(BATCH)
            ]
            metas = [await f for f in futures]  # each answered when its request is
            if [m.offset for m in metas] != list(range(metas[0].offset, metas[0].offset + BATCH)):
                raise u.Broken("the producer answered offsets out of order")

        latencies = await _sequential(spec, meter, send)
        await producer.aclose()
    return {**meter.report(total), "request_ms": h.latency_summary(latencies)}


async def _w2_python(spec: Json, meter: u.Meter) -> Json:
    import sluice

    total = spec["records"]
    seen: set[tuple[int, int]] = set()
    poll_ms: list[float] = []
    commit_ms: list[float] = []
    done = asyncio.Event()

    async def consumer(consumer: sluice.AsyncShareConsumer) -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            records = await consumer.poll(0.05)
            took = (time.perf_counter() - t0) * 1000.0
            if not records:
                continue
            poll_ms.append(took)
            for r in records:
                if r.value is None or len(r.value) != VALUE_BYTES:
                    raise u.Broken("a value came back with the wrong length")
                key = (r.partition, r.offset)
                if key in seen:
                    raise u.Broken(f"{key} delivered twice")
                seen.add(key)
            t0 = time.perf_counter()
            await consumer.commit_sync()  # accepts the poll's records
            commit_ms.append((time.perf_counter() - t0) * 1000.0)
            if len(seen) >= total and not done.is_set():
                meter.end()
                done.set()

    async with sluice.AsyncSluice(spec["url"]) as first:
        clients = [first] + [sluice.AsyncSluice(spec["url"]) for _ in range(CONSUMERS - 1)]
        consumers = [
            c.share_consumer(spec["group"], max_records=BATCH, acquire_mode="record_limit")
            for c in clients
        ]
        for consumer_ in consumers:
            consumer_.subscribe([spec["topic"]])
        meter.begin()
        try:
            async with asyncio.timeout(spec["max_seconds"]):
                await asyncio.gather(*(consumer(each) for each in consumers))
        finally:
            for consumer_ in consumers:
                await consumer_.close()
            for client in clients[1:]:
                await client.aclose()
    return {
        **meter.report(len(seen)),
        "accepted": len(seen),
        "fetch_ms": h.latency_summary(poll_ms),
        "ack_ms": h.latency_summary(commit_ms),
    }


WORKLOADS = {"w1_raw": _w1_raw, "w1_python": _w1_python, "w2_python": _w2_python}


async def _client_main(spec: Json) -> Json:
    meter = u.Meter(spec["server_pid"])
    try:
        return await WORKLOADS[spec["workload"]](spec, meter)
    except Exception as exc:  # reported to the parent, which fails the run
        return {"error": f"{type(exc).__name__}: {exc}"}


def run_client(server: h.ServerProcess, spec: Json) -> Json:
    spec = {**spec, "url": server.base_url, "server_pid": server.pid}
    if spec["workload"].endswith("_js"):
        node = shutil.which("node")
        if node is None:
            raise h.BenchError("node is not installed")
        command = [node, str(JS_CLIENT), orjson.dumps(spec).decode()]
    else:
        command = [sys.executable, "-m", "benchmarks.clients", "--client-spec"]
        command.append(orjson.dumps(spec).decode())
    try:
        out = subprocess.run(
            command, cwd=h.REPO_ROOT, capture_output=True, timeout=spec["max_seconds"] + 60
        )
    except subprocess.TimeoutExpired:
        raise h.BenchError(f"the {spec['workload']} client did not finish in time") from None
    server.check_alive()
    if not out.stdout.strip():
        raise h.BenchError(f"client failed: {out.stderr.decode(errors='replace')[-2000:]}")
    result: Json = orjson.loads(out.stdout)
    if "error" in result:
        raise h.BenchError(f"{spec['workload']}: {result['error']}")
    return result


# -- the parent ------------------------------------------------------------------------------------


def one_run(args: argparse.Namespace) -> Json:
    out: Json = {}
    with h.Workdir("clients", args.tmp, args.keep) as wd, u._server(args, wd) as server:
        server.wait_ready()
        for form in FORMS:
            h.create_topic(server, f"w1-{form}", 1)
            h.create_topic(server, f"warmup-{form}", 1)
            spec = {
                "workload": f"w1_{form}",
                "topic": f"w1-{form}",
                "warmup_topic": f"warmup-{form}",
                "warmup_requests": 20,
                "records": args.w1_records,
                "max_seconds": args.max_seconds,
                "value_bytes": VALUE_BYTES,
                "batch": BATCH,
            }
            result = run_client(server, spec)
            if h.high_watermarks(server, f"w1-{form}") != [args.w1_records]:
                raise h.BenchError(f"W1 {form}: the topic does not hold the records sent")
            out[f"w1_{form}"] = result
            h.log(
                f"  W1 {form}: {result['records_per_s']:,} records/s, "
                f"{result['request_ms']['mean']} ms per request"
            )
        h.create_topic(server, "w2", PARTITIONS)
        u._fill(server, args, "w2", args.w2_records)
        for form in FORMS:
            group = f"w2-{form}"
            u._share_group(server, group)
            spec = {
                "topic": "w2",
                "group": group,
                "records": args.w2_records,
                "max_seconds": args.max_seconds,
                "consumers": CONSUMERS,
                "batch": BATCH,
                "value_bytes": VALUE_BYTES,
            }
            if form == "raw":  # the application's own client, as users.py measures it
                spec |= {"workload": "consume", "release_first": False, "piggyback": False}
                result = u.run_client(server, spec)
            else:
                result = run_client(server, {**spec, "workload": f"w2_{form}"})
            lag = u._lag(server, group)
            if result["accepted"] != args.w2_records or lag:
                raise h.BenchError(
                    f"W2 {form}: {result['accepted']} of {args.w2_records} accepted, lag {lag}"
                )
            out[f"w2_{form}"] = result
            h.log(
                f"  W2 {form}: {result['records_per_s']:,} records/s, "
                f"ack p99 {result['ack_ms']['p99']} ms"
            )
        server.stop()
    return out


def summarise(runs: list[Json]) -> Json:
    s: Json = {"targets": []}
    for w in ("w1", "w2"):
        for form in FORMS:
            s[f"{w}_{form}_records_per_s"] = h.spread(
                [r[f"{w}_{form}"]["records_per_s"] for r in runs]
            )
        for form in ("python", "js"):
            s[f"{w}_{form}_ratio_to_raw"] = h.spread(
                u.ratios(
                    [r[f"{w}_{form}"]["records_per_s"] for r in runs],
                    [r[f"{w}_raw"]["records_per_s"] for r in runs],
                )
            )
        s["targets"].append(
            h.target(
                f"{w.upper()} Python async client ÷ raw HTTP",
                s[f"{w}_python_ratio_to_raw"],
                0.85,
                "ratio",
            )
        )
    return s


def run(args: argparse.Namespace) -> Json:
    if args.quick:
        args.runs = 1
        args.w1_records = min(args.w1_records, 5_000)
        args.w2_records = min(args.w2_records, 10_000)
    busy: list[float] = []
    runs: list[Json] = []
    for i in h.iter_runs(args, busy):
        h.log(f"[clients] run {i}/{args.runs}")
        runs.append(one_run(args))
    summary = summarise(runs)
    summary["other_busy_cores_before_runs"] = busy
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    params["fsync"] = "always"
    path = h.write_result(NAME, params, {"summary": summary, "raw": runs}, args.out)
    h.print_targets(f"clients ({path})", summary["targets"])
    for w in ("w1", "w2"):
        h.log(
            f"  {w.upper()} JavaScript client: {summary[f'{w}_js_records_per_s']['median']} "
            f"records/s, {summary[f'{w}_js_ratio_to_raw']['median']} of raw"
        )
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--w1-records", type=int, default=100_000)
    parser.add_argument("--w2-records", type=int, default=200_000)
    parser.add_argument("--max-seconds", type=float, default=300.0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--client-spec"]:
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result = runner.run(_client_main(orjson.loads(argv[1])))
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
        return 1 if "error" in result else 0
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
