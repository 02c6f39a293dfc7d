"""The gateway on Kafka against Kafka's native client, on the same cluster.

A gateway (``python -m app serve`` with ``SLUICE_BACKEND=kafka``) is started on a running
cluster (``--bootstrap``; by default the one ``make kafka`` runs from ``kafka/run``), and each
workload is run twice with the same request shape, 100 records of 256 random bytes a request
and one request in flight, once over HTTP through the gateway and once with confluent-kafka
straight to the brokers. Each client runs in a process of its own (``--client-spec``), one
after another, each for ``--seconds`` (20) after a warm-up, on a topic of one partition of its
own (the cluster's replication factor).

- **produce** one producer, each request sent when the previous was answered:
  *gateway-json*, ``POST /v1/topics/{t}/records`` with 100 base64 values (``httpx.AsyncClient``
  on uvloop, bodies encoded with orjson, as ``benchmarks.users`` W1); *gateway-batch*,
  ``POST /v1/topics/{t}/partitions/0/batches`` with one record batch of 100 records
  (``application/vnd.sluice.record-batch``, encoded in the timed loop by the Python client's
  codec, as ``benchmarks.batches``); *native*, a ``Producer`` with ``acks=all``,
  ``max.in.flight.requests.per.connection=1``, ``batch.num.messages=100`` and a linger long
  enough that no smaller batch leaves, which gets 100 ``produce`` calls and then ``flush``:
  one Produce request of 100 records, answered before the next; and *gateway-batch-1000*, one
  batch of 1,000 records a request, only to split the gateway's CPU into a part a request and
  a part a record (cpu = a × requests + b × records over the two batch forms, as
  ``benchmarks.batches``). Every answer is checked (offsets one after another).
- **share** one consumer of a share group of its own, on a topic pre-filled with
  ``--share-records`` (300,000) records by a native producer, until it is drained or the time is
  up: *gateway*, ``POST /v1/share-groups/{g}/fetch`` (``max_records`` 100, ``record_limit``,
  base64 values, each decoded) then ``POST …/acknowledge`` of the acquired ranges (accept);
  *gateway-piggyback*, each fetch carrying the previous fetch's acknowledgements (one request
  a batch); *gateway-batches*, the same with ``format: batches``, the answer read as the Python
  client reads it (the record batches as Kafka's ShareFetch answered them, the records inside
  the acquired ranges taken); *native*, a ``ShareConsumer`` in explicit mode with
  ``max.poll.records`` 100, each record acknowledged (accept) then ``commit_sync``. No record
  may be accepted twice.

For each: records/s, ms a request, the gateway's own CPU a record (user + system time from
``/proc/<pid>/stat`` over the timed phase, divided by the records: the pass figure, at most
3 µs a record; with ``--pin`` the gateway has a core of its own, the clients and the local
brokers the others, so that its figure leaves out the cost of sharing a core with them) and
the system time's share of it, the brokers' CPU a record (when their
processes are on this machine) and the client's CPU per wall second; and the gateway's rate
against the native client's, run by run.
``--floor`` first runs the batch produce's client against two floor servers (``FLOOR_FORMS``,
started as the gateway is and pinned as it is): a bare ASGI callable on the same HTTP stack
(uvicorn, uvloop, httptools) that reads the body and answers offsets it counts, and the same
sending the body to the partition's leader in one ProduceRequest over the gateway's broker
connection: what a request costs before any of the gateway's own work.
The result also carries the cluster's brokers and the load average before and after each run:
the machine is shared, and a loaded machine slows both sides.

    python -m benchmarks.gateway [--bootstrap HOST:PORT,...] [--runs 3] [--seconds 20]
                                 [--only produce share] [--wait-quiet 0]

Results go to ``benchmarks/results/gateway-<commit>-brokers-<N>.json``, N the cluster's
brokers. ``--profile DIR`` samples the gateway with py-spy (``.venv/bin/py-spy``, when it is
installed) during the gateway forms of the first run, into ``DIR/<workload>-<form>.txt``
(collapsed stacks): a profiled run costs the gateway a little more, so its figures are marked
``profiled``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson

from benchmarks import _harness as h
from benchmarks import users as u
from benchmarks._loadgen import process_cpu_seconds
from benchmarks.batches import split_cost

NAME = "gateway"
BATCH = 100
VALUE_BYTES = 256
BATCH_MEDIA_TYPE = "application/vnd.sluice.record-batch"
PRODUCE_FORMS = ("gateway-json", "gateway-batch", "native", "gateway-batch-1000")
# records a request of each produce form: 1,000 only to split the gateway's CPU into a part a
# request and a part a record, beside the batches of 100
PER_REQUEST = {"gateway-batch-1000": 1000}
# --floor: the same batch produce against two servers that do nothing but the request's
# transport, to split the gateway's CPU a request: a bare ASGI callable on the same HTTP stack
# (the body read, offsets counted, a small JSON answered) and the same plus one Produce of the
# body as it came over the gateway's broker connection
FLOOR_FORMS = ("floor-http", "floor-kafka")
SHARE_FORMS = ("gateway", "gateway-piggyback", "gateway-batches", "native")
WORKLOADS = ("produce", "share")
TARGET_US = 3.0  # the gateway's own CPU a record at 100 records a request
WARMUP_REQUESTS = 20
NATIVE_LOG_LEVEL = 3  # errors only: not the share consumer's notice that it is a preview

Json = dict[str, Any]


# -- pure parts (unit-tested) -----------------------------------------------------------------


def contiguous(offsets: list[int], after: int) -> bool:
    """``offsets`` are one after another, and after ``after``."""
    return (
        bool(offsets) and offsets[0] > after and offsets == list(range(offsets[0], offsets[-1] + 1))
    )


def broker_pids(run_dir: Path, bootstrap: str) -> list[int]:
    """The pids of the nodes ``kafka/cluster.sh`` runs from ``run_dir`` when that cluster is the
    one of ``bootstrap``; none otherwise (the brokers' CPU is then not counted)."""
    try:
        env = (run_dir / "cluster.env").read_text()
    except OSError:
        return []
    if f"BOOTSTRAP={bootstrap}" not in env.splitlines():
        return []
    pids = []
    for f in sorted(run_dir.glob("node-*/pid")):
        try:
            pid = int(f.read_text().strip())
        except (OSError, ValueError):
            continue
        if Path(f"/proc/{pid}").exists():
            pids.append(pid)
    return pids


# -- the client process -----------------------------------------------------------------------


class Meter(u.Meter):
    """The gateway's CPU as the server's, with the brokers' CPU beside it."""

    def __init__(self, server_pid: int, brokers: list[int]) -> None:
        super().__init__(server_pid)
        self.brokers = brokers
        self.b0 = self.b1 = self.sys0 = self.sys1 = 0.0

    def _brokers(self) -> float:
        return sum(process_cpu_seconds(p) for p in self.brokers)

    def begin(self) -> None:
        self.b0, self.sys0 = self._brokers(), system_cpu_seconds(self.server_pid)
        super().begin()

    def end(self) -> None:
        super().end()
        self.b1, self.sys1 = self._brokers(), system_cpu_seconds(self.server_pid)

    def report(self, records: int, transactions: int = 0) -> Json:
        out = super().report(records, transactions)
        out["gateway_cpu_s"] = out.pop("server_cpu_s")
        out["gateway_cpu"] = out.pop("server_cpu")
        out["gateway_us_per_record"] = out.pop("server_us_per_record")
        # the kernel's part (the sockets' system calls, loopback TCP included) of the gateway's
        gateway = out["gateway_cpu_s"]
        out["gateway_system_share"] = (
            round((self.sys1 - self.sys0) / gateway, 3) if gateway else None
        )
        brokers = self.b1 - self.b0
        out["broker_cpu_s"] = round(brokers, 4) if self.brokers else None
        out["broker_us_per_record"] = u.per_record_us(brokers, records) if self.brokers else None
        return out


def system_cpu_seconds(pid: int) -> float:
    """System CPU seconds of a process (all its threads), from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")  # stime, field 15 of the file


def _values(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    return [rng.randbytes(VALUE_BYTES) for _ in range(count)]


async def _gateway_produce(spec: Json, meter: Meter) -> Json:
    pool = _values(1, 997)
    batch = spec["form"].startswith("gateway-batch")
    per = PER_REQUEST.get(spec["form"], BATCH)
    topic = spec["topic"]
    path = f"/v1/topics/{topic}/partitions/0/batches" if batch else f"/v1/topics/{topic}/records"
    headers = {"content-type": BATCH_MEDIA_TYPE if batch else "application/json"}

    def body(i: int) -> bytes:
        values = [pool[(i + k) % len(pool)] for k in range(per)]
        if batch:
            from sluice._codec import encode_batch

            return encode_batch([(None, None, v, []) for v in values])
        records = [{"value": base64.b64encode(v).decode()} for v in values]
        return orjson.dumps({"encoding": "base64", "records": records})

    def offsets(payload: bytes) -> list[int]:
        answer = orjson.loads(payload)
        if batch:
            (b,) = answer["batches"]
            if b["error"] is not None:
                raise u.Broken(f"batch refused: {b}")
            return list(range(b["base_offset"], b["base_offset"] + per))
        return [o["offset"] for o in answer["offsets"]]

    latencies: list[float] = []
    sent = requests = 0
    last = -1
    async with u._client(spec) as c:
        for i in range(WARMUP_REQUESTS):
            r = await c.post(path, content=body(i), headers=headers)
            if r.status_code != 200:
                raise u.Broken(f"warm-up produce answered {r.status_code}: {r.text[:300]}")
            last = offsets(r.content)[-1]
        stop = time.monotonic() + spec["seconds"]
        meter.begin()
        while time.monotonic() < stop:
            content = body(sent)
            t0 = time.perf_counter()
            r = await c.post(path, content=content, headers=headers)
            latencies.append((time.perf_counter() - t0) * 1000.0)
            if r.status_code != 200:
                raise u.Broken(f"produce answered {r.status_code}: {r.text[:300]}")
            got = offsets(r.content)
            if len(got) != per or not contiguous(got, last):
                raise u.Broken(f"produce answered offsets {got[:3]}… after {last}")
            last = got[-1]
            sent += per
            requests += 1
        meter.end()
    return {**meter.report(sent), "requests": requests, "request_ms": h.latency_summary(latencies)}


def _producer(spec: Json) -> Any:
    from confluent_kafka import Producer

    return Producer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "acks": "all",
            "enable.idempotence": False,  # as the gateway's plain produce
            "max.in.flight.requests.per.connection": 1,
            "batch.num.messages": BATCH,
            # no batch leaves before it holds 100 records; flush sends it at once
            "linger.ms": 1000,
            "compression.type": "none",
            "log_level": NATIVE_LOG_LEVEL,
        }
    )


def _native_produce(spec: Json, meter: Meter) -> Json:
    pool = _values(1, 997)
    p = _producer(spec)
    topic = spec["topic"]
    delivered: list[int] = []
    errors: list[Any] = []

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            delivered.append(msg.offset())

    def request(i: int) -> list[int]:
        delivered.clear()
        for k in range(BATCH):
            p.produce(topic, pool[(i + k) % len(pool)], partition=0, on_delivery=on_delivery)
        left = p.flush(60)
        if left or errors:
            raise u.Broken(f"{left} records not delivered, errors {errors[:3]}")
        return sorted(delivered)

    latencies: list[float] = []
    sent = requests = 0
    last = -1
    for i in range(WARMUP_REQUESTS):
        last = request(i)[-1]
    stop = time.monotonic() + spec["seconds"]
    meter.begin()
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        got = request(sent)
        latencies.append((time.perf_counter() - t0) * 1000.0)
        if len(got) != BATCH or not contiguous(got, last):
            raise u.Broken(f"the producer delivered offsets {got[:3]}… after {last}")
        last = got[-1]
        sent += BATCH
        requests += 1
    meter.end()
    return {**meter.report(sent), "requests": requests, "request_ms": h.latency_summary(latencies)}


def _native_fill(spec: Json, meter: Meter) -> Json:
    """Pre-fill a topic as fast as the native producer goes (not measured)."""
    from confluent_kafka import Producer

    pool = _values(2, 997)
    p = Producer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "acks": "all",
            # batches of 100, as the producers above write them: a share fetch acquires whole
            # batches, so larger ones would hand the native consumer more than 100 a poll
            "batch.num.messages": BATCH,
            "linger.ms": 20,
            "log_level": NATIVE_LOG_LEVEL,
        }
    )
    errors: list[Any] = []

    def on_delivery(err: Any, _msg: Any) -> None:
        if err is not None:
            errors.append(err)

    for i in range(spec["records"]):
        while True:
            try:
                p.produce(spec["topic"], pool[i % len(pool)], partition=0, on_delivery=on_delivery)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(120)
    if left or errors:
        raise u.Broken(f"filling: {left} records not delivered, errors {errors[:3]}")
    return {"records": spec["records"]}


async def _gateway_share(spec: Json, meter: Meter) -> Json:
    group, topic, total = spec["group"], spec["topic"], spec["records"]
    as_batches = spec["form"] == "gateway-batches"
    piggyback = spec["form"] in ("gateway-piggyback", "gateway-batches")
    accepted: set[int] = set()
    fetch_ms: list[float] = []
    ack_ms: list[float] = []
    counts = {"fetches": 0, "empty_fetches": 0, "acknowledges": 0, "largest_poll": 0}
    measured = 0

    def applied(acks: list[Json]) -> int:
        n = 0
        for a in acks:
            for o in range(a["first_offset"], a["last_offset"] + 1):
                if o in accepted:
                    raise u.Broken(f"offset {o} accepted twice")
                accepted.add(o)
                n += 1
        return n

    async with u._client(spec) as c:
        joined = await u._ok(
            c,
            f"/v1/share-groups/{group}/heartbeat",
            {"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
        )
        member = joined["member_id"]
        pending: list[Json] = []
        started = False
        give_up = time.monotonic() + spec["max_seconds"]
        stop = 0.0
        while True:
            now = time.monotonic()
            if started and (now >= stop or len(accepted) >= total):
                break
            if not started and now > give_up:
                raise u.Broken("the gateway's share fetch gave no record in time")
            body: Json = {
                "member_id": member,
                "max_records": BATCH,
                "acquire_mode": "record_limit",
                "max_wait_ms": 0 if pending else 200,
            }
            body.update({"format": "batches"} if as_batches else {"encoding": "base64"})
            if pending:
                body["acknowledgements"] = pending
            t0 = time.perf_counter()
            if as_batches:
                got = await _fetch_batches(c, f"/v1/share-groups/{group}/fetch", body)
            else:
                got = await u._ok(c, f"/v1/share-groups/{group}/fetch", body)
            took = (time.perf_counter() - t0) * 1000.0
            if pending:
                if got.get("acknowledgement_errors"):
                    raise u.Broken(f"piggy-backed acks refused: {got['acknowledgement_errors']}")
                measured += applied(pending)
                pending = []
            records, acquired = got["records"], got["acquired"]
            if started:
                counts["fetches"] += 1
            if not records:
                counts["empty_fetches"] += started
                continue
            if started:
                fetch_ms.append(took)
                counts["largest_poll"] = max(counts["largest_poll"], len(records))
            if len(records) > BATCH or len(records) != u.range_records(acquired):
                raise u.Broken(f"{len(records)} records for {u.range_records(acquired)} acquired")
            if not as_batches:
                u._decoded(records)
            acks = u.acknowledgements(acquired)
            if piggyback:
                pending = acks
            else:
                t0 = time.perf_counter()
                answer = await u._ok(
                    c,
                    f"/v1/share-groups/{group}/acknowledge",
                    {"member_id": member, "acknowledgements": acks},
                )
                errors = [r["error"] for r in answer["results"] if r["error"] is not None]
                if not answer["results"] or errors:
                    raise u.Broken(f"acknowledge refused: {errors or answer}")
                n = applied(acks)
                if started:
                    ack_ms.append((time.perf_counter() - t0) * 1000.0)
                    counts["acknowledges"] += 1
                    measured += n
            if not started:
                # the first batch (the join and assignment) is the warm-up
                started = True
                stop = time.monotonic() + spec["seconds"]
                if piggyback:
                    applied(pending)
                    pending = []
                    await u._ok(
                        c,
                        f"/v1/share-groups/{group}/acknowledge",
                        {"member_id": member, "acknowledgements": acks},
                    )
                meter.begin()
        if pending:  # acknowledged before the clock stops, as every other record
            answer = await u._ok(
                c,
                f"/v1/share-groups/{group}/acknowledge",
                {"member_id": member, "acknowledgements": pending},
            )
            measured += applied(pending)
        meter.end()
        await c.post(
            f"/v1/share-groups/{group}/heartbeat",
            content=orjson.dumps(
                {"member_id": member, "member_epoch": -1, "subscribed_topics": [topic]}
            ),
            headers={"content-type": "application/json"},
        )
    return {
        **meter.report(measured),
        **counts,
        "records_per_fetch": round(
            measured / max(1, counts["fetches"] - counts["empty_fetches"]), 1
        ),
        "fetch_ms": h.latency_summary(fetch_ms),
        "ack_ms": h.latency_summary(ack_ms),
    }


async def _fetch_batches(c: httpx.AsyncClient, path: str, body: Json) -> Json:
    """A share fetch answered with record batches, read as the Python client reads one: the
    records inside the acquired ranges, each value checked; shaped as the JSON answer's parts
    the loop looks at (the records, the acquired ranges, the acknowledgement errors)."""
    from sluice._codec import open_envelope
    from sluice.consumer import records_of

    r = await c.post(path, content=orjson.dumps(body), headers={"content-type": "application/json"})
    if r.status_code != 200:
        raise u.Broken(f"POST {path} answered {r.status_code}: {r.text[:300]}")
    envelope = open_envelope(r.content)
    records = records_of(envelope)
    if any(rec.value is None or len(rec.value) != u.VALUE_BYTES for rec in records):
        raise u.Broken("a value came back with the wrong length")
    head = envelope.head
    acquired = [
        {"topic": p["topic"], "partition": p["partition"], **a}
        for p in head["partitions"]
        for a in p["acquired"]
    ]
    return {
        "records": records,
        "acquired": acquired,
        "acknowledgement_errors": head.get("acknowledgement_errors"),
    }


def _native_share(spec: Json, meter: Meter) -> Json:
    from confluent_kafka import AcknowledgeType, ShareConsumer

    c = ShareConsumer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "group.id": spec["group"],
            "share.acknowledgement.mode": "explicit",
            "max.poll.records": BATCH,
            "log_level": NATIVE_LOG_LEVEL,
        }
    )
    accepted: set[int] = set()
    poll_ms: list[float] = []
    commit_ms: list[float] = []
    counts = {"fetches": 0, "empty_fetches": 0, "acknowledges": 0, "largest_poll": 0}
    measured = 0
    total = spec["records"]
    try:
        c.subscribe([spec["topic"]])
        started = False
        give_up = time.monotonic() + spec["max_seconds"]
        stop = 0.0
        while True:
            now = time.monotonic()
            if started and (now >= stop or len(accepted) >= total):
                break
            if not started and now > give_up:
                raise u.Broken("the share consumer gave no record in time")
            t0 = time.perf_counter()
            messages = c.poll(0.2)
            took = (time.perf_counter() - t0) * 1000.0
            if started:
                counts["fetches"] += 1
            if not messages:
                counts["empty_fetches"] += started
                continue
            offsets = []
            for m in messages:
                value, offset = m.value(), m.offset()
                if m.error() is not None or offset is None:
                    raise u.Broken(f"share poll: {m.error()}")
                if value is None or len(value) != VALUE_BYTES:
                    raise u.Broken("a value came back with the wrong length")
                if offset in accepted:
                    raise u.Broken(f"offset {offset} delivered again after it was accepted")
                c.acknowledge(m, AcknowledgeType.ACCEPT)
                offsets.append(offset)
            t1 = time.perf_counter()
            for partition, error in c.commit_sync(60).items():
                if error is not None:
                    raise u.Broken(f"acknowledgements of {partition} refused: {error}")
            accepted.update(offsets)
            if started:
                poll_ms.append(took)
                commit_ms.append((time.perf_counter() - t1) * 1000.0)
                counts["acknowledges"] += 1
                counts["largest_poll"] = max(counts["largest_poll"], len(messages))
                measured += len(messages)
            else:
                started = True
                stop = time.monotonic() + spec["seconds"]
                meter.begin()
        meter.end()
    finally:
        c.close()
    return {
        **meter.report(measured),
        **counts,
        "records_per_fetch": round(measured / max(1, counts["acknowledges"]), 1),
        "fetch_ms": h.latency_summary(poll_ms),
        "ack_ms": h.latency_summary(commit_ms),
    }


ASYNC_WORKLOADS = {"gateway_produce": _gateway_produce, "gateway_share": _gateway_share}
SYNC_WORKLOADS = {
    "native_produce": _native_produce,
    "native_share": _native_share,
    "native_fill": _native_fill,
}


def client_main(spec: Json) -> Json:
    meter = Meter(spec["server_pid"], spec["broker_pids"])
    try:
        if spec["workload"] in SYNC_WORKLOADS:
            return SYNC_WORKLOADS[spec["workload"]](spec, meter)
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result: Json = runner.run(ASYNC_WORKLOADS[spec["workload"]](spec, meter))
            return result
    except (u.Broken, httpx.HTTPError, OSError, KeyError, ValueError, TypeError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    except Exception as exc:  # the native client's KafkaException and the like
        return {"error": f"{type(exc).__name__}: {exc}"}


# -- the parent side --------------------------------------------------------------------------


class Cluster:
    """What the parent knows of the cluster: its bootstrap, brokers and their local pids."""

    def __init__(self, bootstrap: str) -> None:
        from confluent_kafka.admin import AdminClient

        self.bootstrap = bootstrap
        admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": NATIVE_LOG_LEVEL})
        self.brokers = len(admin.list_topics(timeout=30).brokers)
        self.pids = broker_pids(h.REPO_ROOT / "kafka" / "run", bootstrap)


def default_bootstrap() -> str:
    done = subprocess.run(
        ["bash", str(h.REPO_ROOT / "kafka" / "cluster.sh"), "status"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    bootstrap = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0 or not bootstrap:
        raise h.BenchError("no cluster runs from kafka/run: start one (make kafka) or --bootstrap")
    return bootstrap


def gateway_server(args: argparse.Namespace, cluster: Cluster, wd: h.Workdir) -> h.ServerProcess:
    port = h.free_port()
    env = dict(os.environ)
    env.update(
        {
            "SLUICE_BACKEND": "kafka",
            "SLUICE_KAFKA_BOOTSTRAP": cluster.bootstrap,
            "SLUICE_LOG_LEVEL": "warning",
        }
    )
    argv = [
        *(h.server_python(args) or [sys.executable]),
        *("-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)),
    ]
    return h.ServerProcess(argv, port=port, log_path=wd.log("gateway"), name="gateway", env=env)


def floor_app(kind: str, bootstrap: str, topic: str) -> Any:
    """The ASGI callable of a floor server: ``floor-http`` answers a produce of batches with
    offsets it counts; ``floor-kafka`` sends the body to the partition's leader in one
    ProduceRequest (``app.kafka``'s connection, as the gateway does) and answers its offset.
    Anything else (the readiness probe) is answered ``{}``."""
    from app.kafka.cluster import Cluster as KafkaCluster
    from app.kafka.connection import BrokerConnection
    from app.kafka.protocol.messages import ProduceRequest
    from app.storage.record import read_header

    state: dict[str, Any] = {"next": 0}

    async def produce(body: bytes) -> int:
        conn: BrokerConnection = state["conn"]
        data = ProduceRequest.PartitionProduceData(index=0, records=body)
        answer = await conn.send(
            ProduceRequest(
                transactional_id=None,
                acks=-1,
                timeout_ms=30_000,
                topic_data=[
                    ProduceRequest.TopicProduceData(
                        name=topic, topic_id=state["topic_id"], partition_data=[data]
                    )
                ],
            )
        )
        part = answer.responses[0].partition_responses[0]
        if part.error_code:
            raise RuntimeError(f"the broker refused the batch: error {part.error_code}")
        return int(part.base_offset)

    async def app(scope: Json, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                if kind == "floor-kafka":
                    cluster = KafkaCluster(bootstrap, client_id="floor")
                    await cluster.start()
                    info, p = await cluster.leader(topic, 0)
                    state["conn"] = await cluster.connection(p.leader_id)
                    state["topic_id"] = info.topic_id
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["method"] != "POST":
            answer = b"{}"
        else:
            if kind == "floor-kafka":
                base = await produce(body)
            else:
                base = state["next"]
                state["next"] += read_header(body).record_count
            b = {"topic": topic, "partition": 0, "base_offset": base, "error": None}
            answer = orjson.dumps({"batches": [b]})
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return app


def floor_main(port: int, kind: str, bootstrap: str, topic: str) -> int:
    import uvicorn

    uvicorn.run(
        floor_app(kind, bootstrap, topic),
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        lifespan="on",
        proxy_headers=False,
        server_header=False,
    )
    return 0


def floor_server(gateway: h.ServerProcess, cluster: Cluster, kind: str, topic: str) -> Any:
    port = h.free_port()
    argv = [sys.executable, "-m", "benchmarks.gateway", "--floor-server", str(port), kind]
    argv += [cluster.bootstrap, topic]
    log = gateway.log_path.with_name(f"{kind}.log")
    # uvicorn.run raises the stop signal again once it has stopped: it ends by SIGTERM
    stopped = (0, -signal.SIGTERM)
    return h.ServerProcess(argv, port=port, log_path=log, name=kind, clean_exit_codes=stopped)


def run_client(server: h.ServerProcess, cluster: Cluster, spec: Json) -> Json:
    spec = {
        **spec,
        "url": server.base_url,
        "server_pid": server.pid,
        "broker_pids": cluster.pids,
        "bootstrap": cluster.bootstrap,
    }
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.gateway",
                "--client-spec",
                orjson.dumps(spec).decode(),
            ],
            cwd=h.REPO_ROOT,
            capture_output=True,
            timeout=spec["max_seconds"] + spec.get("seconds", 0) + 120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise h.BenchError(f"the {spec['workload']} client did not finish in time") from None
    server.check_alive()
    if not out.stdout.strip():
        raise h.BenchError(f"client failed: {out.stderr.decode(errors='replace')[-2000:]}")
    result: Json = orjson.loads(out.stdout)
    if "error" in result:
        raise h.BenchError(f"{spec['workload']} {spec.get('form', '')}: {result['error']}")
    return result


def _py_spy() -> str | None:
    path = Path(sys.executable).parent / "py-spy"
    return str(path) if path.exists() else shutil.which("py-spy")


class Profile:
    """py-spy sampling the gateway for ``seconds`` into ``path`` (collapsed stacks)."""

    def __init__(self, pid: int, path: Path, seconds: float) -> None:
        spy = _py_spy()
        if spy is None:
            raise h.BenchError("--profile needs py-spy, which is not installed")
        argv = [spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250"]
        argv += ["--nonblocking", "--duration", str(int(seconds)), "-o", str(path)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def wait(self) -> None:
        try:
            self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _topic(server: h.ServerProcess, kind: str) -> str:
    name = f"bench-{kind}-{uuid.uuid4().hex[:8]}"
    h.create_topic(server, name, 1)
    return name


def _delete_topic(server: h.ServerProcess, name: str) -> None:
    httpx.delete(f"{server.base_url}/v1/topics/{name}", timeout=60)


def _log_form(kind: str, form: str, r: Json) -> None:
    latency = r["request_ms"] if "request_ms" in r else r["fetch_ms"]
    h.log(
        f"  {kind} {form}: {r['records_per_s']:,} records/s, {latency['mean']} ms a request, "
        f"gateway {r['gateway_us_per_record']} µs a record, "
        f"brokers {r['broker_us_per_record']} µs a record"
        + (f", {r['records_per_fetch']} records a fetch" if "records_per_fetch" in r else "")
    )


def run_produce(
    args: argparse.Namespace,
    server: h.ServerProcess,
    cluster: Cluster,
    profile: Path | None,
    pinned: Pinned | None = None,
) -> Json:
    out: Json = {}
    if args.floor:
        for kind in FLOOR_FORMS:
            topic = _topic(server, "floor")
            with floor_server(server, cluster, kind, topic) as floor:
                floor.wait_ready(120, path="/")
                if pinned is not None:
                    pinned.own_core(floor.pid)
                spec = {"workload": "gateway_produce", "form": "gateway-batch", "topic": topic}
                spec |= {"seconds": args.seconds, "max_seconds": args.max_seconds}
                out[kind] = run_client(floor, cluster, spec)
                floor.stop()
            _log_form("produce", kind, out[kind])
            _delete_topic(server, topic)
    warmup = _topic(server, "warmup")
    for form in PRODUCE_FORMS:
        topic = _topic(server, "produce")
        spy = None
        if profile is not None and form != "native":
            spy = Profile(server.pid, profile / f"produce-{form}.txt", args.seconds + 2)
        workload = "native_produce" if form == "native" else "gateway_produce"
        spec = {"workload": workload, "form": form, "topic": topic, "warmup_topic": warmup}
        out[form] = run_client(
            server, cluster, {**spec, "seconds": args.seconds, "max_seconds": args.max_seconds}
        )
        if spy is not None:
            spy.wait()
            out[form]["profiled"] = True
        hw = h.high_watermarks(server, topic)
        if hw[0] < out[form]["records"]:
            raise h.BenchError(
                f"produce {form}: {topic} holds {hw} records of {out[form]['records']}"
            )
        _log_form("produce", form, out[form])
        _delete_topic(server, topic)
    _delete_topic(server, warmup)
    out["gateway_json_to_native"] = _ratio(out, "gateway-json", "native")
    out["gateway_batch_to_native"] = _ratio(out, "gateway-batch", "native")
    parts = split_cost(
        *(
            (out[f]["gateway_cpu_s"], out[f]["requests"], out[f]["records"])
            for f in ("gateway-batch", "gateway-batch-1000")
        )
    )
    if parts is not None:
        out["gateway_batch_us_per_request"], out["gateway_batch_us_per_record"] = parts
        h.log(f"  produce batches: gateway {parts[0]} µs a request + {parts[1]} µs a record")
    return out


def _ratio(out: Json, a: str, b: str) -> float:
    (r,) = u.ratios([out[a]["records_per_s"]], [out[b]["records_per_s"]])
    return r


def run_share(
    args: argparse.Namespace, server: h.ServerProcess, cluster: Cluster, profile: Path | None
) -> Json:
    out: Json = {}
    for form in SHARE_FORMS:
        topic = _topic(server, "share")
        group = f"{topic}-group"
        base = {"seconds": args.seconds, "max_seconds": args.max_seconds, "topic": topic}
        run_client(
            server, cluster, {**base, "workload": "native_fill", "records": args.share_records}
        )
        r = httpx.patch(
            f"{server.base_url}/v1/share-groups/{group}/config",
            json={"auto_offset_reset": "earliest"},
            timeout=60,
        )
        if r.status_code != 200:
            raise h.BenchError(f"configuring {group} answered {r.status_code}: {r.text[:200]}")
        spy = None
        if profile is not None and form != "native":
            # started with the client: the first seconds are its warm-up, a join and a fetch
            spy = Profile(server.pid, profile / f"share-{form}.txt", args.seconds + 2)
        workload = "native_share" if form == "native" else "gateway_share"
        spec = {**base, "workload": workload, "form": form, "group": group}
        out[form] = run_client(server, cluster, {**spec, "records": args.share_records})
        if spy is not None:
            spy.wait()
            out[form]["profiled"] = True
        _log_form("share", form, out[form])
        _delete_topic(server, topic)
    out["gateway_to_native"] = _ratio(out, "gateway", "native")
    out["gateway_piggyback_to_native"] = _ratio(out, "gateway-piggyback", "native")
    out["gateway_batches_to_native"] = _ratio(out, "gateway-batches", "native")
    return out


def summarise(raw: dict[str, list[Json]]) -> Json:
    s: Json = {"targets": []}

    def sp(key: str, runs: list[Json], path: str) -> Json:
        s[key] = h.spread([v for r in runs if (v := u._at(r, path)) is not None])
        spread: Json = s[key]
        return spread

    kinds: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("produce", PRODUCE_FORMS),
        ("share", SHARE_FORMS),
    )
    for kind, forms in kinds:
        runs = raw.get(kind)
        if not runs:
            continue
        if kind == "produce":
            forms = forms + tuple(f for f in FLOOR_FORMS if f in runs[0])
        for form in forms:
            key = f"{kind}_{form.replace('-', '_')}"
            sp(f"{key}_records_per_s", runs, f"{form}.records_per_s")
            latency = "request_ms" if kind == "produce" else "fetch_ms"
            sp(f"{key}_{latency}_mean", runs, f"{form}.{latency}.mean")
            sp(f"{key}_broker_us_per_record", runs, f"{form}.broker_us_per_record")
            sp(f"{key}_client_cpu", runs, f"{form}.client_cpu")
            sp(f"{key}_gateway_system_share", runs, f"{form}.gateway_system_share")
            cpu = sp(f"{key}_gateway_us_per_record", runs, f"{form}.gateway_us_per_record")
            if form != "native" and form not in PER_REQUEST and form not in FLOOR_FORMS:
                t = h.target(
                    f"gateway {kind} {form}: its CPU a record",
                    cpu,
                    TARGET_US,
                    "µs",
                    higher_is_better=False,
                )
                s["targets"].append(t)
        for ratio in [k for k in runs[0] if k.endswith("_to_native")]:
            sp(f"{kind}_{ratio}", runs, ratio)
        for part in ("gateway_batch_us_per_request", "gateway_batch_us_per_record"):
            if part in runs[0]:
                sp(f"{kind}_{part}", runs, part)
    return s


def pin(pid: int, cores: set[int]) -> None:
    """Every thread of process ``pid`` onto ``cores`` (threads it starts later inherit it)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task.name), cores)


