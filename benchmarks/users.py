"""Workloads measured the way users measure: an application's own asyncio HTTP client.

Every workload but P32 is driven by ``httpx.AsyncClient`` on uvloop with keep-alive, one
client (one connection) per producer, consumer or worker, bodies encoded with orjson and sent
as ``content=``, values of 256 random bytes sent and read base64-encoded (``"encoding":
"base64"``), 100 records per request. The client runs in its own process (``--client-spec``,
like the load generator), measures its own CPU and the server's from /proc over the timed phase,
and checks every answer (status, counts, offsets, per-item errors), so a broken server cannot
look fast. Each workload starts a fresh ``python -m app serve`` on a fresh data dir
(fsync=always).

- **W1** one producer, requests one after another: ``--w1-records`` (100,000) records to a
  1-partition topic, 100 a request, each request sent when the previous answered. Records/s,
  ms per request (mean, p50, p99), server CPU µs per record. Targets: ≤ 1.5 ms per request,
  ≥ 65,000 records/s, ≤ 10 µs per record.
- **W2** 4 consumers: ``--w2-records`` (200,000) records pre-filled on 4 partitions, one share
  group; each consumer (own connection, own member) loops fetch (``max_records`` 100,
  ``"acquire_mode": "record_limit"``) → acknowledge exactly the acquired ranges (accept).
  Records/s, fetch and acknowledge p50/p99 (fetches that acquired something), server CPU µs per
  record. Targets: ≥ 70,000 records/s, acknowledge p99 ≤ 10 ms, ≤ 10 µs per record.
- **W2-WS** the same as W2 over WebSocket push (``/v1/share-groups/{g}/consume``): 4 consumers,
  each its own socket and member, a credit window of 100, every ``records`` frame acknowledged
  on the socket (its acquired ranges, accept) as soon as it is decoded. Records/s, the time from
  an ``ack`` frame to its ``ack_result`` (p50/p99), server CPU µs per record, and the ratio to
  W2 over HTTP of the same run. Targets: ≥ 1.5× W2, ≥ 80,000 records/s, ack p99 ≤ 10 ms.
- **W1-DASH** W1 again with 50 dashboards connected to ``/v1/events`` (another process, each
  socket read as a browser reads it), against W1 of the same run; and the server's RSS before
  and after the 50 sockets connect, with no traffic (idle dashboards). Targets: W1 drops by
  ≤ 10 %, RSS grows by ≤ 20 MB.
- **W3** release once: ``--w3-records`` (10,000) records on 1 partition, one consumer that
  releases every record delivered for the first time and accepts it when it comes back. Time
  from the first fetch until all are accepted, loss (must be 0), redeliveries (must equal the
  records). Two forms: *piggy-backed* (each fetch carries the acknowledgements of the previous
  one: one request per batch, the fewest the API allows) and *plain* (fetch, then acknowledge).
  Target (piggy-backed): ≤ 0.4 s.
- **P32** produce under 32 connections to 1 partition, 100 base64 records a request, loaded by
  the minimal load generator of ``_loadgen`` (cheap, like a load tool), against the parse-only
  ceiling (``raw_ceiling``: orjson parse plus a base64 decode of every value) in the same run;
  the ratio Sluice ÷ ceiling is taken run by run. Target ≥ 0.6.
- **W4** consume-transform-produce from a share group, 8 workers (each its own transactional
  id and member): ``--w4-records`` (80,000) input records on 4 partitions; a worker fetches up
  to 100 (record_limit), writes the 100 transformed values (bytes reversed) to its partition of an
  8-partition output topic with sequences tracked per partition and epoch, and commits with the
  share acknowledgements of the fetched ranges. *Multi-step*: ``POST /v1/produce`` →
  ``POST /v1/transactions/{tid}/acknowledgements`` → ``POST /v1/transactions/{tid}/commit``.
  *One-request*: everything in the commit body (``batches``, ``group_offsets``,
  ``share_acknowledgements``); a server without it (400, or an answer without ``batches``) is
  reported as not supporting it. After each form the output topic read read_committed must hold
  exactly the records consumed, and the group must have no lag. Targets: one-request ≥ 1,000
  transactions/s with commit p99 ≤ 25 ms; multi-step ≥ 500 transactions/s.

    python -m benchmarks.users [--runs 3] [--quick] [--only w1 w1dash w2 w2ws w3 p32 w4]

Results go to ``benchmarks/results/users-<commit>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpx
import orjson
from websockets.exceptions import WebSocketException

from benchmarks import _harness as h
from benchmarks._loadgen import process_cpu_seconds

NAME = "users"
BATCH = 100
VALUE_BYTES = 256
W2_PARTITIONS = 4
W4_WORKERS = 8
W4_IN_PARTITIONS = 4
W4_OUT_PARTITIONS = 8
WORKLOADS = ("w1", "w1dash", "w2", "w2ws", "w3", "p32", "w4")
DASHBOARDS = 50
WS_CREDITS = 100
NOT_SUPPORTED = "not supported by this server"

Json = dict[str, Any]


class Broken(Exception):
    """The server answered something a correct server would not."""


# -- pure parts (unit-tested) -----------------------------------------------------------------


def acknowledgements(acquired: Iterable[Json], *, release_first: bool = False) -> list[Json]:
    """Acknowledgements for exactly the ``acquired`` ranges of a fetch answer.

    Every range is accepted, except with ``release_first``, where a range delivered for the first
    time (``delivery_count`` 1) is released so that it comes back. Each range keeps its
    ``delivery_count``, so a record redelivered meanwhile refuses the acknowledgement. Ranges are
    sorted per partition, as the API requires.
    """
    out = []
    for a in sorted(acquired, key=lambda a: (a["topic"], a["partition"], a["first_offset"])):
        kind = "release" if release_first and a["delivery_count"] == 1 else "accept"
        out.append(
            {
                "topic": a["topic"],
                "partition": a["partition"],
                "first_offset": a["first_offset"],
                "last_offset": a["last_offset"],
                "type": kind,
                "delivery_count": a["delivery_count"],
            }
        )
    return out


def range_records(ranges: Iterable[Json]) -> int:
    """Records covered by ``first_offset``..``last_offset`` ranges."""
    return sum(r["last_offset"] - r["first_offset"] + 1 for r in ranges)


class Sequences:
    """A producer's next ``base_sequence`` per partition; every new epoch starts again at 0."""

    def __init__(self) -> None:
        self._epoch: int | None = None
        self._next: dict[tuple[str, int], int] = {}

    def take(self, topic: str, partition: int, count: int, epoch: int) -> int:
        if epoch != self._epoch:
            self._epoch, self._next = epoch, {}
        base = self._next.get((topic, partition), 0)
        self._next[(topic, partition)] = (base + count) % 2**31
        return base


