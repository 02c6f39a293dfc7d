"""``Idempotency-Key`` on the Kafka backend (docs/kafka.md#produce): a produce whose retries,
through any gateway, answer the first answer and append nothing.

The key's answer lives in the compacted topic ``__sluice_idempotency``, one record per
principal and key (the record key is ``principal NUL key``; the value, JSON, is the hash of
topic and body, the answer's offsets and when it was written), which every gateway follows.

A keyed produce is one Kafka transaction of a transactional id derived from the principal and
the key, holding the request's records and the key's record, so both are committed or
neither. The transactional id is the reservation:

1. InitProducerId on it fences every earlier producer of the id, whichever gateway holds it,
   and answers only once the id's earlier transaction is committed or aborted.
2. Only then does the gateway read ``__sluice_idempotency`` up to its high watermark, waiting
   for the transactions of other keys open below it to end (a committed read stops at the
   first open one). An answer found there is answered again (``IDEMPOTENCY_KEY_REUSED`` for
   another topic or body), nothing written.
3. Otherwise the records and the key's record are produced in the transaction, which is
   committed; the answer is the records' offsets.

An earlier request's commit is therefore either seen by step 2 or fenced before it happened
(its EndTxn then fails, and it answers the error): at most one request with a key commits its
records. Two requests with one key at once: the later fences the earlier, which starts again
(after a short random pause, up to 10 times) and then finds the answer of whichever committed.

Keys older than ``SLUICE_IDEMPOTENCY_KEY_RETENTION_MS`` are treated as absent, as on the
embedded engine, and forgotten: each gateway writes a tombstone for every key it finds expired
(every tenth of the retention, at most every 10 minutes; several gateways may write the same
tombstone, which is harmless), so that neither the topic, once compacted, nor a gateway's copy
of it grows with every key ever used. A tombstone is written only while the key's record is
still the expired one: a key used again meanwhile keeps its new answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random

from app.clock import Clock
from app.errors import Conflict, ErrorCode, InvalidRequest, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.follower import Behind, Follower, ensure_compacted_topic, every
from app.kafka.produce import KafkaProduce
from app.kafka.transactions import KafkaTransactions
from app.producers.produce import Placed, Produced
from app.storage.record import Record

log = logging.getLogger("sluice.kafka.idempotency")

TOPIC = "__sluice_idempotency"
PARTITION = 0
TID_PREFIX = "__sluice-idempotency-"
# a request fenced by another with the same key starts again, at most so many times
FENCED = frozenset(
    {
        ErrorCode.INVALID_PRODUCER_EPOCH,
        ErrorCode.PRODUCER_FENCED,
        ErrorCode.CONCURRENT_TRANSACTIONS,
        ErrorCode.INVALID_TXN_STATE,  # an EndTxn of a transaction a fence aborted
    }
)
FENCED_ATTEMPTS = 10
# a keyed produce's transaction: aborted by Kafka if a gateway dies in it. Short, since every
# keyed produce waits for the transactions open in __sluice_idempotency to end
TXN_TIMEOUT_MS = 10_000


def scoped(key: str, owner: str | None) -> str:
    """The key as kept: the principal's own (one principal's keys never meet another's)."""
    return key if owner is None else f"{owner}\0{key}"


def transactional_id(scoped_key: str) -> str:
    return TID_PREFIX + hashlib.sha256(scoped_key.encode()).hexdigest()[:40]


def request_hash(topic: str, body: bytes) -> str:
    return hashlib.sha256(topic.encode() + b"\0" + body).hexdigest()


