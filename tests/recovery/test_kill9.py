"""Crash tests against a real ``python -m app serve`` process.

kill -9 under concurrent load must lose nothing that was acknowledged, create no duplicates and
leave no holes; SIGTERM drains; a second server cannot open a data directory in use; a torn tail
is truncated away at restart.

Test 1 is randomised; its seed is printed and can be pinned with ``SLUICE_CRASH_SEED=<int>``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]

PARTITIONS = 3
CYCLES = 20
WORKERS = 6


# -- helpers ----------------------------------------------------------------------------------


def b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def create_topic(url: str, name: str, partitions: int, **config: int) -> None:
    body: dict[str, Any] = {"name": name, "partitions": partitions}
    if config:
        body["config"] = config
    r = httpx.post(url + "/v1/topics", json=body, timeout=10)
    assert r.status_code == 201, r.text


def read_partition(url: str, topic: str, partition: int) -> tuple[list[dict[str, Any]], int]:
    """Every record of a partition from offset 0 to the high watermark (base64), and the HW."""
    out: list[dict[str, Any]] = []
    offset = 0
    with httpx.Client(base_url=url, timeout=30) as c:
        while True:
            r = c.get(
                f"/v1/topics/{topic}/partitions/{partition}/records",
                params={
                    "offset": offset,
                    "max_records": 10_000,
                    "max_bytes": 16 * 1024 * 1024,
                    "encoding": "base64",
                },
            )
            assert r.status_code == 200, r.text
            page = r.json()
            assert page["log_start_offset"] == 0
            out += page["records"]
            hw = int(page["high_watermark"])
            if page["next_offset"] >= hw or not page["records"]:
                assert page["next_offset"] == hw, (partition, page["next_offset"], hw)
                return out, hw
            offset = page["next_offset"]


def high_watermarks(url: str, topic: str) -> dict[int, int]:
    r = httpx.get(f"{url}/v1/topics/{topic}", timeout=10)
    assert r.status_code == 200, r.text
    return {p["partition"]: p["high_watermark"] for p in r.json()["partitions"]}


def check_server_log(text: str) -> None:
    """A kill -9 restart may warn about recovery truncation; never an error or a traceback."""
    assert "Traceback" not in text, text[-5000:]
    for line in text.splitlines():
        assert " ERROR " not in line and " CRITICAL " not in line, line
        assert not line.startswith(("ERROR:", "CRITICAL:")), line  # uvicorn's own format
        if "truncat" in line.lower():
            assert " WARNING " in line, line


# -- 1. kill -9 during concurrent produce -----------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """One record as sent, with the bytes the server must store."""

    rid: str
    request: str
    index: int
    partition: int | None
    key: bytes | None
    value: bytes
    headers: tuple[tuple[str, bytes | None], ...]


@dataclass(frozen=True)
class Ack:
    partition: int
    offset: int
    timestamp: int


@dataclass
class CrashState:
    sent: dict[str, Sent] = field(default_factory=dict)
    acked: dict[str, Ack] = field(default_factory=dict)
    requests: dict[str, list[Sent]] = field(default_factory=dict)
    acked_requests: set[str] = field(default_factory=set)
    unacked_requests: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    acked_per_cycle: list[int] = field(default_factory=list)
    inflight_at_kill: list[int] = field(default_factory=list)


_TEXT = "abcxyz0123 _-é€😀|"


def make_request(rng: random.Random, req_id: str) -> tuple[dict[str, Any], list[Sent]]:
    encoding = rng.choice(["utf8", "base64"])
    mode = rng.choice(["explicit", "keyed", "sticky", "mixed"])
    sent: list[Sent] = []
    wire: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 20)):
        rid = f"{req_id}-{i}"
        m = rng.choice(["explicit", "keyed", "sticky"]) if mode == "mixed" else mode
        partition = rng.randrange(PARTITIONS) if m == "explicit" else None
        key: bytes | None
        if m == "sticky" or (m == "explicit" and rng.random() < 0.3):
            key = None
        elif encoding == "base64":
            key = rng.randbytes(rng.randint(0, 16))
        else:
            key = f"key-{rng.randint(0, 40)}-ü".encode()
        if encoding == "base64":
            tail = rng.randbytes(rng.randint(0, 300))
        else:
            tail = "".join(rng.choice(_TEXT) for _ in range(rng.randint(0, 120))).encode()
        value = rid.encode() + b"|" + tail
        headers: list[tuple[str, bytes | None]] = []
        if rng.random() < 0.35:
            for j in range(rng.randint(1, 3)):
                hv: bytes | None
                if rng.random() < 0.15:
                    hv = None
                elif encoding == "base64":
                    hv = rng.randbytes(rng.randint(0, 24))
                else:
                    hv = f"hv{j}-ñ-{rng.randint(0, 999)}".encode()
                headers.append((rng.choice(["trace", "h", "ünï", "x-id"]) + str(j), hv))
        s = Sent(rid, req_id, i, partition, key, value, tuple(headers))
        sent.append(s)
        show = b64 if encoding == "base64" else (lambda b: None if b is None else b.decode())
        rec: dict[str, Any] = {"value": show(value)}
        if key is not None or rng.random() < 0.5:
            rec["key"] = show(key)
        if partition is not None:
            rec["partition"] = partition
        if headers:
            rec["headers"] = [{"key": k, "value": show(v)} for k, v in headers]
        wire.append(rec)
    return {"records": wire, "encoding": encoding}, sent


async def produce_until_killed(
    url: str,
    topic: str,
    rng: random.Random,
    cycle: int,
    wid: int,
    state: CrashState,
    killed: threading.Event,
    inflight: list[int],
    first_ack: asyncio.Event,
) -> int:
    """Produce without retries until the server dies; returns how many requests were acked."""
    acked = 0
    async with httpx.AsyncClient(base_url=url, timeout=20) as client:
        n = 0
        while True:
            req_id = f"c{cycle:02d}w{wid}r{n:04d}"
            n += 1
            body, sent = make_request(rng, req_id)
            state.requests[req_id] = sent
            for s in sent:
                state.sent[s.rid] = s
            inflight[0] += 1
            try:
                r = await client.post(f"/v1/topics/{topic}/records", json=body)
            except httpx.TransportError as exc:
                state.unacked_requests.add(req_id)
                if not killed.is_set():
                    state.problems.append(f"{req_id}: {exc!r} before the kill")
                return acked
            finally:
                inflight[0] -= 1
            if r.status_code != 200:
                state.unacked_requests.add(req_id)
                state.problems.append(f"{req_id}: HTTP {r.status_code} {r.text}")
                return acked
            offsets = r.json()["offsets"]
            if len(offsets) != len(sent):
                state.problems.append(f"{req_id}: {len(offsets)} offsets for {len(sent)} records")
                return acked
            for s, o in zip(sent, offsets, strict=True):
                state.acked[s.rid] = Ack(o["partition"], o["offset"], o["timestamp"])
            state.acked_requests.add(req_id)
            first_ack.set()
            acked += 1


async def crash_cycle(
    server: ServerProcess, topic: str, rng: random.Random, cycle: int, state: CrashState
) -> None:
    await asyncio.to_thread(server.start)
    # Every acknowledged record so far must be below the high watermark after recovery.
    hws = await asyncio.to_thread(high_watermarks, server.url, topic)
    for rid, a in state.acked.items():
        if a.offset >= hws[a.partition]:
            state.problems.append(
                f"cycle {cycle}: acked {rid} at {a} is above the high "
                f"watermark {hws[a.partition]} after restart"
            )
            break
    killed = threading.Event()
    first_ack = asyncio.Event()
    inflight = [0]
    worker_rngs = [random.Random(rng.getrandbits(64)) for _ in range(WORKERS)]
    tasks = [
        asyncio.create_task(
            produce_until_killed(
                server.url, topic, worker_rngs[w], cycle, w, state, killed, inflight, first_ack
            )
        )
        for w in range(WORKERS)
    ]
    # Most kills land in full flow (the delay counts from the first answer of the cycle); some
    # land among the first requests after a recovery.
    delay = rng.uniform(0.05, 0.4)
    if rng.random() < 0.8:
        try:
            await asyncio.wait_for(first_ack.wait(), timeout=5)
        except TimeoutError:
            state.problems.append(f"cycle {cycle}: no produce answered within 5 s")
    await asyncio.sleep(delay)
    state.inflight_at_kill.append(inflight[0])
    killed.set()
    assert server.proc is not None
    server.proc.kill()  # SIGKILL now, on the event loop thread, while requests are in flight
    done = await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.to_thread(server.proc.wait, 10)
    for d in done:
        if isinstance(d, BaseException):
            state.problems.append(f"cycle {cycle}: worker crashed: {d!r}")
    state.acked_per_cycle.append(sum(d for d in done if isinstance(d, int)))


def verify_log(url: str, topic: str, state: CrashState) -> tuple[int, int]:
    """Compare the whole log with what was sent and acknowledged; returns (records, unacked)."""
    problems: list[str] = []
    found: dict[str, tuple[int, int]] = {}  # rid -> (partition, offset)
    stored: dict[tuple[int, int], dict[str, Any]] = {}
    total = 0
    for p in range(PARTITIONS):
        records, hw = read_partition(url, topic, p)
        total += len(records)
        offsets = [r["offset"] for r in records]
        if offsets != list(range(hw)):
            holes = sorted(set(range(hw)) - set(offsets))[:10]
            problems.append(
                f"partition {p}: offsets are not 0..{hw - 1} (missing {holes}, "
                f"{len(offsets)} records)"
            )
        for r in records:
            value = unb64(r["value"])
            if value is None or b"|" not in value:
                problems.append(f"p{p}@{r['offset']}: a record nobody sent: {r}")
                continue
            rid = value.split(b"|", 1)[0].decode(errors="replace")
            if rid in found:
                problems.append(f"{rid} appears twice: at {found[rid]} and {(p, r['offset'])}")
                continue
            found[rid] = (p, r["offset"])
            stored[(p, r["offset"])] = r
            s = state.sent.get(rid)
            if s is None:
                problems.append(f"p{p}@{r['offset']}: unknown record id {rid!r}")
                continue
            got = (
                unb64(r["key"]),
                value,
                tuple((h["key"], unb64(h["value"])) for h in r["headers"]),
            )
            if got != (s.key, s.value, s.headers):
                problems.append(
                    f"{rid} at p{p}@{r['offset']}: stored {got!r} "
                    f"sent {(s.key, s.value, s.headers)!r}"
                )
            if s.partition is not None and s.partition != p:
                problems.append(f"{rid} was sent to partition {s.partition}, is in {p}")

    for rid, a in state.acked.items():
        where = found.get(rid)
        if where is None:
            problems.append(f"LOST acknowledged record {rid} (acked at p{a.partition}@{a.offset})")
        elif where != (a.partition, a.offset):
            problems.append(
                f"acknowledged {rid} acked at p{a.partition}@{a.offset}, "
                f"found at p{where[0]}@{where[1]}"
            )
        elif stored[where]["timestamp"] != a.timestamp:
            problems.append(f"{rid}: timestamp {stored[where]['timestamp']} != acked {a.timestamp}")

    # Atomicity per partition: the records of one request on one partition are one batch
    # (contiguous, in request order); an unacknowledged request's batch is all there or not.
    present_unacked = 0
    for req_id, sent in state.requests.items():
        by_partition: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for s in sent:
            if s.rid in found:
                p, o = found[s.rid]
                by_partition[p].append((s.index, o))
        for p, items in by_partition.items():
            offs = [o for _, o in items]
            if offs != list(range(offs[0], offs[0] + len(offs))):
                problems.append(
                    f"{req_id}: its records on partition {p} are not one contiguous batch: {items}"
                )
        if req_id in state.unacked_requests:
            present_unacked += bool(by_partition)
            if all(s.partition is not None for s in sent):
                for p in range(PARTITIONS):
                    want = {s.rid for s in sent if s.partition == p}
                    have = {s.rid for s in sent if s.rid in found and found[s.rid][0] == p}
                    if have and have != want:
                        problems.append(
                            f"unacked {req_id}: partial batch on partition {p}: "
                            f"{sorted(have)} of {sorted(want)}"
                        )
        elif req_id not in state.acked_requests:
            for s in sent:
                if s.rid in found:
                    problems.append(f"{s.rid} of a request never sent is stored")

    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    return total, present_unacked


async def test_kill9_during_concurrent_produce_loses_nothing_acknowledged(
    server_factory: ServerFactory,
) -> None:
    seed = int(os.environ.get("SLUICE_CRASH_SEED") or random.SystemRandom().randrange(2**32))
    print(f"kill -9 crash test seed: SLUICE_CRASH_SEED={seed}")
    rng = random.Random(seed)
    started = time.monotonic()
    server = server_factory()
    topic = "crash"
    await asyncio.to_thread(server.start)
    # Small segments so that kills also land around segment rolls.
    await asyncio.to_thread(create_topic, server.url, topic, PARTITIONS, segment_bytes=64 * 1024)
    await asyncio.to_thread(server.kill)

    state = CrashState()
    for cycle in range(CYCLES):
        await crash_cycle(server, topic, rng, cycle, state)
        assert not state.problems, f"seed {seed}: " + "\n".join(state.problems[:20])

    await asyncio.to_thread(server.start)
    try:
        total, present_unacked = await asyncio.to_thread(verify_log, server.url, topic, state)
    finally:
        print(
            f"seed {seed}: {len(state.acked)} acked records in {len(state.acked_requests)} "
            f"requests, {len(state.unacked_requests)} unacked requests; acked per cycle "
            f"{state.acked_per_cycle}; in flight at kill {state.inflight_at_kill}"
        )
    print(
        f"seed {seed}: log holds {total} records; {present_unacked} unacked requests were "
        f"(fully or partly) stored; {time.monotonic() - started:.1f} s"
    )
    assert len(state.acked) > 1000, "too little load to mean anything"
    assert sum(1 for n in state.inflight_at_kill if n) >= CYCLES // 2, state.inflight_at_kill
    assert state.unacked_requests, "no request was ever cut by a kill"
    assert server.stop() == 0
    check_server_log(server.logs())


# -- 2. SIGTERM drains ------------------------------------------------------------------------


def test_sigterm_drains_and_restarts_clean(server_factory: ServerFactory) -> None:
    server = server_factory()
    server.start()
    url = server.url
    create_topic(url, "drain", 2)
    first = httpx.post(
        url + "/v1/topics/drain/records",
        timeout=10,
        json={"records": [{"value": f"pre-{i}", "partition": 0} for i in range(10)]},
    )
    assert first.status_code == 200, first.text
    acked: dict[int, str] = {o["offset"]: f"pre-{i}" for i, o in enumerate(first.json()["offsets"])}

    poll: dict[str, Any] = {}

    def long_poll() -> None:
        t0 = time.monotonic()
        try:
            r = httpx.get(
                url + "/v1/topics/drain/partitions/1/records",
                params={"offset": 0, "max_wait_ms": 20_000},
                timeout=40,
            )
            poll["status"], poll["body"] = r.status_code, r.json()
        except httpx.TransportError as exc:
            poll["error"] = repr(exc)
        poll["done_at"] = time.monotonic()
        poll["elapsed"] = poll["done_at"] - t0

    outcomes: list[tuple[str, Any]] = []
    spans: list[tuple[float, float, str]] = []  # (sent, answered, outcome) per produce
    stop_producing = threading.Event()

    def producer() -> None:
        n = 0
        with httpx.Client(base_url=url, timeout=30) as c:
            while not stop_producing.is_set():
                values = [f"live-{n}-{i}" for i in range(200)]
                n += 1
                t0 = time.monotonic()
                try:
                    r = c.post(
                        "/v1/topics/drain/records",
                        json={"records": [{"value": v, "partition": 0} for v in values]},
                    )
                except httpx.TransportError as exc:
                    outcomes.append(("error", repr(exc)))
                    spans.append((t0, time.monotonic(), "error"))
                    return
                spans.append((t0, time.monotonic(), str(r.status_code)))
                if r.status_code != 200:
                    outcomes.append(("status", (r.status_code, r.text)))
                    return
                offsets = [o["offset"] for o in r.json()["offsets"]]
                outcomes.append(("ok", dict(zip(offsets, values, strict=True))))

    threads = [threading.Thread(target=long_poll), threading.Thread(target=producer)]
    for t in threads:
        t.start()
    time.sleep(0.5)  # the long poll is parked, the producer is mid-stream
    assert "done_at" not in poll, poll
    assert any(kind == "ok" for kind, _ in outcomes), outcomes

    term_at = time.monotonic()
    code = server.stop(timeout=15)
    exit_seconds = time.monotonic() - term_at
    stop_producing.set()
    for t in threads:
        t.join(30)
        assert not t.is_alive()

    assert code == 0, server.logs()[-3000:]
    assert exit_seconds < 5, f"SIGTERM took {exit_seconds:.1f} s"
    # The long poll was released promptly with an (empty) answer, not cut or left to time out.
    assert poll.get("status") == 200, poll
    assert poll["body"]["records"] == [], poll
    assert poll["done_at"] - term_at < 5, poll
    # Every produce answered 200 until the end; the last one either completed or was refused.
    assert all(kind == "ok" for kind, _ in outcomes[:-1]), outcomes[-3:]
    last_kind, last = outcomes[-1]
    if last_kind == "status":
        status, text = last
        assert status == 503 and "NOT_READY" in text, last
    for kind, detail in outcomes:
        if kind == "ok":
            acked.update(detail)
    assert "stopped cleanly" in server.logs()
    # Sent before the signal by the client's clock; a request still on its way gets the 503.
    straddling = [o for t0, t1, o in spans if t0 <= term_at <= t1]
    print(
        f"{len(outcomes)} produce requests, in flight at SIGTERM: {straddling}, last: "
        f"{last_kind} {str(last)[:80]}; exit after {exit_seconds:.2f} s"
    )

    server.start()
    records, hw = read_partition(url, "drain", 0)
    stored = {r["offset"]: base64.b64decode(r["value"]).decode() for r in records}
    assert [r["offset"] for r in records] == list(range(hw))
    for offset, value in acked.items():
        assert stored.get(offset) == value, (offset, value, stored.get(offset))
    # Nothing unacknowledged beyond at most the one request that was cut.
    assert hw - len(acked) in (0, 200), (hw, len(acked))
    again = httpx.post(
        url + "/v1/topics/drain/records",
        timeout=10,
        json={"records": [{"value": "after", "partition": 0}]},
    )
    assert again.status_code == 200 and again.json()["offsets"][0]["offset"] == hw, again.text
    assert server.stop() == 0
    check_server_log(server.logs())


# -- 3. one server per data directory ---------------------------------------------------------


def test_second_server_on_same_dir_refuses(server_factory: ServerFactory) -> None:
    first = server_factory()
    first.start()
    create_topic(first.url, "solo", 1)
    other = server_factory(data_dir=first.data_dir)
    t0 = time.monotonic()
    second = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "serve",
            "--port",
            str(other.port),
            "--data-dir",
            str(first.data_dir),
        ],
        cwd=ROOT,
        env=other.env,
        capture_output=True,
        timeout=20,
    )
    elapsed = time.monotonic() - t0
    stderr = second.stderr.decode(errors="replace")
    assert second.returncode != 0, (second.returncode, stderr)
    assert "in use" in stderr, stderr
    assert elapsed < 5, f"the second server took {elapsed:.1f} s to give up"
    with pytest.raises(httpx.TransportError):
        httpx.get(other.url + "/readyz", timeout=1)

    assert first.proc is not None and first.proc.poll() is None
    assert httpx.get(first.url + "/readyz", timeout=5).status_code == 200
    r = httpx.post(
        first.url + "/v1/topics/solo/records",
        timeout=10,
        json={"records": [{"value": "still here"}]},
    )
    assert r.status_code == 200 and r.json()["offsets"][0]["offset"] == 0, r.text
    records, hw = read_partition(first.url, "solo", 0)
    assert hw == 1 and base64.b64decode(records[0]["value"]) == b"still here"
    assert first.stop() == 0
    check_server_log(first.logs())


# -- 4. torn tail -----------------------------------------------------------------------------


def active_segment(data_dir: Path, partition: int = 0) -> Path:
    topics = [d for d in (data_dir / "logs").iterdir() if d.is_dir() and d.name.isdigit()]
    assert len(topics) == 1, topics
    logs = sorted((topics[0] / str(partition)).glob("*.log"))
    assert logs and all(re.fullmatch(r"\d{20}\.log", p.name) for p in logs), logs
    return logs[-1]


@pytest.mark.parametrize("tear", ["garbage", "half_batch"])
def test_restart_recovers_after_torn_tail(server_factory: ServerFactory, tear: str) -> None:
    n = 50
    rng = random.Random(4242)
    server = server_factory()
    server.start()
    url = server.url
    create_topic(url, "torn", 1)
    values = [rng.randbytes(rng.randint(1, 200)) for _ in range(n)]
    for start in range(0, n, 10):
        r = httpx.post(
            url + "/v1/topics/torn/records",
            timeout=10,
            json={
                "encoding": "base64",
                "records": [
                    {
                        "key": b64(b"k%d" % i),
                        "value": b64(values[i]),
                        "headers": [{"key": "i", "value": b64(b"%d" % i)}],
                    }
                    for i in range(start, start + 10)
                ],
            },
        )
        assert r.status_code == 200, r.text
        assert [o["offset"] for o in r.json()["offsets"]] == list(range(start, start + 10))
    segment = active_segment(server.data_dir)
    valid_size = segment.stat().st_size
    if tear == "half_batch":
        # One more (acknowledged) batch whose second half then never reached the disk: the
        # shape of a torn write. Its records are expected to vanish.
        r = httpx.post(
            url + "/v1/topics/torn/records",
            timeout=10,
            json={"records": [{"value": "x" * 100} for _ in range(10)]},
        )
        assert r.status_code == 200, r.text
    server.kill()

    if tear == "garbage":
        with open(segment, "ab") as f:
            f.write(rng.randbytes(1000))
    else:
        end = segment.stat().st_size
        assert end > valid_size
        os.truncate(segment, valid_size + (end - valid_size) // 2)
    torn_size = segment.stat().st_size
    assert torn_size > valid_size

    server.start()
    assert segment.stat().st_size == valid_size, "the torn tail was not truncated"
    records, hw = read_partition(url, "torn", 0)
    assert hw == n
    assert [rec["offset"] for rec in records] == list(range(n))
    for i, rec in enumerate(records):
        assert unb64(rec["key"]) == b"k%d" % i
        assert unb64(rec["value"]) == values[i]
        assert [(h["key"], unb64(h["value"])) for h in rec["headers"]] == [("i", b"%d" % i)]
    logs = server.logs()
    lines = [ln for ln in logs.splitlines() if str(segment) in ln and "truncat" in ln.lower()]
    assert lines, logs[-3000:]
    assert any(f"byte {valid_size}" in ln for ln in lines), lines
    assert all(" WARNING " in ln for ln in lines), lines

    r = httpx.post(
        url + "/v1/topics/torn/records",
        timeout=10,
        json={"records": [{"value": "next"}, {"value": "after"}]},
    )
    assert r.status_code == 200, r.text
    assert [o["offset"] for o in r.json()["offsets"]] == [n, n + 1]
    records, hw = read_partition(url, "torn", 0)
    assert hw == n + 2
    assert [unb64(r["value"]) for r in records[n:]] == [b"next", b"after"]
    assert server.stop() == 0
    # A clean restart after the repair finds nothing more to truncate.
    before = server.logs().count("truncating")
    server.start()
    assert high_watermarks(url, "torn") == {0: n + 2}
    assert server.stop() == 0
    assert server.logs().count("truncating") == before
    check_server_log(server.logs())
