"""Exactly-once queue processing from a share group, against a real server process.

Consumers fetch input records from a share group, produce one result per record to an output
topic and acknowledge the inputs in the same transaction, in two forms: step by step (POST
/v1/produce, POST /v1/transactions/{tid}/acknowledgements, commit;
docs/semantics.md#transactional-acknowledgements) and in one request (the commit carries the
records and the acknowledgements; docs/semantics.md#transaction-one-request), the latter with
commits answered at their decision (SLUICE_TXN_ANSWER=prepare), so that kills also land while
markers are written in the background.
Consumers are killed at random: a killed consumer abandons its open transaction (each life uses
a new transactional id, so only the transaction timeout ends it; its held records are released
then) and the records it acquired outside a transaction (their lock expires). The server is
killed with SIGKILL and restarted while that goes on; held acknowledgements survive it.

At the end the output topic, read with read_committed, holds every input's result exactly
once (by id: no duplicate, none lost), and every input record is acknowledged (each share
partition's start offset is the input's end, and none was archived instead).

The seed is printed and can be pinned with ``SLUICE_SHARE_EOS_SEED=<int>``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.e2e.eos import Api, ApiError

pytestmark = pytest.mark.slow

INPUTS = 2000
PARTITIONS = 2
CONSUMERS = 3
SERVER_KILLS = 2
BATCH = 25
COMMITS = INPUTS // BATCH  # about as many transactions commit
GROUP = "sq"
TXN_TIMEOUT_MS = 2000
ENV = {"SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS": "200"}
# errors after which a consumer gives up its life and starts a new one
RESTART = {
    "PRODUCER_FENCED",
    "INVALID_PRODUCER_EPOCH",
    "TRANSACTION_TIMED_OUT",
    "UNKNOWN_MEMBER_ID",
    "INVALID_TXN_STATE",
    "NOT_READY",
    "CONCURRENT_TRANSACTIONS",
}


@dataclass
class Stats:
    commits: int = 0
    aborts: int = 0
    consumer_kills: int = 0
    lives: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + 1)


class Killed(Exception):
    """The consumer is killed here: it abandons everything it holds."""


def life(
    api: Api,
    cid: int,
    n: int,
    rng: random.Random,
    stats: Stats,
    stop: threading.Event,
    one_request: bool,
) -> None:
    """One life of a consumer, until it is killed, fenced or told to stop."""
    tid = f"sq-consumer-{cid}-{n}"
    pid, epoch = api.init_producer(tid, timeout_ms=TXN_TIMEOUT_MS)
    member: str | None = None

    def maybe_die() -> None:
        if rng.random() < 0.04:
            raise Killed

    while not stop.is_set():
        got = api.post(
            f"/v1/share-groups/{GROUP}/fetch",
            {
                "member_id": member,
                "subscribed_topics": ["in"],
                "max_records": BATCH,
                "acquire_mode": "record_limit",
                "max_wait_ms": 200,
            },
        )
        member = got["member_id"]
        if not got["records"]:
            continue
        maybe_die()
        by_partition: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for r in got["records"]:
            by_partition[r["partition"]].append(
                {"key": r["value"], "value": "result-of-" + r["value"]}
            )
        batches = [
            {"topic": "out", "partition": p, "base_sequence": 0, "records": rs}
            for p, rs in sorted(by_partition.items())
        ]
        accepts = [
            {
                "topic": a["topic"],
                "partition": a["partition"],
                "first_offset": a["first_offset"],
                "last_offset": a["last_offset"],
                "type": "accept",
                "delivery_count": a["delivery_count"],
            }
            for a in got["acquired"]
        ]
        if one_request:
            maybe_die()
            try:
                answer = api.post(
                    f"/v1/transactions/{tid}/commit",
                    {
                        "producer_id": pid,
                        "producer_epoch": epoch,
                        "batches": batches,
                        "share_acknowledgements": [
                            {"group_id": GROUP, "member_id": member, "acknowledgements": accepts}
                        ],
                    },
                )
            except ApiError as refused:
                if refused.code != "INVALID_RECORD_STATE":  # a lock expired while we worked
                    raise
                with stats.lock:
                    stats.errors[refused.code] += 1
                continue  # nothing of the request took effect: the transaction is as it was
            pid, epoch = answer["producer_id"], answer["producer_epoch"]
            stats.add("commits")
            continue
        answer = api.post(
            "/v1/produce",
            {
                "producer_id": pid,
                "producer_epoch": epoch,
                "transactional_id": tid,
                "batches": batches,
            },
        )
        failed = [b["error"] for b in answer["batches"] if b["error"]]
        maybe_die()
        if not failed:
            answer = api.post(
                f"/v1/transactions/{tid}/acknowledgements",
                {
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "group_id": GROUP,
                    "member_id": member,
                    "acknowledgements": accepts,
                },
            )
            failed = [x["error"] for x in answer["results"] if x["error"]]
        maybe_die()
        if failed:  # e.g. a lock expired while we worked: start over with these records
            for e in failed:
                with stats.lock:
                    stats.errors[e["code"]] += 1
                if e["code"] not in ("INVALID_RECORD_STATE", "INVALID_PRODUCER_EPOCH"):
                    stats.problems.append(f"consumer {cid}: unexpected {e}")
            pid, epoch = api.abort(tid, pid, epoch)
            stats.add("aborts")
            continue
        pid, epoch = api.commit(tid, pid, epoch)
        stats.add("commits")


def consumer(
    url: str, cid: int, seed: int, stats: Stats, stop: threading.Event, one_request: bool
) -> None:
    rng = random.Random(seed * 100 + cid)
    api = Api(url, timeout=10)
    n = 0
    try:
        while not stop.is_set():
            n += 1
            stats.add("lives")
            try:
                life(api, cid, n, rng, stats, stop, one_request)
            except Killed:
                stats.add("consumer_kills")
            except ApiError as e:
                with stats.lock:
                    stats.errors[e.code] += 1
                if e.code not in RESTART:
                    stats.problems.append(f"consumer {cid}: unexpected {e}")
                    return
                time.sleep(0.05)
            except httpx.TransportError:
                with stats.lock:
                    stats.errors["transport"] += 1
                time.sleep(0.1)  # the server is down: the next life retries
    except Exception as e:
        stats.problems.append(f"consumer {cid}: {e!r}")
    finally:
        api.close()


def acknowledged(api: Api, ends: dict[int, int]) -> int:
    """Input records below the share partitions' start offsets."""
    d = api.get(f"/v1/share-groups/{GROUP}")
    starts = {p["partition"]: p["start_offset"] for p in d["partitions"] if p["topic"] == "in"}
    return sum(min(starts.get(p, 0), end) for p, end in ends.items())