def per_record_us(cpu_seconds: float, records: int) -> float | None:
    """CPU microseconds per record, or None when nothing was counted."""
    return round(cpu_seconds * 1e6 / records, 2) if records > 0 else None


def ratios(numerators: Iterable[float], denominators: Iterable[float]) -> list[float]:
    """Run-by-run ratios (same run, same position); a zero denominator gives 0."""
    return [round(a / b, 4) if b else 0.0 for a, b in zip(numerators, denominators, strict=True)]


# -- the client process -----------------------------------------------------------------------


class Meter:
    """Wall time, own CPU and the server's CPU over the timed phase."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.t0 = self.t1 = 0.0
        self.own0 = self.own1 = self.srv0 = self.srv1 = 0.0

    @staticmethod
    def _own() -> float:
        u = resource.getrusage(resource.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime

    def begin(self) -> None:
        self.own0, self.srv0 = self._own(), process_cpu_seconds(self.server_pid)
        self.t0 = time.perf_counter()

    def end(self) -> None:
        self.t1 = time.perf_counter()
        self.own1, self.srv1 = self._own(), process_cpu_seconds(self.server_pid)

    def report(self, records: int, transactions: int = 0) -> Json:
        elapsed = self.t1 - self.t0
        server = self.srv1 - self.srv0
        out = {
            "records": records,
            "seconds": round(elapsed, 4),
            "records_per_s": round(records / elapsed, 1) if elapsed > 0 else 0.0,
            "server_cpu_s": round(server, 4),
            # CPU seconds per wall second: 1.0 is one core busy
            "server_cpu": round(server / elapsed, 3) if elapsed > 0 else None,
            "client_cpu": round((self.own1 - self.own0) / elapsed, 3) if elapsed > 0 else None,
            "server_us_per_record": per_record_us(server, records),
        }
        if transactions:
            out["transactions"] = transactions
            out["transactions_per_s"] = round(transactions / elapsed, 1) if elapsed > 0 else 0.0
            out["server_us_per_transaction"] = per_record_us(server, transactions)
        return out


def _client(spec: Json) -> httpx.AsyncClient:
    """One keep-alive connection, as one producer, consumer or worker of a service holds."""
    return httpx.AsyncClient(
        base_url=spec["url"],
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
        timeout=httpx.Timeout(60.0),
    )


async def _post(client: httpx.AsyncClient, path: str, body: Json) -> tuple[int, Json]:
    r = await client.post(
        path, content=orjson.dumps(body), headers={"content-type": "application/json"}
    )
    answer: Json = orjson.loads(r.content) if r.content else {}
    return r.status_code, answer


async def _ok(client: httpx.AsyncClient, path: str, body: Json) -> Json:
    status, answer = await _post(client, path, body)
    if status != 200:
        raise Broken(f"POST {path} answered {status}: {str(answer)[:300]}")
    return answer


def _values(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    return [rng.randbytes(VALUE_BYTES) for _ in range(count)]


def _decoded(records: list[Json]) -> list[bytes]:
    """What a consumer does first: the values back as bytes (each must be 256 bytes)."""
    out = [base64.b64decode(r["value"]) for r in records]
    if any(len(v) != VALUE_BYTES for v in out):
        raise Broken("a value came back with the wrong length")
    return out


async def _w1(spec: Json, meter: Meter) -> Json:
    pool = _values(1, 997)
    total, topic = spec["records"], spec["topic"]
    deadline = time.monotonic() + spec["max_seconds"]
    latencies: list[float] = []
    sent = requests = 0
    last = -1
    timed_out = False

    def body(i: int, n: int) -> Json:
        return {
            "encoding": "base64",
            "records": [
                {"value": base64.b64encode(pool[(i + k) % len(pool)]).decode()} for k in range(n)
            ],
        }

    async with _client(spec) as c:
        for i in range(spec["warmup_requests"]):
            await _ok(c, f"/v1/topics/{spec['warmup_topic']}/records", body(i, BATCH))
        meter.begin()
        while sent < total:
            if time.monotonic() > deadline:
                timed_out = True
                break
            n = min(BATCH, total - sent)
            content = body(sent, n)
            t0 = time.perf_counter()
            answer = await _ok(c, f"/v1/topics/{topic}/records", content)
            latencies.append((time.perf_counter() - t0) * 1000.0)
            offsets = [o["offset"] for o in answer["offsets"]]
            if len(offsets) != n or offsets != list(range(offsets[0], offsets[0] + n)):
                raise Broken(f"produce answered offsets {offsets[:3]}… for {n} records")
            if offsets[0] <= last:
                raise Broken(f"offset {offsets[0]} after {last}")
            last = offsets[-1]
            sent += n
            requests += 1
        meter.end()
    return {
        **meter.report(sent),
        "requests": requests,
        "request_ms": h.latency_summary(latencies),
        "timed_out": timed_out,
    }


async def _consume(spec: Json, meter: Meter) -> Json:
    """W2 and W3: share consumers that fetch (record_limit) and acknowledge what they acquired."""
    total, group, topic = spec["records"], spec["group"], spec["topic"]
    release_first, piggyback = spec["release_first"], spec["piggyback"]
    deadline = time.monotonic() + spec["max_seconds"]
    accepted: set[tuple[int, int]] = set()
    fetch_ms: list[float] = []
    ack_ms: list[float] = []
    counts = {"fetches": 0, "empty_fetches": 0, "acknowledges": 0}
    counts |= {"releases": 0, "redeliveries": 0, "delivered": 0}
    done = asyncio.Event()
    timed_out = [False]

    def applied(acks: list[Json]) -> None:
        for a in acks:
            span = range(a["first_offset"], a["last_offset"] + 1)
            if a["type"] == "release":
                counts["releases"] += len(span)
                continue
            for o in span:
                if (a["partition"], o) in accepted:
                    raise Broken(f"offset {o} of partition {a['partition']} accepted twice")
                accepted.add((a["partition"], o))
        if len(accepted) >= total and not done.is_set():
            meter.end()  # the moment the last record is accepted
            done.set()

    async def consumer(c: httpx.AsyncClient, member: str) -> None:
        pending: list[Json] = []
        while not done.is_set():
            if time.monotonic() > deadline:
                timed_out[0] = True
                done.set()
                return
            body: Json = {
                "member_id": member,
                "max_records": BATCH,
                "acquire_mode": "record_limit",
                "encoding": "base64",
                "max_wait_ms": 0 if pending else 50,
            }
            if pending:
                body["acknowledgements"] = pending
            t0 = time.perf_counter()
            got = await _ok(c, f"/v1/share-groups/{group}/fetch", body)
            took = (time.perf_counter() - t0) * 1000.0
            counts["fetches"] += 1
            if pending:
                if got.get("acknowledgement_errors"):
                    raise Broken(f"piggy-backed acks refused: {got['acknowledgement_errors']}")
                applied(pending)
                pending = []
            records, acquired = got["records"], got["acquired"]
            if not records:
                counts["empty_fetches"] += 1
                continue
            fetch_ms.append(took)
            if len(records) > BATCH or len(records) != range_records(acquired):
                raise Broken(f"{len(records)} records for {range_records(acquired)} acquired")
            _decoded(records)
            counts["delivered"] += len(records)
            counts["redeliveries"] += sum(1 for r in records if r["delivery_count"] > 1)
            acks = acknowledgements(acquired, release_first=release_first)
            if piggyback:
                pending = acks
                continue
            t0 = time.perf_counter()
            answer = await _ok(
                c,
                f"/v1/share-groups/{group}/acknowledge",
                {"member_id": member, "acknowledgements": acks},
            )
            ack_ms.append((time.perf_counter() - t0) * 1000.0)
            counts["acknowledges"] += 1
            errors = [r["error"] for r in answer["results"] if r["error"] is not None]
            if len(answer["results"]) == 0 or errors:
                raise Broken(f"acknowledge refused: {errors or answer}")
            applied(acks)

    clients = [_client(spec) for _ in range(spec["consumers"])]
    try:
        members = []
        for c in clients:
            joined = await _ok(
                c,
                f"/v1/share-groups/{group}/heartbeat",
                {"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
            )
            members.append(joined["member_id"])
        meter.begin()
        tasks = [asyncio.create_task(consumer(c, m)) for c, m in zip(clients, members, strict=True)]
        waiter = asyncio.create_task(done.wait())
        # consumers end when everything is accepted, on the time limit, or by failing
        await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
        if not meter.t1:
            meter.end()
        failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
        for t in [waiter, *tasks]:
            t.cancel()
        await asyncio.gather(waiter, *tasks, return_exceptions=True)
        if failed:
            exc = failed[0].exception()
            assert exc is not None
            raise exc
    finally:
        for c in clients:
            await c.aclose()
    return {
        **meter.report(len(accepted)),
        **counts,
        "accepted": len(accepted),
        "fetch_ms": h.latency_summary(fetch_ms),
        "ack_ms": h.latency_summary(ack_ms),
        "requests_per_100_records": round(
            (counts["fetches"] + counts["acknowledges"]) * 100 / max(1, len(accepted)), 2
        ),
        "timed_out": timed_out[0],
    }


async def _consume_ws(spec: Json, meter: Meter) -> Json:
    """W2-WS: share consumers over WebSocket push that accept every frame on the socket."""
    from websockets.asyncio.client import connect

    total, group, topic = spec["records"], spec["group"], spec["topic"]
    url = spec["url"].replace("http://", "ws://") + f"/v1/share-groups/{group}/consume"
    deadline = time.monotonic() + spec["max_seconds"]
    accepted: set[tuple[int, int]] = set()
    ack_ms: list[float] = []
    counts = {"frames": 0, "acknowledges": 0, "delivered": 0, "redeliveries": 0}
    done = asyncio.Event()
    ready: list[asyncio.Event] = []
    timed_out = [False]

    async def consumer(go: asyncio.Event) -> None:
        async with connect(url, max_size=64 * h.MiB, compression=None) as ws:
            await ws.send(
                orjson.dumps(
                    {
                        "type": "subscribe",
                        "topics": [topic],
                        "credits": WS_CREDITS,
                        "encoding": "base64",
                    }
                ).decode()
            )
            first = orjson.loads(await ws.recv())
            if first.get("type") != "subscribed":
                raise Broken(f"subscribe answered {first}")
            go.set()
            sent: dict[int, tuple[float, list[Json]]] = {}
            n = 0
            out = 0
            while not done.is_set():
                if time.monotonic() > deadline:
                    timed_out[0] = True
                    done.set()
                    return
                try:
                    frame = orjson.loads(await asyncio.wait_for(ws.recv(), 0.5))
                except TimeoutError:
                    continue
                kind = frame["type"]
                if kind == "records":
                    records, acquired = frame["records"], frame["acquired"]
                    counts["frames"] += 1
                    out += len(records)
                    if out > WS_CREDITS or len(records) != range_records(acquired):
                        raise Broken(f"{out} records out for a window of {WS_CREDITS}")
                    _decoded(records)
                    counts["delivered"] += len(records)
                    counts["redeliveries"] += sum(1 for r in records if r["delivery_count"] > 1)
                    acks = acknowledgements(acquired)
                    n += 1
                    sent[n] = (time.perf_counter(), acks)
                    out -= len(records)  # acknowledged: the window reopens for them
                    await ws.send(
                        orjson.dumps({"type": "ack", "acknowledgements": acks, "id": n}).decode()
                    )
                elif kind == "ack_result":
                    t0, acks = sent.pop(frame["id"])
                    ack_ms.append((time.perf_counter() - t0) * 1000.0)
                    counts["acknowledges"] += 1
                    errors = [r["error"] for r in frame["results"] if r["error"] is not None]
                    if errors or not frame["results"]:
                        raise Broken(f"acknowledge refused: {errors or frame}")
                    for a in acks:
                        for o in range(a["first_offset"], a["last_offset"] + 1):
                            if (a["partition"], o) in accepted:
                                raise Broken(f"offset {o} of {a['partition']} accepted twice")
                            accepted.add((a["partition"], o))
                    if len(accepted) >= total and not done.is_set():
                        meter.end()
                        done.set()
                else:
                    raise Broken(f"unexpected frame {str(frame)[:300]}")

    # every socket subscribes before the clock starts (as the HTTP consumers join first)
    ready = [asyncio.Event() for _ in range(spec["consumers"])]
    tasks = [asyncio.create_task(consumer(go)) for go in ready]
    gates = [asyncio.create_task(go.wait()) for go in ready]
    await asyncio.wait([*gates], timeout=30)
    meter.begin()
    waiter = asyncio.create_task(done.wait())
    await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
    if not meter.t1:
        meter.end()
    failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
    for t in [waiter, *tasks, *gates]:
        t.cancel()
    await asyncio.gather(waiter, *tasks, *gates, return_exceptions=True)
    if failed:
        exc = failed[0].exception()
        assert exc is not None
        raise exc
    return {
        **meter.report(len(accepted)),
        **counts,
        "accepted": len(accepted),
        "ack_ms": h.latency_summary(ack_ms),
        "credits": WS_CREDITS,
        "timed_out": timed_out[0],
    }


async def _w4(spec: Json, meter: Meter) -> Json:
    """Consume-transform-produce, multi-step or in one commit request."""
    total, group, form = spec["records"], spec["group"], spec["form"]
    out_topic, in_topic = spec["out_topic"], spec["topic"]
    deadline = time.monotonic() + spec["max_seconds"]
    consumed: set[tuple[int, int]] = set()
    commit_ms: list[float] = []
    txn_ms: list[float] = []
    state: Json = {"produced": 0, "commits": 0, "unsupported": None, "timed_out": False}

    async def worker(i: int, c: httpx.AsyncClient, member: str, pid: int, epoch: int) -> None:
        tid = f"{group}-{i}"
        part = i % W4_OUT_PARTITIONS
        seqs = Sequences()
        while len(consumed) < total and state["unsupported"] is None:
            if time.monotonic() > deadline:
                state["timed_out"] = True
                return
            t0 = time.perf_counter()
            got = await _ok(
                c,
                f"/v1/share-groups/{group}/fetch",
                {
                    "member_id": member,
                    "max_records": BATCH,
                    "acquire_mode": "record_limit",
                    "encoding": "base64",
                    "max_wait_ms": 50,
                },
            )
            records, acquired = got["records"], got["acquired"]
            if not records:
                continue
            if len(records) > BATCH or len(records) != range_records(acquired):
                raise Broken(f"{len(records)} records for {range_records(acquired)} acquired")
            for r in records:
                key = (r["partition"], r["offset"])
                if key in consumed:
                    raise Broken(f"input {key} consumed twice")
                consumed.add(key)
            out = [{"value": base64.b64encode(v[::-1]).decode()} for v in _decoded(records)]
            batch = {
                "topic": out_topic,
                "partition": part,
                "base_sequence": seqs.take(out_topic, part, len(out), epoch),
                "records": out,
            }
            acks = acknowledgements(acquired)
            identity = {"producer_id": pid, "producer_epoch": epoch}
            if form == "multi":
                answer = await _ok(
                    c,
                    "/v1/produce",
                    {**identity, "transactional_id": tid, "encoding": "base64", "batches": [batch]},
                )
                _check_batches(answer, 1)
                answer = await _ok(
                    c,
                    f"/v1/transactions/{tid}/acknowledgements",
                    {**identity, "group_id": group, "member_id": member, "acknowledgements": acks},
                )
                errors = [r["error"] for r in answer["results"] if r["error"] is not None]
                if not answer["results"] or errors:
                    raise Broken(f"transactional acknowledgements refused: {errors or answer}")
                tc = time.perf_counter()
                answer = await _ok(c, f"/v1/transactions/{tid}/commit", identity)
            else:
                tc = time.perf_counter()
                status, answer = await _post(
                    c,
                    f"/v1/transactions/{tid}/commit",
                    {
                        **identity,
                        "encoding": "base64",
                        "batches": [batch],
                        "group_offsets": [],
                        "share_acknowledgements": [
                            {"group_id": group, "member_id": member, "acknowledgements": acks}
                        ],
                    },
                )
                # a server without the form ignores or refuses the parts: nothing committed
                # answers the same identity
                same = status == 200 and (answer["producer_id"], answer["producer_epoch"]) == (
                    pid,
                    epoch,
                )
                if status == 400 or same:
                    state["unsupported"] = f"{status}: {str(answer)[:200]}"
                    return
                if status != 200:
                    raise Broken(f"one-request commit answered {status}: {str(answer)[:300]}")
            ended = time.perf_counter()
            commit_ms.append((ended - tc) * 1000.0)
            txn_ms.append((ended - t0) * 1000.0)
            pid, epoch = answer["producer_id"], answer["producer_epoch"]
            state["produced"] += len(out)
            state["commits"] += 1

    clients = [_client(spec) for _ in range(spec["workers"])]
    try:
        setup = []
        for i, c in enumerate(clients):
            ident = await _ok(
                c,
                "/v1/producers",
                {"transactional_id": f"{group}-{i}", "transaction_timeout_ms": 60_000},
            )
            joined = await _ok(
                c,
                f"/v1/share-groups/{group}/heartbeat",
                {"member_id": None, "member_epoch": 0, "subscribed_topics": [in_topic]},
            )
            setup.append((joined["member_id"], ident["producer_id"], ident["producer_epoch"]))
        meter.begin()
        await asyncio.gather(
            *(worker(i, c, *s) for i, (c, s) in enumerate(zip(clients, setup, strict=True)))
        )
        meter.end()
    finally:
        for c in clients:
            await c.aclose()
    if state["unsupported"] is not None:
        return {"form": form, "supported": False, "detail": state["unsupported"]}
    return {
        **meter.report(state["produced"], state["commits"]),
        "form": form,
        "supported": True,
        "consumed": len(consumed),
        "produced": state["produced"],
        "commit_ms": h.latency_summary(commit_ms),
        "transaction_ms": h.latency_summary(txn_ms),
        "timed_out": state["timed_out"],
    }


def _check_batches(answer: Json, count: int) -> None:
    batches = answer.get("batches")
    if not isinstance(batches, list) or len(batches) != count:
        raise Broken(f"answer has no {count} batch results: {str(answer)[:300]}")
    for b in batches:
        if b.get("error") is not None or b.get("base_offset", -1) < 0:
            raise Broken(f"batch refused: {b}")


CLIENT_WORKLOADS: dict[str, Callable[[Json, Meter], Awaitable[Json]]] = {
    "w1": _w1,
    "consume": _consume,
    "consume_ws": _consume_ws,
    "w4": _w4,
}


async def _client_main(spec: Json) -> Json:
    meter = Meter(spec["server_pid"])
    try:
        return await CLIENT_WORKLOADS[spec["workload"]](spec, meter)
    except (
        Broken,
        httpx.HTTPError,
        WebSocketException,
        OSError,
        KeyError,
        ValueError,
        TypeError,
    ) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def client_process(spec: Json) -> Json:
    """Run one workload's client on uvloop (the loop a user's service would run on)."""
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        result = runner.run(_client_main(spec))
    result["loop"] = "uvloop"
    return result


def run_client(server: h.ServerProcess, spec: Json, module: str = "benchmarks.users") -> Json:
    """Start the client process (``python -m <module> --client-spec``) against ``server`` and
    return its checked result."""
    spec = {**spec, "url": server.base_url, "server_pid": server.pid}
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                module,
                "--client-spec",
                orjson.dumps(spec).decode(),
            ],
            cwd=h.REPO_ROOT,
            capture_output=True,
            timeout=spec["max_seconds"] + 60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise h.BenchError(f"the {spec['workload']} client did not finish in time") from None
    server.check_alive()
    if not out.stdout.strip():
        raise h.BenchError(f"client failed: {out.stderr.decode(errors='replace')[-2000:]}")
    result: Json = orjson.loads(out.stdout)
    if "error" in result:
        raise h.BenchError(f"{spec['workload']}: {result['error']}")
    if result.get("timed_out"):
        raise h.BenchError(f"{spec['workload']}: not finished within {spec['max_seconds']} s")
    return result


# -- the workloads (parent side) --------------------------------------------------------------


def _server(
    args: argparse.Namespace, wd: h.Workdir, env: dict[str, str] | None = None
) -> h.ServerProcess:
    return h.sluice_server(wd.data, wd.log("server"), python=h.server_python(args), extra_env=env)


def _fill(server: h.ServerProcess, args: argparse.Namespace, topic: str, records: int) -> None:
    """Pre-fill ``topic`` with random 256-byte values (base64 on the wire), 100 a request."""
    partitions = len(h.high_watermarks(server, topic))
    h.run_loadgen(
        h.LoadSpec(
            port=server.port,
            topic=topic,
            partitions=list(range(partitions)),
            records=records,
            batch=BATCH,
            value_bytes=VALUE_BYTES,
            value_encoding="base64",
            concurrency=4,
            max_seconds=args.max_seconds,
        ),
        server,
    )
    if sum(h.high_watermarks(server, topic)) != records:
        raise h.BenchError(f"pre-filling {topic} did not store {records} records")


def _share_group(server: h.ServerProcess, group: str) -> None:
    r = httpx.patch(
        f"{server.base_url}/v1/share-groups/{group}/config",
        json={"auto_offset_reset": "earliest"},
        timeout=30,
    )
    if r.status_code != 200:
        raise h.BenchError(f"configuring {group} answered {r.status_code}: {r.text[:200]}")


def _lag(server: h.ServerProcess, group: str) -> int:
    r = httpx.get(f"{server.base_url}/v1/share-groups/{group}", timeout=30)
    if r.status_code != 200:
        raise h.BenchError(f"describing {group} answered {r.status_code}: {r.text[:200]}")
    return sum(int(p["lag"]) for p in r.json()["partitions"])


def _committed_records(server: h.ServerProcess, topic: str) -> int:
    """Records of ``topic`` a read_committed reader sees (markers and aborted records skipped)."""
    count = 0
    with httpx.Client(base_url=server.base_url, timeout=60) as c:
        for p in range(len(h.high_watermarks(server, topic))):
            end = c.get(
                f"/v1/topics/{topic}/partitions/{p}/offsets",
                params={"at": "latest", "isolation_level": "read_committed"},
            ).json()["offset"]
            offset = 0
            for _ in range(1_000_000):
                if offset >= end:
                    break
                r = c.get(
                    f"/v1/topics/{topic}/partitions/{p}/records",
                    params={
                        "offset": offset,
                        "max_records": 10_000,
                        "isolation_level": "read_committed",
                        "max_bytes": 16 * h.MiB,
                    },
                )
                if r.status_code != 200:
                    raise h.BenchError(f"reading {topic}/{p} answered {r.status_code}")
                body = r.json()
                count += len(body["records"])
                if body["next_offset"] <= offset:
                    raise h.BenchError(f"reading {topic}/{p} stuck at {offset}")
                offset = body["next_offset"]
    return count


def _w1_spec(args: argparse.Namespace) -> Json:
    """W1's client: topics ``bench`` and ``warmup`` on the server."""
    return {
        "workload": "w1",
        "topic": "bench",
        "records": args.w1_records,
        "warmup_topic": "warmup",
        "warmup_requests": 20,
        "max_seconds": args.max_seconds,
    }