class Pinned:
    """``--pin``: the gateway on a core of its own (the last one this process may use), this
    process, the clients it starts and the local brokers on the others, for the duration; the
    brokers are given every core back at the end."""

    def __init__(self, cluster: Cluster) -> None:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) < 2:
            raise h.BenchError("--pin needs two cores or more")
        self.all, self.gateway, self.others = set(cores), {cores[-1]}, set(cores[:-1])
        self.brokers = cluster.pids
        if not self.brokers:
            raise h.BenchError("--pin needs the brokers on this machine (make kafka)")

    def __enter__(self) -> Pinned:
        os.sched_setaffinity(0, self.others)
        for b in self.brokers:
            pin(b, self.others)
        return self

    def own_core(self, pid: int) -> None:
        """The gateway's core for ``pid``: the gateway's, or a floor server's in its place."""
        pin(pid, self.gateway)

    def __exit__(self, *exc: object) -> None:
        for b in self.brokers:
            with contextlib.suppress(OSError):
                pin(b, self.all)
        os.sched_setaffinity(0, self.all)


def run(args: argparse.Namespace) -> Json:
    if args.quick:
        args.runs = 1
        args.seconds = min(args.seconds, 2.0)
        args.share_records = min(args.share_records, 5_000)
    git = h.git_info()
    cluster = Cluster(args.bootstrap or default_bootstrap())
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    busy: list[float] = []
    load: list[Json] = []
    raw: dict[str, list[Json]] = {w: [] for w in args.only}
    pinned = Pinned(cluster) if args.pin else None
    with pinned or contextlib.nullcontext():
        for i in h.iter_runs(args, busy):
            h.log(f"[gateway] run {i}/{args.runs}, {cluster.brokers} broker(s)")
            before = os.getloadavg()
            with (
                h.Workdir("gateway", args.tmp, args.keep) as wd,
                gateway_server(args, cluster, wd) as gw,
            ):
                gw.wait_ready(120)
                if pinned is not None:
                    pinned.own_core(gw.pid)
                profile = args.profile if i == 1 else None
                if "produce" in raw:
                    raw["produce"].append(run_produce(args, gw, cluster, profile, pinned))
                if "share" in raw:
                    raw["share"].append(run_share(args, gw, cluster, profile))
                gw.stop()
            load.append(
                {
                    "before": [round(x, 2) for x in before],
                    "after": [round(x, 2) for x in os.getloadavg()],
                }
            )
    summary = summarise(raw)
    summary["other_busy_cores_before_runs"] = busy
    summary["load_average"] = load
    summary["brokers"] = cluster.brokers
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep", "profile")}
    params |= {"brokers": cluster.brokers, "records_per_request": BATCH, "value_bytes": VALUE_BYTES}
    params["profiled"] = args.profile is not None
    if pinned is not None:
        params["cores"] = {"gateway": sorted(pinned.gateway), "others": sorted(pinned.others)}
    suffix = f"-brokers-{cluster.brokers}" + ("-pinned" if pinned is not None else "")
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out, git, suffix)
    h.print_targets(f"gateway on {cluster.brokers} broker(s) ({path})", summary["targets"])
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument(
        "--bootstrap",
        "--brokers-bootstrap",
        default=None,
        help="the cluster's bootstrap list (default: the cluster make kafka runs)",
    )
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also run the batch produce against two floor servers (the HTTP stack alone; it "
        "and one Produce over the gateway's broker connection), before the gateway's forms",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the gateway on a core of its own, the clients and the local brokers on the others "
        "(its CPU a record without the cost of sharing a core with them)",
    )
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="timed phase of each form (default 20)"
    )
    parser.add_argument(
        "--share-records",
        type=int,
        default=300_000,
        help="records pre-filled for each share form (default 300,000)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=120.0, help="time limit of each warm-up"
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="DIR",
        help="sample the gateway with py-spy during the first run's gateway forms",
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--client-spec"]:
        result = client_main(orjson.loads(argv[1]))
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
        return 1 if "error" in result else 0
    if argv[:1] == ["--floor-server"]:
        port, kind, bootstrap, topic = argv[1:5]
        return floor_main(int(port), kind, bootstrap, topic)
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