class KafkaIdempotency:
    """Keyed produce on a started ``cluster``. ``await start()`` before serving (it creates the
    topic when missing and follows it), ``close()`` after."""

    def __init__(
        self,
        cluster: Cluster,
        produce: KafkaProduce,
        transactions: KafkaTransactions,
        clock: Clock,
        *,
        retention_ms: int,
        replication_factor: int = -1,
    ) -> None:
        self.cluster = cluster
        self.produce = produce
        self.transactions = transactions
        self.clock = clock
        self.retention_ms = retention_ms
        self.replication_factor = replication_factor
        # scoped key → (request hash, answer, written at), as the topic holds them
        self.answers: dict[str, tuple[str, list[Produced], int]] = {}
        self.follower = Follower(cluster, clock, TOPIC, PARTITION, self._take, committed=True)

    async def start(self) -> None:
        await ensure_compacted_topic(self.cluster, TOPIC, self.replication_factor)
        await self.follower.start()
        await self.follower.sync()

    async def close(self) -> None:
        await self.follower.close()

    def _take(self, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        scoped_key = key.decode("utf-8", "replace")
        if value is None:
            self.answers.pop(scoped_key, None)
            return
        try:
            v = json.loads(value)
            answer = [Produced(*t) for t in v["answer"]]
            self.answers[scoped_key] = (v["request_hash"], answer, int(v["created_ms"]))
        except (ValueError, KeyError, TypeError):
            log.warning("record %r of %s is not a key's answer; left out", key, TOPIC)

    def _expired(self, written_ms: int) -> bool:
        return written_ms < self.clock.now_ms() - self.retention_ms

    async def expire(self) -> int:
        """Write a tombstone for every key older than the retention; answers how many."""
        await self.follower.sync()
        expired = [k for k, row in self.answers.items() if self._expired(row[2])]
        written = 0
        for scoped_key in expired:
            row = self.answers.get(scoped_key)
            if row is None or not self._expired(row[2]):
                continue  # answered again meanwhile
            await self.produce.produce_records(
                TOPIC, [(PARTITION, Record(self.clock.now_ms(), scoped_key.encode(), None))]
            )
            self.answers.pop(scoped_key, None)
            written += 1
        return written

    async def run_expiry(self) -> None:
        """``expire()`` every tenth of the retention (at most every 10 minutes), for as long as
        the gateway runs."""
        await every(
            max(min(self.retention_ms // 10, 600_000) / 1000, 1.0),
            self.expire,
            f"expiring the keys of {TOPIC}",
        )

    def _found(self, scoped_key: str, digest: str) -> list[Produced] | None:
        row = self.answers.get(scoped_key)
        if row is None or self._expired(row[2]):
            return None
        if row[0] != digest:
            raise Conflict(
                ErrorCode.IDEMPOTENCY_KEY_REUSED,
                "this Idempotency-Key was used with a different request",
            )
        return row[1]

    async def produce_keyed(
        self, topic: str, records: Placed, key: str, body: bytes, owner: str | None
    ) -> list[Produced]:
        if not 1 <= len(key) <= 255:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "Idempotency-Key must be 1 to 255 characters"
            )
        scoped_key = scoped(key, owner)
        digest = request_hash(topic, body)
        for attempt in range(FENCED_ATTEMPTS):
            found = self._found(scoped_key, digest)
            if found is not None:
                return found
            try:
                return await self._once(topic, records, scoped_key, digest)
            except SluiceError as exc:
                # another request with the key took the reservation: it commits, or a later
                # one does; start again, and find its answer
                behind = isinstance(exc, Behind)  # waited long enough: the client retries
                if behind or exc.code not in FENCED or attempt == FENCED_ATTEMPTS - 1:
                    raise
                await asyncio.sleep(random.uniform(0.01, 0.05) * (attempt + 1))
        raise AssertionError("unreachable")

    async def _once(
        self, topic: str, records: Placed, scoped_key: str, digest: str
    ) -> list[Produced]:
        """One attempt: reserve the key, find its answer or write the records and it."""
        tid = transactional_id(scoped_key)
        # the reservation: earlier producers of the key fenced, their transaction ended
        pid, epoch = await self.transactions.init_producer_id(tid, TXN_TIMEOUT_MS, None, None, None)
        await self.follower.sync()
        found = self._found(scoped_key, digest)
        if found is not None:
            return found
        try:
            produced = await self._write(topic, records, scoped_key, digest, tid, pid, epoch)
        except BaseException:
            # nothing of it is committed; a retry's InitProducerId would abort it too
            try:
                await self.transactions.end_txn(tid, pid, epoch, commit=False)
            except Exception:
                log.warning("aborting the keyed produce of %s failed", tid, exc_info=True)
            raise
        await self.transactions.end_txn(tid, pid, epoch, commit=True)
        self.answers[scoped_key] = (digest, produced, self.clock.now_ms())
        return produced

    async def _write(
        self,
        topic: str,
        records: Placed,
        scoped_key: str,
        digest: str,
        tid: str,
        pid: int,
        epoch: int,
    ) -> list[Produced]:
        """The records and the key's answer, in the open transaction."""
        info = await self.cluster.topic(topic)
        produced = await self.produce.produce_records(
            topic,
            records,
            producer_id=pid,
            producer_epoch=epoch,
            base_sequences={p: 0 for p in info.partitions},
            transactional_id=tid,
        )
        now = self.clock.now_ms()
        value = json.dumps(
            {
                "request_hash": digest,
                "answer": [list(p) for p in produced],
                "created_ms": now,
            },
            separators=(",", ":"),
        ).encode()
        await self.produce.produce_records(
            TOPIC,
            [(PARTITION, Record(now, scoped_key.encode(), value))],
            producer_id=pid,
            producer_epoch=epoch,
            base_sequences={PARTITION: 0},
            transactional_id=tid,
        )
        return produced