def run_w1(args: argparse.Namespace) -> Json:
    with h.Workdir("users-w1", args.tmp, args.keep) as wd, _server(args, wd) as server:
        server.wait_ready()
        h.create_topic(server, "bench", 1)
        h.create_topic(server, "warmup", 1)
        result = run_client(server, _w1_spec(args))
        if h.high_watermarks(server, "bench") != [args.w1_records]:
            raise h.BenchError(f"W1: the topic does not hold the {args.w1_records} records sent")
        server.stop()
    h.log(
        f"  W1: {result['records_per_s']:,} records/s, {result['request_ms']['mean']} ms per "
        f"request (p50 {result['request_ms']['p50']}, p99 {result['request_ms']['p99']}), "
        f"server {result['server_us_per_record']} µs/record"
    )
    return result


async def _dashboards(spec: Json) -> Json:
    """``spec["sockets"]`` dashboards on ``/v1/events``, read until stdin closes; what each got."""
    from websockets.asyncio.client import connect

    url = spec["url"].replace("http://", "ws://") + "/v1/events"
    frames = [0] * spec["sockets"]
    snapshots = [0] * spec["sockets"]
    received = [0] * spec["sockets"]
    connected = asyncio.Event()
    opened = [0]

    async def dashboard(i: int) -> None:
        async with connect(url, max_size=64 * h.MiB, compression=None) as ws:
            opened[0] += 1
            if opened[0] == spec["sockets"]:
                connected.set()
            async for message in ws:
                frame = orjson.loads(message)
                frames[i] += 1
                received[i] += len(message)
                snapshots[i] += frame.get("type") == "snapshot"

    tasks = [asyncio.create_task(dashboard(i)) for i in range(spec["sockets"])]
    await asyncio.wait_for(connected.wait(), 30)
    sys.stdout.buffer.write(b"connected\n")
    sys.stdout.flush()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until closed
    failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if failed:
        raise Broken(f"a dashboard socket failed: {failed[0].exception()}")
    return {
        "sockets": spec["sockets"],
        "frames_min": min(frames),
        "frames_max": max(frames),
        "snapshots": sum(snapshots),
        "bytes_per_socket": int(statistics.median(received)),
    }


