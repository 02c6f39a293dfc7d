"""Who a producer id was issued to, on the Kafka backend (docs/kafka.md#gateway-state): the
gateway's counterpart of the embedded engine's producer-id blocks (docs/security.md#ownership).

Kafka ties a producer id to nothing but its epochs and sequences: any client that learns an
idempotent producer's id may write with it, and its batches would break the owner's sequences.
So the gateway records, before it answers ``POST /v1/producers``, the principal the id was
issued to (and for a transactional producer, its transactional id) in the compacted topic
``__sluice_producers``, one record per producer id, which every gateway follows. A produce
with a producer id and no transactional id is then admitted only for that principal, and only
for an idempotent producer's id (a transactional producer writes inside its transactions: 409
``INVALID_TXN_STATE``, as on the embedded engine). A transactional produce needs no record:
its id is guarded by the transactional id's ACL, and Kafka checks that the producer id is the
transactional id's.

An id another gateway issued a moment ago may not have reached this gateway's copy yet, so an
id it does not know is looked up again after reading the topic to its end; only then is it
refused (400 ``UNKNOWN_PRODUCER_ID``, "never issued to this principal", the embedded answer).

The topic must not grow with every producer ever issued. A record is kept for
``SLUICE_PRODUCER_ID_EXPIRATION_MS`` (a day by default) after it was last written; a producer
that keeps writing has its record written again once a quarter of that has passed, and a
producer idle for longer than the whole is forgotten, as Kafka forgets a producer's state: its
next produce is refused ``UNKNOWN_PRODUCER_ID`` and it asks for a new id. Each gateway writes
tombstones for the records it finds expired (several gateways may write the same tombstone;
that is harmless), and compaction then removes them.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from app.clock import Clock
from app.errors import Conflict, ErrorCode, InvalidRequest
from app.kafka.cluster import Cluster
from app.kafka.follower import Follower, ensure_compacted_topic, every
from app.kafka.produce import KafkaProduce
from app.storage.record import Record

log = logging.getLogger("sluice.kafka.producer_owners")

TOPIC = "__sluice_producers"
PARTITION = 0
ANONYMOUS = ""  # the principal of a gateway without keys, as the topic holds it


@dataclass(frozen=True, slots=True)
class Owner:
    principal: str
    transactional_id: str | None
    written_ms: int


def _key(producer_id: int) -> bytes:
    return str(producer_id).encode()


class ProducerOwners:
    """The owners of producer ids, kept in ``__sluice_producers``. ``await start()`` before
    serving (creates the topic when missing, reads it to its end and follows it), ``run_expiry()``
    beside the server, ``close()`` after."""

    def __init__(
        self,
        cluster: Cluster,
        produce: KafkaProduce,
        clock: Clock,
        *,
        expiration_ms: int,
        replication_factor: int = -1,
    ) -> None:
        self.cluster = cluster
        self.produce = produce
        self.clock = clock
        self.expiration_ms = expiration_ms
        self.replication_factor = replication_factor
        self.owners: dict[int, Owner] = {}
        # ids being written again: one rewrite at a time per id, however many produces ask
        self._refreshing: set[int] = set()
        self.follower = Follower(cluster, clock, TOPIC, PARTITION, self._take)

    async def start(self) -> None:
        await ensure_compacted_topic(self.cluster, TOPIC, self.replication_factor)
        await self.follower.start()
        await self.follower.sync()

    async def close(self) -> None:
        await self.follower.close()

    def _take(self, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        try:
            producer_id = int(key)
        except ValueError:
            log.warning("record %r of %s names no producer id; left out", key, TOPIC)
            return
        if value is None:
            self.owners.pop(producer_id, None)
            return
        try:
            v = json.loads(value)
            tid = v["transactional_id"]
            owner = Owner(
                str(v["principal"]), None if tid is None else str(tid), int(v["written_ms"])
            )
        except (ValueError, KeyError, TypeError):
            log.warning("record %r of %s is not an owner; left out", key, TOPIC)
            return
        current = self.owners.get(producer_id)
        if current is None or current.written_ms <= owner.written_ms:
            self.owners[producer_id] = owner

    def _expired(self, owner: Owner) -> bool:
        return owner.written_ms < self.clock.now_ms() - self.expiration_ms

    async def _write(self, producer_id: int, value: bytes | None) -> None:
        now = self.clock.now_ms()
        await self.produce.produce_records(
            TOPIC, [(PARTITION, Record(now, _key(producer_id), value))]
        )

    async def issued(
        self, producer_id: int, principal: str | None, transactional_id: str | None
    ) -> None:
        """Record that ``producer_id`` was issued to ``principal`` (for ``transactional_id``),
        durably (the brokers' acknowledgement of every in-sync replica) before it returns."""
        owner = Owner(
            ANONYMOUS if principal is None else principal, transactional_id, self.clock.now_ms()
        )
        value = {
            "principal": owner.principal,
            "transactional_id": owner.transactional_id,
            "written_ms": owner.written_ms,
        }
        await self._write(producer_id, json.dumps(value, separators=(",", ":")).encode())
        self.owners[producer_id] = owner

    async def check(self, producer_id: int, principal: str | None) -> None:
        """Admit a produce with ``producer_id`` and no transactional id from ``principal``,
        or raise ``UNKNOWN_PRODUCER_ID`` (not issued to it, or forgotten) or
        ``INVALID_TXN_STATE`` (a transactional producer's id)."""
        owner = self.owners.get(producer_id)
        if owner is None or self._expired(owner):
            # issued a moment ago through another gateway, perhaps: read the topic to its end
            await self.follower.sync()
            owner = self.owners.get(producer_id)
        name = ANONYMOUS if principal is None else principal
        if owner is None or self._expired(owner) or owner.principal != name:
            raise InvalidRequest(
                ErrorCode.UNKNOWN_PRODUCER_ID,
                f"producer id {producer_id} was never issued to this principal, or was "
                "forgotten after its expiration time without writes; call POST /v1/producers",
            )
        if owner.transactional_id is not None:
            raise Conflict(
                ErrorCode.INVALID_TXN_STATE,
                f"producer id {producer_id} belongs to transactional id "
                f"{owner.transactional_id!r}: produce with its transactional_id",
            )
        if owner.written_ms < self.clock.now_ms() - self.expiration_ms // 4:
            await self._refresh(producer_id, owner)

    async def _refresh(self, producer_id: int, owner: Owner) -> None:
        """Write the record again, so that a producer in use is not forgotten."""
        if producer_id in self._refreshing:
            return
        self._refreshing.add(producer_id)
        try:
            await self.issued(producer_id, owner.principal, owner.transactional_id)
        finally:
            self._refreshing.discard(producer_id)

    async def expire(self) -> int:
        """Write a tombstone for every record older than the expiration time; answers how
        many."""
        await self.follower.sync()
        expired = [pid for pid, owner in self.owners.items() if self._expired(owner)]
        for producer_id in expired:
            owner = self.owners.get(producer_id)
            if owner is None or not self._expired(owner):
                continue  # written again meanwhile
            await self._write(producer_id, None)
            self.owners.pop(producer_id, None)
        return len(expired)

    async def run_expiry(self) -> None:
        """``expire()`` every quarter of the expiration time (at most every 10 minutes), for as
        long as the gateway runs."""
        await every(
            min(self.expiration_ms // 4, 600_000) / 1000,
            self.expire,
            f"expiring the records of {TOPIC}",
        )
