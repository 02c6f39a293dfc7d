"""Failover trials: kill -9 the leader of the partition in use under two gateways, check every id.

    python -m benchmarks.failover                    # 20 trials of each kind
    python -m benchmarks.failover --trials 3 --kinds produce,share

A three-node Kafka cluster (kafka/cluster.sh, in a run directory of its own, ``kafka/run-failover``
unless ``--run-dir`` says otherwise; replication factor 3, ``min.insync.replicas`` 2) with the
broker session timeout lowered to ``--broker-session-ms`` (3 s; Kafka's is 9 s), so that the
controllers fence a dead broker and move its leaderships within seconds. Two gateways
(``SLUICE_BACKEND=kafka``) serve it. Each trial creates a topic of one partition, starts its
workload through both gateways, and once every worker has been answered a few times kills the
partition's leader with SIGKILL (``kafka/cluster.sh kill N``). The workload goes on until every
worker has been answered again after the kill, then the killed node is started again
(``kafka/cluster.sh restart N``) and the next trial waits for every partition to have its three
replicas in sync.

The clients retry what the gateway answers as retriable (``"retriable": true`` in the error, and
connections refused), as the project's Python client does, with a jittered back-off; each answer
other than 2xx is counted by status and code, and one that is not retriable is a failure.

- ``produce``: two workers per gateway produce JSON records (ids in the values). Checked: every
  id answered 200 is read back by a native ``read_committed`` consumer (a retried request may
  write its records twice: plain produce is at least once, and the duplicates are counted).
- ``share``: the topic is filled first; one member per gateway fetches (``record_limit``, at
  most 20 records a fetch) and acknowledges (``accept``) what it got. The kill also waits until
  each member holds records it fetched and has not acknowledged yet (up to ``HOLD_WAIT_S``);
  they acknowledge them after it. Checked: no id's acceptance is answered as applied twice, no
  id is delivered again after its acceptance was answered, every id ends accepted, and every id
  held when the leader was killed is delivered again (the ids delivered again, and those a fetch
  answered with a ``delivery_count`` above 1, are counted).
- ``transactions``: two transactional producers per gateway commit transactions of a few
  records each in one request; every fourth transaction is produced and aborted instead.
  Checked with a native ``read_committed`` consumer: every committed transaction's ids once
  each, no aborted id, and a transaction whose end was never answered all or nothing.

Writes ``benchmarks/results/failover-<commit>.json``; the exit status is 1 if any trial failed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks._harness import (
    REPO_ROOT,
    RESULTS_DIR,
    ServerProcess,
    Workdir,
    git_info,
    log,
    sluice_server,
    write_result,
)

NAME = "failover"
KINDS = ("produce", "share", "transactions")
SCRIPT = REPO_ROOT / "kafka" / "cluster.sh"
RUN_DIR = REPO_ROOT / "kafka" / "run-failover"
BROKERS = 3
BROKER_SESSION_MS = 3000
BROKER_HEARTBEAT_MS = 500
# how long one request is retried before the trial counts it as unanswered
REQUEST_DEADLINE_S = 60.0
# answers every worker needs before the kill, and again after it
ANSWERS_BEFORE = 3
ANSWERS_AFTER = 3
TRIAL_DEADLINE_S = 120.0
# how long the kill waits, once every worker was answered, for the share members to hold
# records (fetched, not yet acknowledged); it kills all the same after it
HOLD_WAIT_S = 10.0
CLUSTER_TIMEOUT_S = 300.0
# the native clients' own logs of the connections to the killed node refused: expected here
QUIET = {"log_level": 0}


# --- the cluster ---------------------------------------------------------------------------


class Cluster:
    """The three nodes of a run directory of their own, driven through kafka/cluster.sh."""

    def __init__(self, run_dir: Path, session_ms: int, heartbeat_ms: int) -> None:
        self.run_dir = run_dir
        self.session_ms = session_ms
        self.heartbeat_ms = heartbeat_ms
        self.bootstrap = ""
        self.started = False

    def _script(self, *args: str, timeout: float = CLUSTER_TIMEOUT_S) -> str:
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        env["KAFKA_RUN_DIR"] = str(self.run_dir)
        env["KAFKA_BROKER_SESSION_TIMEOUT_MS"] = str(self.session_ms)
        env["KAFKA_BROKER_HEARTBEAT_INTERVAL_MS"] = str(self.heartbeat_ms)
        done = subprocess.run(
            ["bash", str(SCRIPT), *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"kafka/cluster.sh {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout.strip()

    def start(self) -> str:
        """Start the three nodes, or reuse those already running from the run directory when
        they were started with this session timeout."""
        props = self.run_dir / "node-1" / "server.properties"
        want = f"broker.session.timeout.ms={self.session_ms}"
        status = subprocess.run(
            ["bash", str(SCRIPT), "status"],
            env={**os.environ, "KAFKA_RUN_DIR": str(self.run_dir)},
            capture_output=True,
            text=True,
            check=False,
        )
        if status.returncode == 0 and props.exists() and want not in props.read_text():
            self._script("stop")  # a cluster of this run directory with other timeouts
        self.bootstrap = self._script("start", str(BROKERS)).splitlines()[-1]
        self.started = True
        return self.bootstrap

    def stop(self) -> None:
        if self.started:
            self._script("stop")
            self.started = False

    def kill(self, node: int) -> None:
        self._script("kill", str(node))

    def restart(self, node: int) -> None:
        self._script("restart", str(node))

    def admin(self) -> Any:
        from confluent_kafka.admin import AdminClient

        return AdminClient({"bootstrap.servers": self.bootstrap, **QUIET})

    def leader(self, topic: str, partition: int = 0) -> int:
        """The node that leads ``topic``-``partition`` now, as the cluster's metadata says."""
        deadline = time.monotonic() + 60
        while True:
            meta = self.admin().list_topics(topic, timeout=10)
            t = meta.topics.get(topic)
            if t is not None and t.error is None and partition in t.partitions:
                leader = t.partitions[partition].leader
                if leader >= 0:
                    return int(leader)
            if time.monotonic() > deadline:
                raise RuntimeError(f"{topic}-{partition} has no leader after 60 s")
            time.sleep(0.1)

    def new_leader(self, topic: str, old: int, partition: int = 0) -> tuple[int, float]:
        """Wait until the metadata names a leader other than ``old``; returns it and the
        seconds it took."""
        began = time.monotonic()
        while True:
            leader = self.leader(topic, partition)
            if leader != old:
                return leader, time.monotonic() - began
            if time.monotonic() - began > 60:
                raise RuntimeError(f"{topic}-{partition} still led by {old} after 60 s")
            time.sleep(0.1)

    def wait_in_sync(self, timeout: float = 120.0) -> float:
        """Wait until every partition of every topic, Kafka's own among them, has all three
        replicas in sync and a leader; returns the seconds it took."""
        began = time.monotonic()
        admin = self.admin()
        while True:
            try:
                meta = admin.list_topics(timeout=10)
                behind = [
                    f"{name}-{p.id}"
                    for name, t in meta.topics.items()
                    for p in t.partitions.values()
                    if len(p.isrs) < BROKERS or p.leader < 0
                ]
                if len(meta.brokers) == BROKERS and not behind:
                    return time.monotonic() - began
            except Exception:  # a broker still starting: asked again
                behind = ["(metadata)"]
            if time.monotonic() - began > timeout:
                raise RuntimeError(f"not in sync after {timeout:.0f} s: {behind[:10]}")
            time.sleep(0.2)


