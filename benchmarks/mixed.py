"""The mixed workload of the soak and the crash trials, and the ledger that checks it by id.

Against one server (no keys, loopback), from one asyncio process with one ``httpx`` client per
worker, as services would:

- **plain producers** append records to ``mixed-in`` (4 partitions) in batches, each value a
  unique id (``p-<worker>-<n>``); an answered produce records each id's partition and offset;
- **share consumers** (group ``mixed-sg``) fetch from ``mixed-in`` and acknowledge each record:
  about 90 % accept, 5 % reject, 5 % release on the first delivery (accepted on the next);
- **transactional producers** (``mixed-tx-<n>``) write batches to ``mixed-tx`` (2 partitions)
  in transactions, about 10 % aborted on purpose; each id is recorded as committed, aborted, or
  undecided (the commit's answer never came);
- a **consumer-group member** (group ``mixed-cg``) reads ``mixed-in`` by offset and commits its
  position every round.

Every request's latency is kept per kind for the sampler. The ledger holds what the server
acknowledged; :meth:`Ledger.check` compares it with what the server holds at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

IN, TX, SG, CG = "mixed-in", "mixed-tx", "mixed-sg", "mixed-cg"
IN_PARTITIONS, TX_PARTITIONS = 4, 2
BATCH = 50
TIMEOUT = httpx.Timeout(30.0)


@dataclass
class Ledger:
    """What the server answered, by id."""

    produced: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (partition, offset)
    accepted: Counter[str] = field(default_factory=Counter)
    rejected: set[str] = field(default_factory=set)
    released: set[str] = field(default_factory=set)
    # acknowledgements sent without an answer yet, by id: a count, because a released record
    # can be acquired and acknowledged again by another member before the release's answer
    # is read, and that answer must not clear the second acknowledgement
    in_flight: Counter[str] = field(default_factory=Counter)
    committed: set[str] = field(default_factory=set)
    aborted: set[str] = field(default_factory=set)
    undecided: list[set[str]] = field(default_factory=list)  # one set per unanswered end
    cg_committed: dict[int, int] = field(default_factory=dict)  # partition -> offset
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    records: Counter[str] = field(default_factory=Counter)  # kind -> records moved
    errors: Counter[str] = field(default_factory=Counter)

    def acknowledging(self, ids: Iterable[str]) -> None:
        self.in_flight.update(list(ids))  # a list: a mapping's values would be taken as counts

    def acknowledged(self, ids: Iterable[str]) -> None:
        """The answer came: these acknowledgements are no longer in doubt."""
        self.in_flight.subtract(list(ids))
        self.in_flight = +self.in_flight  # drops the ids at zero

    def in_doubt(self, i: str) -> bool:
        """An acknowledgement of ``i`` was sent and never answered (it may have been applied)."""
        return self.in_flight[i] > 0


class Mixed:
    """The workload; ``rate`` is the target of produced records per second (plain and
    transactional together), ``run(seconds)`` drives it."""

    def __init__(self, base_url: str, rate: float, seed: int = 1) -> None:
        self.base_url = base_url
        self.rate = rate
        self.rng = random.Random(seed)
        self.ledger = Ledger()
        self.stopping = asyncio.Event()

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, timeout=TIMEOUT)

    async def timed(
        self, c: httpx.AsyncClient, kind: str, method: str, url: str, **kw: Any
    ) -> httpx.Response:
        started = time.perf_counter()
        r = await c.request(method, url, **kw)
        self.ledger.latencies[kind].append((time.perf_counter() - started) * 1000)
        if r.status_code >= 400:
            self.ledger.errors[f"{kind} {r.status_code}"] += 1
        return r

    async def setup(self) -> None:
        async with self.client() as c:
            for name, n in ((IN, IN_PARTITIONS), (TX, TX_PARTITIONS)):
                r = await c.post("/v1/topics", json={"name": name, "partitions": n})
                assert r.status_code in (201, 409), r.text
            r = await c.patch(
                f"/v1/share-groups/{SG}/config", json={"auto_offset_reset": "earliest"}
            )
            assert r.status_code == 200, r.text

    async def run(self, seconds: float | None) -> None:
        """Run every worker until ``seconds`` pass (None: until ``stopping`` is set)."""
        tasks = [
            asyncio.create_task(self._producer(0, self.rate * 0.8)),
            asyncio.create_task(self._txn_producer(0, self.rate * 0.2)),
            asyncio.create_task(self._share_consumer("c1")),
            asyncio.create_task(self._share_consumer("c2")),
            asyncio.create_task(self._group_member()),
        ]
        try:
            if seconds is None:
                await self.stopping.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), seconds)
        finally:
            self.stopping.set()
            results = await asyncio.gather(*tasks, return_exceptions=True)
        for res in results:
            if isinstance(res, Exception) and not isinstance(res, httpx.TransportError):
                raise res

    async def _paced(self, rate: float) -> None:
        await asyncio.sleep(BATCH / rate if rate > 0 else 1.0)

    async def _producer(self, worker: int, rate: float) -> None:
        n = 0
        async with self.client() as c:
            next_at = time.monotonic()
            while not self.stopping.is_set():
                ids = [f"p-{worker}-{n + i}" for i in range(BATCH)]
                partition = self.rng.randrange(IN_PARTITIONS)
                body = {"records": [{"value": i, "partition": partition} for i in ids]}
                r = await self.timed(c, "produce", "POST", f"/v1/topics/{IN}/records", json=body)
                if r.status_code == 200:
                    for i, o in zip(ids, r.json()["offsets"], strict=True):
                        self.ledger.produced[i] = (o["partition"], o["offset"])
                    self.ledger.records["produce"] += BATCH
                n += BATCH
                next_at += BATCH / rate
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def _txn_producer(self, worker: int, rate: float) -> None:
        tid = f"mixed-tx-{worker}"
        n = 0
        async with self.client() as c:
            r = await self.timed(c, "init", "POST", "/v1/producers", json={"transactional_id": tid})
            r.raise_for_status()
            pid, epoch = r.json()["producer_id"], r.json()["producer_epoch"]
            seq = [0] * TX_PARTITIONS
            while not self.stopping.is_set():
                ids = [f"t-{worker}-{n + i}" for i in range(BATCH)]
                n += BATCH
                partition = self.rng.randrange(TX_PARTITIONS)
                batch = {
                    "topic": TX,
                    "partition": partition,
                    "base_sequence": seq[partition],
                    "records": [{"value": i} for i in ids],
                }
                body = {
                    "producer_id": pid,
                    "producer_epoch": epoch,
                    "transactional_id": tid,
                    "batches": [batch],
                }
                r = await self.timed(c, "txn produce", "POST", "/v1/produce", json=body)
                ok = r.status_code == 200 and r.json()["batches"][0]["error"] is None
                if ok:
                    seq[partition] += BATCH
                abort = not ok or self.rng.random() < 0.1
                end = "abort" if abort else "commit"
                self.ledger.undecided.append(set(ids))
                r = await self.timed(
                    c,
                    f"txn {end}",
                    "POST",
                    f"/v1/transactions/{tid}/{end}",
                    json={"producer_id": pid, "producer_epoch": epoch},
                )
                if r.status_code == 200:
                    self.ledger.undecided.pop()
                    (self.ledger.aborted if abort else self.ledger.committed).update(ids)
                    pid, epoch = r.json()["producer_id"], r.json()["producer_epoch"]
                    seq = [0] * TX_PARTITIONS  # each end bumps the epoch (KIP-890)
                    self.ledger.records["transactional"] += BATCH if ok and not abort else 0
                else:  # fenced or timed out: start again with a new epoch
                    r = await self.timed(
                        c, "init", "POST", "/v1/producers", json={"transactional_id": tid}
                    )
                    r.raise_for_status()
                    pid, epoch = r.json()["producer_id"], r.json()["producer_epoch"]
                    seq = [0] * TX_PARTITIONS
                await self._paced(rate)

    async def _share_consumer(self, member: str) -> None:
        async with self.client() as c:
            r = await self.timed(
                c,
                "share heartbeat",
                "POST",
                f"/v1/share-groups/{SG}/heartbeat",
                json={"member_id": member, "member_epoch": 0, "subscribed_topics": [IN]},
            )
            r.raise_for_status()
            beat = time.monotonic()
            while not self.stopping.is_set():
                if time.monotonic() - beat > 3:
                    r = await self.timed(
                        c,
                        "share heartbeat",
                        "POST",
                        f"/v1/share-groups/{SG}/heartbeat",
                        json={"member_id": member, "member_epoch": r.json()["member_epoch"]},
                    )
                    beat = time.monotonic()
                f = await self.timed(
                    c,
                    "share fetch",
                    "POST",
                    f"/v1/share-groups/{SG}/fetch",
                    json={"member_id": member, "max_records": 100, "max_wait_ms": 200},
                )
                if f.status_code != 200:
                    await asyncio.sleep(0.05)
                    continue
                acks, outcome = [], {}
                for rec in f.json()["records"]:
                    value = rec["value"]
                    roll = self.rng.random()
                    if rec["delivery_count"] == 1 and roll < 0.05:
                        kind = "release"
                    elif roll > 0.95:
                        kind = "reject"
                    else:
                        kind = "accept"
                    outcome[value] = kind
                    acks.append(
                        {
                            "topic": rec["topic"],
                            "partition": rec["partition"],
                            "first_offset": rec["offset"],
                            "last_offset": rec["offset"],
                            "types": [kind],
                        }
                    )
                if not acks:
                    continue
                self.ledger.acknowledging(outcome)
                a = await self.timed(
                    c,
                    "share acknowledge",
                    "POST",
                    f"/v1/share-groups/{SG}/acknowledge",
                    json={"member_id": member, "acknowledgements": acks},
                )
                if a.status_code == 200 and all(x["error"] is None for x in a.json()["results"]):
                    self.ledger.acknowledged(outcome)
                    for value, kind in outcome.items():
                        if kind == "accept":
                            self.ledger.accepted[value] += 1
                        elif kind == "reject":
                            self.ledger.rejected.add(value)
                        else:
                            self.ledger.released.add(value)
                    self.ledger.records["share"] += len(outcome)

    async def _group_member(self) -> None:
        member = "cg-1"
        async with self.client() as c:
            r = await self.timed(
                c,
                "group heartbeat",
                "POST",
                f"/v1/groups/{CG}/heartbeat",
                json={"member_id": member, "member_epoch": 0, "subscribed_topics": [IN]},
            )
            r.raise_for_status()
            epoch = r.json()["member_epoch"]
            positions = dict.fromkeys(range(IN_PARTITIONS), 0)
            while not self.stopping.is_set():
                r = await self.timed(
                    c,
                    "group heartbeat",
                    "POST",
                    f"/v1/groups/{CG}/heartbeat",
                    json={"member_id": member, "member_epoch": epoch},
                )
                if r.status_code == 200:
                    epoch = r.json()["member_epoch"]
                for p in range(IN_PARTITIONS):
                    g = await self.timed(
                        c,
                        "read",
                        "GET",
                        f"/v1/topics/{IN}/partitions/{p}/records",
                        params={"offset": positions[p], "max_records": 500},
                    )
                    if g.status_code == 200:
                        self.ledger.records["read"] += len(g.json()["records"])
                        positions[p] = g.json()["next_offset"]
                offsets = [{"topic": IN, "partition": p, "offset": o} for p, o in positions.items()]
                o = await self.timed(
                    c,
                    "offset commit",
                    "POST",
                    f"/v1/groups/{CG}/offsets",
                    json={"member_id": member, "member_epoch": epoch, "offsets": offsets},
                )
                if o.status_code == 200 and all(x["error"] is None for x in o.json()["offsets"]):
                    self.ledger.cg_committed.update(positions)
                await asyncio.sleep(0.5)

    # -- the end -----------------------------------------------------------------------------

    async def drain_share(self, limit_s: float = 120.0) -> None:
        """Consume what is left in the share group until every produced id is accepted or
        rejected (accepting everything now)."""
        # the ids still to be done, worked out once and shrunk as records are acknowledged: a
        # set of every done id built again at each fetch took longer, on the tens of millions
        # of ids of a 2-hour run, than the member's session (404 UNKNOWN_MEMBER_ID at the next
        # heartbeat, however often the loop meant to send one)
        accepted, rejected = self.ledger.accepted, self.ledger.rejected
        remaining = {i for i in self.ledger.produced if i not in accepted and i not in rejected}
        deadline = time.monotonic() + limit_s
        async with self.client() as c:
            r = await c.post(
                f"/v1/share-groups/{SG}/heartbeat",
                json={"member_id": "drain", "member_epoch": 0, "subscribed_topics": [IN]},
            )
            r.raise_for_status()
            epoch = r.json()["member_epoch"]
            beat = time.monotonic()
            while time.monotonic() < deadline:
                if not remaining:
                    return
                if time.monotonic() - beat > 2.0:
                    # a drain of a long run's backlog outlasts the member's session unless it
                    # heartbeats (a 2-hour soak's drain was answered 404 UNKNOWN_MEMBER_ID)
                    h = await c.post(
                        f"/v1/share-groups/{SG}/heartbeat",
                        json={"member_id": "drain", "member_epoch": epoch},
                    )
                    h.raise_for_status()
                    epoch, beat = h.json()["member_epoch"], time.monotonic()
                f = await c.post(
                    f"/v1/share-groups/{SG}/fetch",
                    json={"member_id": "drain", "max_records": 500, "max_wait_ms": 500},
                )
                f.raise_for_status()
                recs = f.json()["records"]
                if not recs:
                    continue
                acks = [
                    {
                        "topic": x["topic"],
                        "partition": x["partition"],
                        "first_offset": x["offset"],
                        "last_offset": x["offset"],
                        "types": ["accept"],
                    }
                    for x in recs
                ]
                a = await c.post(
                    f"/v1/share-groups/{SG}/acknowledge",
                    json={"member_id": "drain", "acknowledgements": acks},
                )
                a.raise_for_status()
                for x in recs:
                    self.ledger.accepted[x["value"]] += 1
                    remaining.discard(x["value"])

    async def check(self, *, share: bool = True) -> dict[str, Any]:
        """Compare the ledger with the server: the counts of every way an id can go wrong."""
        L = self.ledger
        async with self.client() as c:
            in_log = await _read_all(c, IN, IN_PARTITIONS, committed=False)
            tx_log = await _read_all(c, TX, TX_PARTITIONS, committed=True)
            cg = await c.get(f"/v1/groups/{CG}/offsets", params={"topic": IN})
        seen = Counter(v for v, _, _ in in_log)
        at = {(p, o): v for v, p, o in in_log}
        lost = [i for i, po in L.produced.items() if at.get(po) != i]
        duplicated = [i for i in L.produced if seen[i] > 1]
        tx_seen = Counter(v for v, _, _ in tx_log)
        tx_lost = [i for i in L.committed if tx_seen[i] != 1]
        tx_aborted_visible = [i for i in L.aborted if tx_seen[i]]
        half = [
            len(ids)
            for ids in L.undecided
            if 0 < sum(1 for i in ids if tx_seen[i]) < len(ids) or any(tx_seen[i] > 1 for i in ids)
        ]
        cg_offsets = {}
        if cg.status_code == 200:
            for x in cg.json().get("offsets", []):
                cg_offsets[x["partition"]] = x["offset"]
        cg_lost = [p for p, o in L.cg_committed.items() if cg_offsets.get(p, -1) < o]
        result: dict[str, Any] = {
            "produced": len(L.produced),
            "lost": len(lost),
            "duplicated": len(duplicated),
            "lost_examples": lost[:5],
            "transactional_committed": len(L.committed),
            "transactional_aborted": len(L.aborted),
            "transactional_undecided": sum(len(s) for s in L.undecided),
            "transactional_lost": len(tx_lost),
            "aborted_visible": len(tx_aborted_visible),
            "half_visible_transactions": len(half),
            "group_offsets_lost": len(cg_lost),
        }
        if share:
            done = set(L.accepted) | L.rejected
            result.update(
                {
                    "share_accepted": len(L.accepted),
                    "share_rejected": len(L.rejected),
                    "share_released": len(L.released),
                    # an acknowledgement whose answer never came (the server was killed) may or
                    # may not have been applied: its ids are left out of these two counts
                    "share_unanswered": len(L.in_flight),
                    "share_accepted_twice": sum(
                        1 for i, n in L.accepted.items() if n > 1 and not L.in_doubt(i)
                    ),
                    "share_never_done": sum(
                        1 for i in L.produced if i not in done and not L.in_doubt(i)
                    ),
                    "share_accepted_and_rejected": len(set(L.accepted) & L.rejected),
                }
            )
        failures = [
            k
            for k in (
                "lost",
                "duplicated",
                "transactional_lost",
                "aborted_visible",
                "half_visible_transactions",
                "group_offsets_lost",
                "share_accepted_twice",
                "share_never_done",
                "share_accepted_and_rejected",
            )
            if result.get(k)
        ]
        result["failures"] = failures
        if result.get("share_never_done"):
            result["share_never_done_examples"] = await self._stuck_views()
        return result

    async def _stuck_views(self) -> list[dict[str, Any]]:
        """What the share group says of (up to ten) records never acknowledged."""
        L = self.ledger
        done = set(L.accepted) | L.rejected
        stuck = [i for i in L.produced if i not in done and not L.in_doubt(i)][:10]
        out = []
        async with self.client() as c:
            for i in stuck:
                p, o = L.produced[i]
                r = await c.get(f"/v1/share-groups/{SG}/partitions/{IN}/{p}/records")
                view: dict[str, Any] = r.json() if r.status_code == 200 else {}
                states = [x for x in view.get("records", []) if x["offset"] == o]
                out.append(
                    {
                        "id": i,
                        "partition": p,
                        "offset": o,
                        "released_before": i in L.released,
                        "window": [view.get("start_offset"), view.get("end_offset")],
                        "state": states[0] if states else None,
                    }
                )
        return out


async def _read_all(
    c: httpx.AsyncClient, topic: str, partitions: int, *, committed: bool
) -> list[tuple[str, int, int]]:
    """(value, partition, offset) of every record of ``topic``."""
    out: list[tuple[str, int, int]] = []
    for p in range(partitions):
        offset = 0
        while True:
            r = await c.get(
                f"/v1/topics/{topic}/partitions/{p}/records",
                params={
                    "offset": offset,
                    "max_records": 10_000,
                    "max_bytes": 16 * 1024 * 1024,
                    "isolation_level": "read_committed" if committed else "read_uncommitted",
                },
            )
            r.raise_for_status()
            body = r.json()
            out.extend((x["value"], p, x["offset"]) for x in body["records"])
            end = body["last_stable_offset"] if committed else body["high_watermark"]
            if body["next_offset"] >= end or body["next_offset"] == offset:
                break
            offset = body["next_offset"]
    return out