def run_w1dash(args: argparse.Namespace) -> Json:
    """W1 with 50 dashboards on /v1/events, and the RSS the idle dashboards cost."""
    with h.Workdir("users-w1dash", args.tmp, args.keep) as wd, _server(args, wd) as server:
        server.wait_ready()
        h.create_topic(server, "bench", 1)
        h.create_topic(server, "warmup", 1)
        h.create_topic(server, "idle", 4)  # something for the dashboards to show
        time.sleep(1.0)
        rss_before = server.memory()["VmRSS"]
        spec = {"url": server.base_url, "sockets": DASHBOARDS}
        with subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.users",
                "--dashboards-spec",
                orjson.dumps(spec).decode(),
            ],
            cwd=h.REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        ) as dashboards:
            assert dashboards.stdout is not None and dashboards.stdin is not None
            if dashboards.stdout.readline().strip() != b"connected":
                raise h.BenchError("the dashboards did not connect")
            time.sleep(3.0)  # a few publisher ticks with the dashboards idle
            rss_idle = server.memory()["VmRSS"]
            result = run_client(server, _w1_spec(args))
            dashboards.stdin.close()
            out = dashboards.stdout.read()
            dashboards.wait(60)
        got: Json = orjson.loads(out) if out.strip() else {}
        if "error" in got or got.get("snapshots") != DASHBOARDS:
            raise h.BenchError(f"W1-DASH: the dashboards answered {got or 'nothing'}")
        if h.high_watermarks(server, "bench") != [args.w1_records]:
            raise h.BenchError("W1-DASH: the topic does not hold the records sent")
        server.stop()
    result["dashboards"] = got
    result["rss_mb_before_dashboards"] = round(rss_before / h.MiB, 1)
    result["rss_mb_idle_dashboards"] = round(rss_idle / h.MiB, 1)
    result["rss_mb_growth_idle_dashboards"] = round((rss_idle - rss_before) / h.MiB, 1)
    h.log(
        f"  W1-DASH: {result['records_per_s']:,} records/s with {DASHBOARDS} dashboards "
        f"({got['frames_min']}–{got['frames_max']} frames each), RSS +"
        f"{result['rss_mb_growth_idle_dashboards']} MB with them idle"
    )
    return result