def read_committed(bootstrap: str, topic: str, partition: int = 0) -> list[str]:
    """Every value of ``topic``-``partition`` a native ``read_committed`` consumer reads, in
    offset order."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"failover-check-{topic}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            **QUIET,
        }
    )
    try:
        tp = TopicPartition(topic, partition)
        _, high = consumer.get_watermark_offsets(tp, timeout=30)
        consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
        values: list[str] = []
        deadline = time.monotonic() + 120
        while high > 0:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                values.append((msg.value() or b"").decode())
            positions = consumer.position([tp])
            if positions and positions[0].offset >= high:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{topic}-{partition} not read to {high} in 120 s")
        return values
    finally:
        consumer.close()


# --- the gateways and their clients ----------------------------------------------------------


@contextmanager
def gateways(bootstrap: str, work: Path, count: int = 2) -> Iterator[list[ServerProcess]]:
    """``count`` gateway processes on the cluster, each on a port of its own."""
    servers = [
        sluice_server(
            work / f"gateway-{i}",
            work / f"gateway-{i}.log",
            extra_env={"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": bootstrap},
        )
        for i in range(count)
    ]
    try:
        for s in servers:
            s.start()
        for s in servers:
            s.wait_ready(timeout=120)
        yield servers
    finally:
        for s in servers:
            s.kill()


class Unanswered(Exception):
    """A request that got no 2xx answer: retried until the deadline, or refused for good."""

    def __init__(self, status: int, code: str, body: Any) -> None:
        super().__init__(f"{status} {code}: {body}")
        self.status = status
        self.code = code
        self.body = body


@dataclass
class Answers:
    """What the gateways answered other than 2xx, counted, and when the clients were answered."""

    errors: Counter[str] = field(default_factory=Counter)
    not_retriable: list[str] = field(default_factory=list)
    killed_at: float | None = None  # when the killed node's process was gone
    # per worker: seconds from the kill to its first 2xx after it, and the longest it went
    # without a 2xx from the kill on (the outage it saw)
    recovered_after: dict[str, float] = field(default_factory=dict)
    outage: dict[str, float] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)
    before: Counter[str] = field(default_factory=Counter)
    after: Counter[str] = field(default_factory=Counter)

    def answered(self, worker: str) -> None:
        now = time.monotonic()
        if self.killed_at is None:
            self.before[worker] += 1
            self.last[worker] = now
            return
        gap = now - max(self.last.get(worker, self.killed_at), self.killed_at)
        self.outage[worker] = round(max(self.outage.get(worker, 0.0), gap), 2)
        self.last[worker] = now
        self.after[worker] += 1
        self.recovered_after.setdefault(worker, round(now - self.killed_at, 2))

    def killed(self) -> None:
        """From now on answers count as after the kill (those that came while the node was
        being killed count as before it)."""
        self.killed_at = time.monotonic()


async def call(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    answers: Answers,
    *,
    body: Any = None,
    accept: Callable[[int, str], bool] = lambda status, code: False,
    retried: list[str] | None = None,
) -> Any:
    """One request, sent again after a retriable error (the error's ``retriable``, or a
    connection refused or lost) with a jittered back-off doubling from 50 ms to 1 s, until
    ``REQUEST_DEADLINE_S``. ``accept(status, code)`` names the errors the caller handles
    itself: raised as ``Unanswered`` at once, like one that is not retriable. Each attempt
    sent again is noted in ``retried`` (its status and code): an attempt that got no answer
    may have been applied all the same."""
    deadline = time.monotonic() + REQUEST_DEADLINE_S
    delay = 0.05
    while True:
        try:
            r = await http.request(method, url, json=body, timeout=40.0)
        except httpx.TransportError as e:
            answers.errors[f"transport {type(e).__name__}"] += 1
            status, code, retriable, payload = 0, type(e).__name__, True, str(e)
        else:
            if r.status_code < 300:
                return r.json() if r.content else None
            payload = r.json() if r.content else {}
            err = payload.get("error") or {}
            status, code, retriable = (
                r.status_code,
                str(err.get("code")),
                bool(err.get("retriable")),
            )
            answers.errors[f"{status} {code}"] += 1
            if accept(status, code):
                raise Unanswered(status, code, payload)
            if not retriable:
                answers.not_retriable.append(f"{method} {url}: {status} {code} {payload}")
                raise Unanswered(status, code, payload)
        if time.monotonic() > deadline:
            raise Unanswered(status, code, payload)
        if retried is not None:
            retried.append(f"{status} {code}")
        await asyncio.sleep(min(delay, 1.0) * (0.5 + random.random() / 2))
        delay *= 2


async def create_topic(http: httpx.AsyncClient, base: str, topic: str) -> None:
    r = await http.post(f"{base}/v1/topics", json={"name": topic, "partitions": 1}, timeout=60)
    if r.status_code != 201:
        raise RuntimeError(f"creating {topic}: {r.status_code} {r.text}")


# --- the trials ----------------------------------------------------------------------------


@dataclass
class Trial:
    """One trial's workload: ``run(worker, base_url)`` loops until ``stopping`` is set."""

    kind: str
    topic: str
    answers: Answers = field(default_factory=Answers)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    failures: list[str] = field(default_factory=list)
    # set once the leader was killed (or the trial ended without a kill)
    killed: asyncio.Event = field(default_factory=asyncio.Event)
    # per worker, the ids it holds waiting for the kill, and those it held when it came
    holding: dict[str, list[str]] = field(default_factory=dict)
    held_at_kill: dict[str, list[str]] = field(default_factory=dict)


