"""Exactly-once consume-transform-produce under crashes, against a real server process.

Three workers read 50,000 input records from a consumer group, write one result per input to
an output topic and send the input offsets in the same transaction (KIP-447: one
transactional id per worker, offsets fenced by member epoch, stable offset fetches). Meanwhile
the server is killed with SIGKILL and restarted 5 times, and workers are killed at random (a
killed worker abandons its membership and its open transaction; its next incarnation joins
again and fences the old one by re-initialising the same transactional id).

At the end the output topic, read with read_committed, holds every input's result exactly
once, and the group's committed offsets cover the whole input.

The seed is printed and can be pinned with ``SLUICE_EOS_SEED=<int>``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.e2e.eos import Api, ApiError, owned

pytestmark = pytest.mark.slow

INPUTS = 50_000
PARTITIONS = 3
WORKERS = 3
SERVER_KILLS = 5
BATCH = 200
GROUP = "eos"
ENV = {
    "SLUICE_GROUP_SESSION_TIMEOUT_MS": "1000",
    "SLUICE_GROUP_HEARTBEAT_INTERVAL_MS": "1000",
    "SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS": "200",
}
# errors after which a worker gives up its incarnation and starts a new one
RESTART = {
    "PRODUCER_FENCED",
    "INVALID_PRODUCER_EPOCH",
    "TRANSACTION_TIMED_OUT",
    "ILLEGAL_GENERATION",
    "STALE_MEMBER_EPOCH",
    "UNKNOWN_MEMBER_ID",
    "FENCED_MEMBER_EPOCH",
    "INVALID_TXN_STATE",
    "OUT_OF_ORDER_SEQUENCE_NUMBER",
}


@dataclass
class Stats:
    commits: int = 0
    worker_kills: int = 0
    incarnations: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Killed(Exception):
    """The worker is killed here: it abandons everything it holds."""


def incarnation(
    api: Api, wid: int, rng: random.Random, stats: Stats, stop: threading.Event
) -> None:
    """One life of a worker, until it is killed, fenced or told to stop."""
    tid = f"eos-worker-{wid}"
    got = api.heartbeat(GROUP, None, 0, ["in"])
    member, epoch = got["member_id"], got["member_epoch"]
    pid, pepoch = api.init_producer(tid, timeout_ms=5000)

    def maybe_die() -> None:
        if rng.random() < 0.03:
            raise Killed

    while not stop.is_set():
        got = api.heartbeat(GROUP, member, epoch, ["in"])
        epoch = got["member_epoch"]
        mine = sorted(owned(got["assignment"], "in"))
        if not mine:
            time.sleep(0.02)
        for p in mine:
            offsets = api.committed(GROUP, "in", require_stable=True)
            entry = offsets.get(p)
            if entry is not None and entry.get("error"):
                assert entry["error"]["code"] == "PENDING_TRANSACTION", entry
                time.sleep(0.02)
                continue
            start = max(int(entry["offset"]) if entry else -1, 0)
            page = api.read("in", p, start, max_records=BATCH)
            if not page["records"]:
                continue
            maybe_die()
            results = [
                {"key": r["value"], "value": "result-of-" + r["value"]} for r in page["records"]
            ]
            api.txn_produce(tid, pid, pepoch, "out", p, 0, results)
            maybe_die()
            api.send_offsets(
                tid, pid, pepoch, GROUP, member, epoch, {("in", p): page["next_offset"]}
            )
            maybe_die()
            pid, pepoch = api.commit(tid, pid, pepoch)
            with stats.lock:
                stats.commits += 1


def worker(url: str, wid: int, seed: int, stats: Stats, stop: threading.Event) -> None:
    rng = random.Random(seed * 100 + wid)
    api = Api(url, timeout=10)
    try:
        while not stop.is_set():
            with stats.lock:
                stats.incarnations += 1
            try:
                incarnation(api, wid, rng, stats, stop)
            except Killed:
                with stats.lock:
                    stats.worker_kills += 1
            except ApiError as e:
                with stats.lock:
                    stats.errors[e.code] += 1
                if e.code not in RESTART and e.code not in ("NOT_READY", "CONCURRENT_TRANSACTIONS"):
                    stats.problems.append(f"worker {wid}: unexpected {e}")
                    return
                time.sleep(0.05)
            except httpx.TransportError:
                with stats.lock:
                    stats.errors["transport"] += 1
                time.sleep(0.1)  # the server is down: the next incarnation retries
    except Exception as e:
        stats.problems.append(f"worker {wid}: {e!r}")
    finally:
        api.close()


def committed_total(api: Api) -> int:
    offsets = api.committed(GROUP, "in", require_stable=False)
    return sum(max(int(o["offset"]), 0) for o in offsets.values() if not o.get("error"))


def test_exactly_once_across_server_and_worker_kills(
    server_factory: Callable[..., ServerProcess],
) -> None:
    seed = int(os.environ.get("SLUICE_EOS_SEED", random.randrange(1 << 30)))
    print(f"SLUICE_EOS_SEED={seed}")
    server = server_factory(**ENV)
    server.start()
    api = Api(server.url)
    api.create_topic("in", PARTITIONS)
    api.create_topic("out", PARTITIONS)
    for start in range(0, INPUTS, 1000):
        api.produce(
            "in",
            [
                {"value": f"i-{i:05d}", "partition": i % PARTITIONS}
                for i in range(start, start + 1000)
            ],
            idempotency_key=f"in-{start}",
        )

    stats = Stats()
    stop = threading.Event()
    threads = [
        threading.Thread(
            target=worker, args=(server.url, w, seed, stats, stop), name=f"eos-worker-{w}"
        )
        for w in range(WORKERS)
    ]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 600
    kills = 0
    last = 0
    try:
        while time.monotonic() < deadline and not stats.problems:
            try:
                done = committed_total(api)
            except (httpx.TransportError, ApiError):
                time.sleep(0.1)
                continue
            if done >= INPUTS:
                break
            if kills < SERVER_KILLS and done >= last + INPUTS // (SERVER_KILLS + 2):
                server.kill()
                server.start()
                kills += 1
                last = done
            time.sleep(0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    print(f"server kills {kills}, {stats}")
    assert not stats.problems, stats.problems
    assert kills == SERVER_KILLS
    assert stats.worker_kills > 0

    results: Counter[str] = Counter()
    for p in range(PARTITIONS):
        for r in api.read_all("out", p, committed=True):
            results[r["value"]] += 1
            assert r["key"] is not None and int(r["key"][2:]) % PARTITIONS == p, r
    duplicates = {v: n for v, n in results.items() if n > 1}
    missing = [i for i in range(INPUTS) if f"result-of-i-{i:05d}" not in results]
    assert not duplicates, f"{len(duplicates)} duplicated results, e.g. {list(duplicates)[:5]}"
    assert not missing, f"{len(missing)} missing results, e.g. {missing[:5]}"
    assert len(results) == INPUTS
    hw = {p["partition"]: p["high_watermark"] for p in api.get("/v1/topics/in")["partitions"]}
    committed = api.committed(GROUP, "in", require_stable=True)
    assert {p: int(committed[p]["offset"]) for p in range(PARTITIONS)} == hw
    api.close()
    assert server.stop() == 0