def _consume_run(
    args: argparse.Namespace, label: str, records: int, partitions: int, spec: Json
) -> Json:
    with h.Workdir(f"users-{label}", args.tmp, args.keep) as wd, _server(args, wd) as server:
        server.wait_ready()
        h.create_topic(server, "bench", partitions)
        _fill(server, args, "bench", records)
        _share_group(server, label)
        result = run_client(
            server,
            {
                "workload": "consume",
                "topic": "bench",
                "group": label,
                "records": records,
                "max_seconds": args.max_seconds,
                **spec,
            },
        )
        result["server_lag_after"] = _lag(server, label)
        server.stop()
    result["loss"] = records - result["accepted"]
    if result["loss"] or result["server_lag_after"]:
        raise h.BenchError(
            f"{label}: {result['accepted']} of {records} accepted, server lag "
            f"{result['server_lag_after']}"
        )
    return result


def run_w2(args: argparse.Namespace) -> Json:
    result = _consume_run(
        args,
        "w2",
        args.w2_records,
        W2_PARTITIONS,
        {"consumers": 4, "release_first": False, "piggyback": False},
    )
    h.log(
        f"  W2: {result['records_per_s']:,} records/s, fetch {result['fetch_ms']['p50']} / "
        f"{result['fetch_ms']['p99']} ms, ack {result['ack_ms']['p50']} / "
        f"{result['ack_ms']['p99']} ms (p50 / p99), server {result['server_us_per_record']} "
        "µs/record"
    )
    return result