@pytest.mark.embedded_only("transactional_share_acknowledgements")
@pytest.mark.parametrize(
    ("one_request", "env"),
    [(False, ENV), (True, {**ENV, "SLUICE_TXN_ANSWER": "prepare"})],
    ids=["step-by-step", "one-request"],
)
def test_exactly_once_from_a_share_group_across_consumer_and_server_kills(
    server_factory: Callable[..., ServerProcess], one_request: bool, env: dict[str, str]
) -> None:
    seed = int(os.environ.get("SLUICE_SHARE_EOS_SEED", random.randrange(1 << 30)))
    print(f"SLUICE_SHARE_EOS_SEED={seed}")
    server = server_factory(**env)
    server.start()
    api = Api(server.url)
    api.create_topic("in", PARTITIONS)
    api.create_topic("out", PARTITIONS)
    api.client.patch(
        f"/v1/share-groups/{GROUP}/config",
        json={
            "auto_offset_reset": "earliest",
            "record_lock_duration_ms": 4000,
            "delivery_count_limit": 10,
        },
    ).raise_for_status()
    for start in range(0, INPUTS, 500):
        api.produce(
            "in",
            [
                {"value": f"i-{i:05d}", "partition": i % PARTITIONS}
                for i in range(start, start + 500)
            ],
            idempotency_key=f"in-{start}",
        )
    ends = {p["partition"]: p["high_watermark"] for p in api.get("/v1/topics/in")["partitions"]}
    assert sum(ends.values()) == INPUTS

    stats = Stats()
    stop = threading.Event()
    threads = [
        threading.Thread(
            target=consumer,
            args=(server.url, c, seed, stats, stop, one_request),
            name=f"sq-consumer-{c}",
        )
        for c in range(CONSUMERS)
    ]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 50
    kills = 0
    done = 0
    try:
        while time.monotonic() < deadline and not stats.problems:
            try:
                done = acknowledged(api, ends)
            except (httpx.TransportError, ApiError):
                time.sleep(0.1)
                continue
            if done >= INPUTS:
                break
            # kill by commits made (steady), not by the start offsets (they jump when an
            # abandoned transaction's timeout releases the records holding them back)
            if kills < SERVER_KILLS and stats.commits >= (kills + 1) * COMMITS // (
                SERVER_KILLS + 2
            ):
                server.kill()
                server.start()
                kills += 1
            time.sleep(0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    print(f"server kills {kills}, acknowledged {done}, {stats}")
    assert not stats.problems, stats.problems
    assert done == INPUTS, f"only {done} of {INPUTS} inputs acknowledged in time"
    assert kills == SERVER_KILLS
    assert stats.consumer_kills > 0
    # transactions abandoned by killed consumers end by their timeout; until then they hold
    # back the output's last stable offset (in the one-request form they hold no input records,
    # so every input can be acknowledged before they end)
    deadline = time.monotonic() + 30
    while undecided := [
        t["transactional_id"]
        for t in api.get("/v1/transactions")["transactions"]
        if t["state"] not in ("Empty", "CompleteCommit", "CompleteAbort")
    ]:
        assert time.monotonic() < deadline, f"transactions still open: {undecided}"
        time.sleep(0.1)

    results: Counter[str] = Counter()
    for p in range(PARTITIONS):
        for r in api.read_all("out", p, committed=True):
            results[r["value"]] += 1
            assert int(r["key"][2:]) % PARTITIONS == p, r
    duplicates = {v: n for v, n in results.items() if n > 1}
    missing = [i for i in range(INPUTS) if f"result-of-i-{i:05d}" not in results]
    assert not duplicates, f"{len(duplicates)} duplicated results, e.g. {list(duplicates)[:5]}"
    assert not missing, f"{len(missing)} missing results, e.g. {missing[:5]}"
    assert len(results) == INPUTS
    # every input acknowledged, none archived: the results prove each was accepted by a
    # committed transaction, and the windows are empty at the inputs' ends
    d = api.get(f"/v1/share-groups/{GROUP}")
    assert {p["partition"]: (p["start_offset"], p["lag"]) for p in d["partitions"]} == {
        p: (end, 0) for p, end in ends.items()
    }
    api.close()
    assert server.stop() == 0