async def _drive(
    cluster: Cluster,
    trial: Trial,
    urls: list[str],
    workers_per_gateway: int,
    work: Callable[[str, str], Coroutine[Any, Any, None]],
    hold: bool = False,
) -> dict[str, Any]:
    """Run the workers, kill the topic's leader once each was answered ``ANSWERS_BEFORE`` times,
    stop them once each was answered ``ANSWERS_AFTER`` times after it, restart the node.

    With ``hold``, the kill also waits (up to ``HOLD_WAIT_S``) until every worker holds records
    in ``trial.holding``, waiting for ``trial.killed`` before it goes on."""
    workers = [f"g{g}w{w}" for g in range(len(urls)) for w in range(workers_per_gateway)]
    tasks = [
        asyncio.create_task(work(name, urls[i // workers_per_gateway]))
        for i, name in enumerate(workers)
    ]
    answers = trial.answers
    began = time.monotonic()

    async def until(done: Callable[[], bool], what: str) -> None:
        while not done():
            failed = [t for t in tasks if t.done()]
            if failed:
                await asyncio.gather(*failed)  # raises the worker's error
                raise RuntimeError(f"a worker ended before {what}")
            if time.monotonic() - began > TRIAL_DEADLINE_S:
                raise RuntimeError(f"no {what} within {TRIAL_DEADLINE_S:.0f} s: {answers}")
            await asyncio.sleep(0.05)

    leader = -1
    restarted_s = 0.0
    try:
        await until(lambda: all(answers.before[w] >= ANSWERS_BEFORE for w in workers), "answers")
        if hold:
            held_by = time.monotonic() + HOLD_WAIT_S
            await until(
                lambda: len(trial.holding) == len(workers) or time.monotonic() > held_by,
                "records held",
            )
        leader = await asyncio.to_thread(cluster.leader, trial.topic)
        await asyncio.to_thread(cluster.kill, leader)
        answers.killed()
        # nothing ran between the kill's end and here: what is held now was held by the
        # sessions of the dead leader, and is acknowledged only after its death
        trial.held_at_kill = {w: list(v) for w, v in trial.holding.items()}
        trial.killed.set()
        moved = asyncio.create_task(asyncio.to_thread(cluster.new_leader, trial.topic, leader))
        await until(
            lambda: all(answers.after[w] >= ANSWERS_AFTER for w in workers), "answers after"
        )
        new_leader, leader_moved_s = await moved
    finally:
        trial.stopping.set()
        trial.killed.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        if leader > 0:
            t0 = time.monotonic()
            await asyncio.to_thread(cluster.restart, leader)
            restarted_s = time.monotonic() - t0
    for t in tasks:
        if t.exception() is not None:
            trial.failures.append(f"worker: {t.exception()!r}")
    recovered = list(answers.recovered_after.values())
    return {
        "killed_node": leader,
        "new_leader": new_leader,
        "workers": len(workers),
        "leader_moved_s": round(leader_moved_s, 2),
        "recovered_s_max": max(recovered) if recovered else None,
        "recovered_s": answers.recovered_after,
        "outage_s_max": max(answers.outage.values(), default=None),
        "outage_s": answers.outage,
        "errors": dict(answers.errors),
        "not_retriable": answers.not_retriable[:20],
        "restart_listen_s": round(restarted_s, 1),
        "held_at_kill": {w: len(v) for w, v in trial.held_at_kill.items()},
    }


async def produce_trial(cluster: Cluster, urls: list[str], seq: int) -> dict[str, Any]:
    trial = Trial("produce", f"failover-produce-{seq}-{random.randrange(1 << 30)}")
    acked: set[str] = set()
    unanswered = 0
    async with httpx.AsyncClient() as http:
        await create_topic(http, urls[0], trial.topic)

        async def worker(name: str, base: str) -> None:
            nonlocal unanswered
            for n in itertools.count():
                if trial.stopping.is_set():
                    return
                ids = [f"{name}-{n}-{i}" for i in range(10)]
                body = {"records": [{"value": v} for v in ids], "encoding": "utf8"}
                try:
                    await call(
                        http,
                        "POST",
                        f"{base}/v1/topics/{trial.topic}/records",
                        trial.answers,
                        body=body,
                    )
                except Unanswered:
                    unanswered += 1
                    continue
                acked.update(ids)
                trial.answers.answered(name)

        out = await _drive(cluster, trial, urls, 2, worker)
    values = await asyncio.to_thread(read_committed, cluster.bootstrap, trial.topic)
    counts = Counter(values)
    lost = sorted(acked - counts.keys())
    if lost:
        trial.failures.append(f"{len(lost)} ids answered 200 and not read back: {lost[:10]}")
    if trial.answers.not_retriable:
        trial.failures.append(f"answers not retriable: {trial.answers.not_retriable[:3]}")
    return {
        "kind": "produce",
        **out,
        "acked_ids": len(acked),
        "read_ids": len(counts),
        "duplicated_ids": sum(1 for c in counts.values() if c > 1),
        "requests_unanswered": unanswered,
        "failures": trial.failures,
    }


SHARE_RECORDS = 600
# how long the share trial's drain fetches, after the workers stopped, for ids not yet accepted
DRAIN_S = 90.0


@dataclass
class Acceptances:
    """What the members of a share trial were told of each id: delivered, and its acceptance
    applied, refused or unsure.

    An acceptance is unsure when no answer came (retried until the deadline, or its member
    lost), and also when it was refused only after an attempt that got no answer and was sent
    again. The leader may have applied that attempt (written the records' state) before it
    died, and the attempt sent again reaches the new leader, where the member's share session
    holds none of the records: it is refused (``INVALID_RECORD_STATE``) whether the first was
    applied or not. An acceptance that was not applied lost its records' locks with the
    leader: they are delivered again, and accepted then. One that was applied leaves nothing
    to deliver, and the group's lag (records of the partition neither acknowledged nor
    archived) comes to 0.

    ``held`` are the ids the members held (fetched, their acceptance not yet sent) when the
    leader was killed: acknowledged only after its death, never applied by it, so each must be
    delivered again."""

    accepted: Counter[str] = field(default_factory=Counter)  # answered as applied
    unsure: set[str] = field(default_factory=set)
    delivered: Counter[str] = field(default_factory=Counter)
    after_accept: list[str] = field(default_factory=list)
    refused_after_no_answer: int = 0  # acknowledgements refused once sent again
    held: set[str] = field(default_factory=set)

    def deliver(self, values: list[str]) -> None:
        for v in values:
            self.delivered[v] += 1
            if self.accepted[v]:
                self.after_accept.append(v)

    def answered(self, values: list[str], results: list[dict[str, Any]], retried: list[str]) -> str:
        """The answer to accepting ``values``: the acknowledgement's ``results``, after the
        attempts sent again of ``retried``. Returns the codes of a refusal ("" when applied)."""
        refused = ",".join(str(r["error"]["code"]) for r in results if r["error"])
        if not refused:
            self.accepted.update(values)
        elif retried:
            self.unsure.update(values)
            self.refused_after_no_answer += 1
        return refused

    def unanswered(self, values: list[str]) -> None:
        self.unsure.update(values)

    def pending(self, ids: list[str]) -> set[str]:
        """The ids not accepted: those still to be delivered again, and the unsure ones."""
        return set(ids) - self.accepted.keys()

    def failures(self, ids: list[str], lag: int | None, group: Any = None) -> list[str]:
        """The share trial's checks once the drain is over, ``lag`` the group's lag then."""
        out: list[str] = []
        never = sorted(self.pending(ids) - self.unsure)
        if never:
            out.append(f"{len(never)} ids never accepted: {never[:10]}; the group: {group}")
        unsure = sorted(self.pending(ids) & self.unsure)
        if unsure and lag != 0:
            out.append(
                f"{len(unsure)} ids whose acceptance is unsure were not delivered again, and "
                f"the group's lag is {lag}, not 0: {unsure[:10]}; the group: {group}"
            )
        twice = sorted(v for v, c in self.accepted.items() if c > 1)
        if twice:
            out.append(f"{len(twice)} ids accepted twice: {twice[:10]}")
        if self.after_accept:
            out.append(
                f"{len(self.after_accept)} ids delivered after their acceptance: "
                f"{self.after_accept[:10]}"
            )
        once = sorted(v for v in self.held if self.delivered[v] < 2)
        if once:
            out.append(
                f"{len(once)} ids held when the leader was killed were not delivered again: "
                f"{once[:10]}"
            )
        return out


async def share_trial(cluster: Cluster, urls: list[str], seq: int) -> dict[str, Any]:
    from confluent_kafka import Producer

    trial = Trial("share", f"failover-share-{seq}-{random.randrange(1 << 30)}")
    group = f"failover-share-{seq}-{random.randrange(1 << 30)}"
    ids = [f"s-{i}" for i in range(SHARE_RECORDS)]
    acc = Acceptances()
    # ids a fetch answered with a delivery_count above 1 (Kafka's count of the deliveries)
    counted_again: set[str] = set()
    async with httpx.AsyncClient() as http:
        await create_topic(http, urls[0], trial.topic)
        await call(
            http,
            "PATCH",
            f"{urls[0]}/v1/share-groups/{group}/config",
            trial.answers,
            body={"auto_offset_reset": "earliest", "record_lock_duration_ms": 5000},
        )
        producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", **QUIET})
        for v in ids:
            producer.produce(trial.topic, value=v.encode(), partition=0)
        if producer.flush(60) != 0:
            raise RuntimeError("the native producer did not deliver the share trial's records")

        async def worker(name: str, base: str) -> None:
            member: str | None = None
            while not trial.stopping.is_set():
                # record_limit: at most 20 records a fetch (batch_optimized would acquire the
                # producer's whole batch of 600 at once), so that records stay to be held
                body: dict[str, Any] = {
                    "member_id": member,
                    "max_records": 20,
                    "max_wait_ms": 200,
                    "acquire_mode": "record_limit",
                }
                if member is None:
                    body["subscribed_topics"] = [trial.topic]
                try:
                    got = await call(
                        http,
                        "POST",
                        f"{base}/v1/share-groups/{group}/fetch",
                        trial.answers,
                        body=body,
                        accept=lambda s, c: c in ("UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH"),
                    )
                except Unanswered:
                    member = None  # the member was lost with its coordinator: join again
                    continue
                member = got["member_id"]
                records = got["records"]
                trial.answers.answered(name)
                if not records:
                    continue
                values = [r["value"] for r in records]
                acc.deliver(values)
                counted_again.update(r["value"] for r in records if r["delivery_count"] > 1)
                if (
                    not trial.killed.is_set()
                    and name not in trial.holding
                    and trial.answers.before[name] >= ANSWERS_BEFORE
                ):
                    # hold the records, their acceptance not sent, until the leader is killed
                    trial.holding[name] = values
                    await trial.killed.wait()
                acks = [
                    {
                        "topic": a["topic"],
                        "partition": a["partition"],
                        "first_offset": a["first_offset"],
                        "last_offset": a["last_offset"],
                        "type": "accept",
                    }
                    for a in got["acquired"]
                ]
                retried: list[str] = []
                try:
                    done = await call(
                        http,
                        "POST",
                        f"{base}/v1/share-groups/{group}/acknowledge",
                        trial.answers,
                        body={"member_id": member, "acknowledgements": acks},
                        accept=lambda s, c: c == "UNKNOWN_MEMBER_ID",
                        retried=retried,
                    )
                except Unanswered as e:
                    if e.code == "UNKNOWN_MEMBER_ID":
                        member = None
                    acc.unanswered(values)
                    continue
                refused = acc.answered(values, done["results"], retried)
                if refused:
                    # refused (the locks were lost with the leader): delivered again, unless
                    # an attempt that got no answer was applied
                    trial.answers.errors[f"ack {refused}"] += 1

        async def lag() -> int | None:
            r = await http.get(f"{urls[0]}/v1/share-groups/{group}", timeout=60)
            if r.status_code != 200:
                return None
            parts = r.json().get("partitions") or []
            return next((p.get("lag") for p in parts if p.get("partition") == 0), None)

        async def drained() -> bool:
            left = acc.pending(ids)
            if left - acc.unsure:
                return False
            # only unsure ones left: settled once the group has nothing left to deliver
            return not left or await lag() == 0

        out = await _drive(cluster, trial, urls, 1, worker, hold=True)
        acc.held = {v for held in trial.held_at_kill.values() for v in held}
        # drain: a member on the first gateway fetches until every id is accepted, or those
        # whose acceptance is unsure are settled
        trial.stopping = asyncio.Event()
        drain_deadline = time.monotonic() + DRAIN_S
        drain = asyncio.create_task(worker("drain", urls[0]))
        while time.monotonic() < drain_deadline and not await drained():
            await asyncio.sleep(0.5)
        trial.stopping.set()
        await asyncio.gather(drain, return_exceptions=True)
        final_lag = await lag()
        described = None
        if acc.pending(ids):
            # where the group's window starts, and its lag, say what became of the records
            r = await http.get(f"{urls[0]}/v1/share-groups/{group}", timeout=60)
            described = r.json()
    trial.failures.extend(acc.failures(ids, final_lag, described))
    if trial.answers.not_retriable:
        trial.failures.append(f"answers not retriable: {trial.answers.not_retriable[:3]}")
    return {
        "kind": "share",
        **out,
        "errors": dict(trial.answers.errors),
        "records": len(ids),
        "accepted_ids": len(acc.accepted),
        "acceptances_unsure": len(acc.unsure),
        "refused_after_no_answer": acc.refused_after_no_answer,
        "unsure_not_delivered_again": len(acc.pending(ids) & acc.unsure),
        "final_lag": final_lag,
        "held_ids_at_kill": len(acc.held),
        "delivered_again": sum(1 for c in acc.delivered.values() if c > 1),
        "delivery_count_over_1": len(counted_again),
        "failures": trial.failures,
    }


async def transactions_trial(cluster: Cluster, urls: list[str], seq: int) -> dict[str, Any]:
    trial = Trial("transactions", f"failover-txn-{seq}-{random.randrange(1 << 30)}")
    committed: list[list[str]] = []
    aborted: list[list[str]] = []
    undecided: list[list[str]] = []
    recoveries = 0
    async with httpx.AsyncClient() as http:
        await create_topic(http, urls[0], trial.topic)

        async def init(base: str, tid: str, ident: dict[str, Any] | None) -> dict[str, Any]:
            body: dict[str, Any] = {"transactional_id": tid, **(ident or {})}
            got: dict[str, Any] = await call(
                http, "POST", f"{base}/v1/producers", trial.answers, body=body
            )
            return {"producer_id": got["producer_id"], "producer_epoch": got["producer_epoch"]}

        async def worker(name: str, base: str) -> None:
            nonlocal recoveries
            tid = f"{trial.topic}-{name}"
            ident = await init(base, tid, None)
            for n in itertools.count():
                if trial.stopping.is_set():
                    return
                ids = [f"{name}-t{n}-{i}" for i in range(5)]
                batch = {
                    "topic": trial.topic,
                    "partition": 0,
                    "base_sequence": 0,
                    "records": [{"value": v} for v in ids],
                }
                try:
                    if n % 4 == 3:
                        # produced, then aborted: never visible, whatever happens on the way
                        try:
                            await call(
                                http,
                                "POST",
                                f"{base}/v1/produce",
                                trial.answers,
                                body={
                                    **ident,
                                    "transactional_id": tid,
                                    "encoding": "utf8",
                                    "batches": [batch],
                                },
                            )
                            ident = await call(
                                http,
                                "POST",
                                f"{base}/v1/transactions/{tid}/abort",
                                trial.answers,
                                body=ident,
                            )
                        finally:
                            aborted.append(ids)
                    else:
                        ident = await call(
                            http,
                            "POST",
                            f"{base}/v1/transactions/{tid}/commit",
                            trial.answers,
                            body={**ident, "encoding": "utf8", "batches": [batch]},
                        )
                        committed.append(ids)
                        trial.answers.answered(name)
                except Unanswered:
                    if n % 4 != 3:
                        undecided.append(ids)
                    # the producer recovers: its open transaction, if any, is aborted; fenced
                    # (its epoch was ended meanwhile), it starts again as a new instance
                    recoveries += 1
                    try:
                        ident = await init(base, tid, ident)
                    except Unanswered:
                        ident = await init(base, tid, None)

        out = await _drive(cluster, trial, urls, 2, worker)
    values = await asyncio.to_thread(read_committed, cluster.bootstrap, trial.topic)
    counts = Counter(values)
    twice = sorted(v for v, c in counts.items() if c > 1)
    missing = [ids for ids in committed if any(v not in counts for v in ids)]
    visible_aborted = [ids for ids in aborted if any(v in counts for v in ids)]
    half = [ids for ids in undecided if 0 < sum(v in counts for v in ids) < len(ids)]
    if twice:
        trial.failures.append(f"{len(twice)} ids read twice: {twice[:10]}")
    if missing:
        trial.failures.append(f"{len(missing)} committed transactions not whole: {missing[:3]}")
    if visible_aborted:
        trial.failures.append(f"{len(visible_aborted)} aborted transactions visible")
    if half:
        trial.failures.append(f"{len(half)} unanswered transactions half visible: {half[:3]}")
    if trial.answers.not_retriable:
        trial.failures.append(f"answers not retriable: {trial.answers.not_retriable[:3]}")
    return {
        "kind": "transactions",
        **out,
        "committed": len(committed),
        "aborted": len(aborted),
        "undecided": len(undecided),
        "undecided_visible": sum(1 for ids in undecided if ids[0] in counts),
        "recoveries": recoveries,
        "failures": trial.failures,
    }


TRIALS: dict[str, Callable[[Cluster, list[str], int], Coroutine[Any, Any, dict[str, Any]]]] = {
    "produce": produce_trial,
    "share": share_trial,
    "transactions": transactions_trial,
}


def run_trial(cluster: Cluster, urls: list[str], kind: str, seq: int) -> dict[str, Any]:
    """One trial of ``kind`` on a cluster whose three nodes are all back in sync."""
    in_sync_s = cluster.wait_in_sync()
    began = time.monotonic()
    try:
        result = asyncio.run(TRIALS[kind](cluster, urls, seq))
    except Exception as exc:  # a trial that could not run to its checks is a failure too
        result = {"kind": kind, "failures": [f"error: {exc!r}"]}
    result["seq"] = seq
    result["waited_in_sync_s"] = round(in_sync_s, 1)
    result["duration_s"] = round(time.monotonic() - began, 1)
    return result


def median(values: list[Any]) -> float | None:
    known = sorted(v for v in values if v is not None)
    return known[len(known) // 2] if known else None


def summarize(trials: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in KINDS:
        mine = [t for t in trials if t["kind"] == kind]
        if not mine:
            continue
        errors: Counter[str] = Counter()
        for t in mine:
            errors.update(t.get("errors", {}))
        out[kind] = {
            "trials": len(mine),
            "passed": sum(1 for t in mine if not t["failures"]),
            "leader_moved_s_median": median([t.get("leader_moved_s") for t in mine]),
            "outage_s_max_median": median([t.get("outage_s_max") for t in mine]),
            "outage_s_max_worst": max(
                (t["outage_s_max"] for t in mine if t.get("outage_s_max") is not None),
                default=None,
            ),
            "errors": dict(errors.most_common()),
        }
        if kind == "share":
            out[kind]["held_at_kill"] = [t.get("held_ids_at_kill") for t in mine]
            out[kind]["delivered_again"] = [t.get("delivered_again") for t in mine]
            out[kind]["delivery_count_over_1"] = [t.get("delivery_count_over_1") for t in mine]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.failover", description=__doc__.split("\n")[0]
    )
    p.add_argument("--trials", type=int, default=20, help="trials of each kind")
    p.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated, of " + ",".join(KINDS)
    )
    p.add_argument("--run-dir", type=Path, default=RUN_DIR, help="the cluster's run directory")
    p.add_argument("--broker-session-ms", type=int, default=BROKER_SESSION_MS)
    p.add_argument("--broker-heartbeat-ms", type=int, default=BROKER_HEARTBEAT_MS)
    p.add_argument("--keep-cluster", action="store_true", help="leave the cluster running")
    p.add_argument("--out-dir", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        p.error(f"unknown kinds {sorted(unknown)}")
    git = git_info()
    started = time.monotonic()
    cluster = Cluster(args.run_dir, args.broker_session_ms, args.broker_heartbeat_ms)
    trials: list[dict[str, Any]] = []
    params = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    params.pop("out_dir")
    try:
        cluster.start()
        with Workdir("failover") as work, gateways(cluster.bootstrap, work.path) as servers:
            urls = [s.base_url for s in servers]
            # the kinds take turns, so that a slow stretch of the machine falls on all of them
            for n in range(args.trials):
                for kind in kinds:
                    t = run_trial(cluster, urls, kind, n)
                    trials.append(t)
                    log(
                        f"{kind} {n}: killed node {t.get('killed_node')}, new leader after "
                        f"{t.get('leader_moved_s')} s, longest outage {t.get('outage_s_max')} s, "
                        f"errors {t.get('errors')}, "
                        f"failures {t['failures']}"
                    )
                    summary = summarize(trials)
                    summary["duration_s"] = round(time.monotonic() - started, 1)
                    # written after every trial: a run cut short keeps what it measured
                    write_result(
                        NAME, params, {"summary": summary, "trials": trials}, args.out_dir, git
                    )
    finally:
        if not args.keep_cluster:
            cluster.stop()
    log(json.dumps(summarize(trials), indent=1))
    return 1 if any(t["failures"] for t in trials) else 0


if __name__ == "__main__":
    sys.exit(main())