def run_w2ws(args: argparse.Namespace) -> Json:
    result = _consume_run(
        args,
        "w2ws",
        args.w2_records,
        W2_PARTITIONS,
        {"workload": "consume_ws", "consumers": 4},
    )
    h.log(
        f"  W2-WS: {result['records_per_s']:,} records/s, ack {result['ack_ms']['p50']} / "
        f"{result['ack_ms']['p99']} ms (p50 / p99), server {result['server_us_per_record']} "
        "µs/record"
    )
    return result


def run_w3(args: argparse.Namespace) -> Json:
    out: Json = {}
    for form, piggyback in (("piggyback", True), ("plain", False)):
        r = _consume_run(
            args,
            f"w3-{form}",
            args.w3_records,
            1,
            {"consumers": 1, "release_first": True, "piggyback": piggyback},
        )
        if r["releases"] != args.w3_records or r["redeliveries"] != args.w3_records:
            raise h.BenchError(
                f"W3 {form}: {r['releases']} releases and {r['redeliveries']} redeliveries "
                f"for {args.w3_records} records"
            )
        out[form] = r
        h.log(
            f"  W3 {form}: all {r['accepted']:,} accepted {r['seconds']} s after the first "
            f"fetch, loss {r['loss']}, {r['redeliveries']:,} redeliveries, "
            f"{r['requests_per_100_records']} requests per 100 records"
        )
    return out


def _p32_spec(args: argparse.Namespace, port: int, pid: int) -> h.LoadSpec:
    return h.LoadSpec(
        port=port,
        topic="bench",
        partitions=[0],
        records=args.p32_records,
        batch=BATCH,
        explicit_partition=False,
        value_bytes=VALUE_BYTES,
        value_encoding="base64",
        concurrency=32,
        client="raw",
        warmup_topic="warmup",
        warmup_requests=20,
        max_seconds=args.max_seconds,
        server_pid=pid,
    )


def run_p32(args: argparse.Namespace) -> Json:
    with h.Workdir("users-p32", args.tmp, args.keep) as wd, _server(args, wd) as server:
        server.wait_ready()
        h.create_topic(server, "bench", 1)
        h.create_topic(server, "warmup", 1)
        sluice = h.run_loadgen(_p32_spec(args, server.port, server.pid), server)
        if h.high_watermarks(server, "bench") != [args.p32_records]:
            raise h.BenchError(f"P32: the topic does not hold the {args.p32_records} records sent")
        server.stop()
    with (
        h.Workdir("users-ceiling", args.tmp, args.keep) as wd,
        h.ceiling_server(wd.log("ceiling")) as ceiling,
    ):
        ceiling.wait_ready()
        bare = h.run_loadgen(_p32_spec(args, ceiling.port, ceiling.pid), ceiling)
        ceiling.stop()
    (ratio,) = ratios([sluice["records_per_s"]], [bare["records_per_s"]])
    h.log(
        f"  P32: {sluice['records_per_s']:,} records/s, ceiling {bare['records_per_s']:,}: "
        f"ratio {ratio}"
    )
    return {"sluice": sluice, "ceiling": bare, "ratio": ratio}


# W4 forms: the client's form, and the server's SLUICE_TXN_ANSWER
W4_FORMS: dict[str, tuple[str, str]] = {
    "one": ("one", "complete"),
    "one-prepare": ("one", "prepare"),
    "multi": ("multi", "complete"),
}
W4_LABELS = {
    "one": "one-request",
    "one-prepare": "one-request answered at the decision",
    "multi": "multi-step",
}


def _w4_form(args: argparse.Namespace, form: str) -> Json:
    group = f"w4-{form}"
    client_form, answer = W4_FORMS[form]
    env = {"SLUICE_TXN_ANSWER": answer}
    with (
        h.Workdir(f"users-{group}", args.tmp, args.keep) as wd,
        _server(args, wd, env) as server,
    ):
        server.wait_ready()
        h.create_topic(server, "in", W4_IN_PARTITIONS)
        h.create_topic(server, "out", W4_OUT_PARTITIONS)
        _fill(server, args, "in", args.w4_records)
        _share_group(server, group)
        result = run_client(
            server,
            {
                "workload": "w4",
                "form": client_form,
                "topic": "in",
                "out_topic": "out",
                "group": group,
                "workers": W4_WORKERS,
                "records": args.w4_records,
                "max_seconds": args.max_seconds,
            },
        )
        if result["supported"]:
            result["output_read_committed"] = _committed_records(server, "out")
            result["server_lag_after"] = _lag(server, group)
        server.stop()
    if not result["supported"]:
        h.log(f"  W4 {form}: {NOT_SUPPORTED} ({result['detail']})")
        return result
    if not (
        result["consumed"] == args.w4_records
        and result["output_read_committed"] == result["consumed"] == result["produced"]
        and result["server_lag_after"] == 0
    ):
        raise h.BenchError(
            f"W4 {form}: consumed {result['consumed']} of {args.w4_records}, produced "
            f"{result['produced']}, read_committed output {result['output_read_committed']}, "
            f"lag {result['server_lag_after']}"
        )
    h.log(
        f"  W4 {form}: {result['transactions_per_s']:,} transactions/s, commit "
        f"{result['commit_ms']['p50']} / {result['commit_ms']['p99']} ms (p50 / p99), "
        f"server {result['server_us_per_transaction']} µs/transaction"
    )
    return result


def run_w4(args: argparse.Namespace) -> Json:
    return {form: _w4_form(args, form) for form in W4_FORMS}


RUNNERS: dict[str, Callable[[argparse.Namespace], Json]] = {
    "w1": run_w1,
    "w1dash": run_w1dash,
    "w2": run_w2,
    "w2ws": run_w2ws,
    "w3": run_w3,
    "p32": run_p32,
    "w4": run_w4,
}


# -- summary ----------------------------------------------------------------------------------


def _at(run: Json, path: str) -> Any:
    node: Any = run
    for key in path.split("."):
        node = node[key]
    return node


def summarise(raw: dict[str, list[Json]]) -> Json:
    """Medians and spreads of the raw runs, and the target lines."""
    s: Json = {"targets": []}
    t = s["targets"]

    def sp(key: str, runs: list[Json], path: str) -> Json:
        s[key] = h.spread([_at(r, path) for r in runs if _at(r, path) is not None])
        spread: Json = s[key]
        return spread

    if runs := raw.get("w1"):
        rate = sp("w1_records_per_s", runs, "records_per_s")
        mean = sp("w1_request_ms_mean", runs, "request_ms.mean")
        sp("w1_request_ms_p50", runs, "request_ms.p50")
        sp("w1_request_ms_p99", runs, "request_ms.p99")
        cpu = sp("w1_server_us_per_record", runs, "server_us_per_record")
        t += [
            h.target("users W1 one producer, sequential: records/s", rate, 65_000, "records/s"),
            h.target(
                "users W1 one producer: ms per request (mean)",
                mean,
                1.5,
                "ms",
                higher_is_better=False,
            ),
            h.target(
                "users W1 one producer: server CPU per record",
                cpu,
                10,
                "µs",
                higher_is_better=False,
            ),
        ]
    if runs := raw.get("w1dash"):
        sp("w1dash_records_per_s", runs, "records_per_s")
        rss = sp("w1dash_rss_mb_growth_idle", runs, "rss_mb_growth_idle_dashboards")
        t.append(
            h.target(
                "users dashboards: RSS growth, 50 idle",
                rss,
                20,
                "MB",
                higher_is_better=False,
            )
        )
        if plain := raw.get("w1"):
            s["w1dash_ratio_to_w1"] = h.spread(
                ratios([r["records_per_s"] for r in runs], [r["records_per_s"] for r in plain])
            )
            t.append(
                h.target(
                    "users dashboards: W1 with 50 ÷ W1, same run",
                    s["w1dash_ratio_to_w1"],
                    0.9,
                    "ratio",
                )
            )
    if runs := raw.get("w2"):
        rate = sp("w2_records_per_s", runs, "records_per_s")
        sp("w2_fetch_ms_p50", runs, "fetch_ms.p50")
        sp("w2_fetch_ms_p99", runs, "fetch_ms.p99")
        sp("w2_ack_ms_p50", runs, "ack_ms.p50")
        ack = sp("w2_ack_ms_p99", runs, "ack_ms.p99")
        cpu = sp("w2_server_us_per_record", runs, "server_us_per_record")
        t += [
            h.target("users W2 4 consumers: records/s", rate, 70_000, "records/s"),
            h.target(
                "users W2 4 consumers: acknowledge p99", ack, 10, "ms", higher_is_better=False
            ),
            h.target(
                "users W2 4 consumers: server CPU per record", cpu, 10, "µs", higher_is_better=False
            ),
        ]
    if runs := raw.get("w2ws"):
        rate = sp("w2ws_records_per_s", runs, "records_per_s")
        sp("w2ws_ack_ms_p50", runs, "ack_ms.p50")
        ack = sp("w2ws_ack_ms_p99", runs, "ack_ms.p99")
        sp("w2ws_server_us_per_record", runs, "server_us_per_record")
        t += [
            h.target("users push W2-WS 4 consumers: records/s", rate, 80_000, "records/s"),
            h.target(
                "users push W2-WS 4 consumers: ack p99", ack, 10, "ms", higher_is_better=False
            ),
        ]
        if http := raw.get("w2"):
            s["w2ws_ratio_to_w2"] = h.spread(
                ratios([r["records_per_s"] for r in runs], [r["records_per_s"] for r in http])
            )
            t.append(
                h.target(
                    "users push W2-WS ÷ W2 over HTTP, same run", s["w2ws_ratio_to_w2"], 1.5, "ratio"
                )
            )
    if runs := raw.get("w3"):
        for form in ("piggyback", "plain"):
            sp(f"w3_{form}_s", runs, f"{form}.seconds")
            sp(f"w3_{form}_requests_per_100_records", runs, f"{form}.requests_per_100_records")
            s[f"w3_{form}_loss"] = [r[form]["loss"] for r in runs]
            s[f"w3_{form}_redeliveries"] = [r[form]["redeliveries"] for r in runs]
        t.append(
            h.target(
                "users W3 release once, piggy-backed: all accepted",
                s["w3_piggyback_s"],
                0.4,
                "s",
                higher_is_better=False,
            )
        )
    if runs := raw.get("p32"):
        sp("p32_records_per_s", runs, "sluice.records_per_s")
        sp("p32_ceiling_records_per_s", runs, "ceiling.records_per_s")
        ratio = sp("p32_ratio_to_ceiling", runs, "ratio")
        t.append(h.target("users P32 produce / parse-only ceiling", ratio, 0.6, "ratio"))
    if runs := raw.get("w4"):
        for form, goal in (("one", 1000), ("one-prepare", 1000), ("multi", 500)):
            done = [r[form] for r in runs if form in r and r[form]["supported"]]
            if not any(form in r for r in runs):
                continue  # results from before the form was measured
            s[f"w4_{form}_supported"] = bool(done)
            if not done:
                continue
            rate = sp(f"w4_{form}_transactions_per_s", done, "transactions_per_s")
            sp(f"w4_{form}_commit_ms_p50", done, "commit_ms.p50")
            p99 = sp(f"w4_{form}_commit_ms_p99", done, "commit_ms.p99")
            sp(f"w4_{form}_server_us_per_transaction", done, "server_us_per_transaction")
            label = W4_LABELS[form]
            t.append(h.target(f"users W4 {label}: transactions/s", rate, goal, "transactions/s"))
            if form != "multi":
                t.append(
                    h.target(f"users W4 {label}: commit p99", p99, 25, "ms", higher_is_better=False)
                )
    return s


def run(args: argparse.Namespace) -> Json:
    if args.quick:
        args.runs = 1
        args.w1_records = min(args.w1_records, 5_000)
        args.w2_records = min(args.w2_records, 10_000)
        args.w3_records = min(args.w3_records, 2_000)
        args.p32_records = min(args.p32_records, 20_000)
        args.w4_records = min(args.w4_records, 4_000)
    busy: list[float] = []
    raw: dict[str, list[Json]] = {w: [] for w in args.only}
    for i in h.iter_runs(args, busy):
        h.log(f"[users] run {i}/{args.runs}")
        for w in args.only:
            raw[w].append(RUNNERS[w](args))
    summary = summarise(raw)
    summary["other_busy_cores_before_runs"] = busy
    params = {k: v for k, v in vars(args).items() if k not in ("out", "tmp", "keep")}
    params["fsync"] = "always"
    path = h.write_result(NAME, params, {"summary": summary, "raw": raw}, args.out)
    h.print_targets(f"users ({path})", summary["targets"])
    for form, label in W4_LABELS.items():
        if "w4" in raw and not summary[f"w4_{form}_supported"]:
            h.log(f"  W4 {label} form: {NOT_SUPPORTED}")
    return summary


def add_args(parser: argparse.ArgumentParser) -> None:
    h.add_common_args(parser)
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--w1-records", type=int, default=100_000)
    parser.add_argument("--w2-records", type=int, default=200_000)
    parser.add_argument("--w3-records", type=int, default=10_000)
    parser.add_argument("--p32-records", type=int, default=200_000)
    parser.add_argument("--w4-records", type=int, default=80_000)
    parser.add_argument(
        "--max-seconds", type=float, default=300.0, help="time limit of each workload's loop"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--dashboards-spec"]:
        try:
            got = asyncio.run(_dashboards(orjson.loads(argv[1])))
        except (Broken, WebSocketException, OSError, TimeoutError) as exc:
            got = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.buffer.write(orjson.dumps(got) + b"\n")
        return 1 if "error" in got else 0
    if argv[:1] == ["--client-spec"]:
        result = client_process(orjson.loads(argv[1]))
        sys.stdout.buffer.write(orjson.dumps(result) + b"\n")
        return 1 if "error" in result else 0
    return h.run_main(NAME, __doc__, add_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
