"""ProduceService: the three ways clients produce, over the one ``Appender``.

- **Plain** (``produce``): place each record (explicit partition, by key with murmur2, or one
  sticky partition), append one batch per partition, await the group-commit fsync, answer.
- **Idempotency-Key** (``produce_keyed``): a retry answers the first answer. The key is
  reserved in SQLite (with the planned partition of each record and the end offset of each
  partition) before anything is appended; the batches carry the key's hash; the key is
  completed with the answer once the records are durable. A retry that finds the key still
  pending (the server stopped in between) looks for the tagged batches from the recorded
  offsets and appends only what is not there.
- **Producer state** (``produce_batches``, idempotent and transactional): unknown producer id
  → 400; a producer id of a transactional id without that id → INVALID_TXN_STATE per batch
  (KIP-890); for a transactional id, join the partitions to the open transaction durably; then,
  with no await in between, verify the transaction is still ours and open, and for each batch
  check epoch and sequence against the partition's producer state, append, and record the
  batch (prepare → append → commit); await the fsync; answer. Per-batch errors go into the 200
  answer; fencing of the whole request is a request-level error.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Collection
from typing import NamedTuple, Protocol

import orjson

from app.clock import Clock
from app.config import Settings
from app.errors import Conflict, ErrorCode, InvalidRequest, SluiceError, TooLarge
from app.metadata.store import IdempotencyRow, IdempotencyStore
from app.metrics import Counter
from app.partitioner import partition_for_key
from app.producers.appender import Appender, BatchResult, ProduceBatch, producer_state
from app.producers.ids import ProducerIds
from app.storage import record
from app.storage.log import PartitionLog
from app.storage.record import Record
from app.topics import Topic, TopicRegistry

log = logging.getLogger("sluice.producers")

Placed = list[tuple[int | None, Record]]  # (requested partition or None, record)


class Produced(NamedTuple):
    partition: int
    offset: int
    timestamp: int


class TransactionGate(Protocol):
    """What produce with producer state needs of the transaction coordinator."""

    def owner_of(self, producer_id: int) -> str | None:
        """The transactional id the producer id belongs to; None for an idempotent one."""
        ...

    async def join_partitions(
        self, tid: str, producer_id: int, epoch: int, partitions: Collection[tuple[str, int]]
    ) -> None:
        """Add the partitions to the open transaction (starting one), durably."""
        ...

    def verify_produce(
        self, tid: str, producer_id: int, epoch: int, partitions: Collection[tuple[str, int]]
    ) -> None:
        """Right before the append (no await in between): still open, still ours."""
        ...


class ProduceService:
    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        topics: TopicRegistry,
        appender: Appender,
        ids: ProducerIds,
        idempotency: IdempotencyStore,
        transactions: TransactionGate,
        records_in: Counter,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.topics = topics
        self.appender = appender
        self.ids = ids
        self.idempotency = idempotency
        self.transactions = transactions
        self.records_in = records_in
        self._keys_in_flight: dict[str, asyncio.Future[None]] = {}

    # -- plain --------------------------------------------------------------------------------

    async def produce(self, topic_name: str, records: Placed) -> list[Produced]:
        topic = self.topics.get(topic_name)
        placement = self._place(topic, records)
        bases = self._append(topic, placement, records)
        await self.appender.wait_durable([topic.log(p) for p in bases])
        self.records_in.inc(len(records))
        topic.produced += len(records)
        return _answer(placement, records, bases)

    def _append(
        self,
        topic: Topic,
        placement: list[int],
        records: Placed,
        *,
        tag: int | None = None,
        skip: Collection[int] = (),
    ) -> dict[int, int]:
        """Append one batch per partition (synchronously); returns each base offset."""
        now = self.clock.now_ms()
        first = placement[0]
        if all(p == first for p in placement):
            by_partition = {first: [rec for _, rec in records]}
        else:
            by_partition = {}
            for p, (_, rec) in zip(placement, records, strict=True):
                by_partition.setdefault(p, []).append(rec)
        bases: dict[int, int] = {}
        for p, recs in by_partition.items():
            if p in skip:
                continue
            lg = topic.log(p)
            if tag is None:
                bases[p] = self.appender.append(lg, recs, now_ms=now).base_offset
            else:
                bases[p] = self.appender.append(lg, recs, now_ms=now, leader_epoch=tag).base_offset
        return bases

    def _place(self, topic: Topic, records: Placed) -> list[int]:
        """The partition of each record: explicit, by key (murmur2), or one sticky partition.

        The records were parsed under the server's ``max_record_bytes``; a topic whose
        ``max_message_bytes`` is not smaller needs no second size check.
        """
        n = topic.partitions
        if topic.max_message_bytes >= self.settings.max_record_bytes:
            wanted = {p for p, _ in records}
            if len(wanted) == 1:  # the common request: one explicit partition, or none
                (p,) = wanted
                if p is not None:
                    topic.log(p)  # raises UNKNOWN_TOPIC_OR_PARTITION
                    return [p] * len(records)
                if all(rec.key is None for _, rec in records):
                    return [topic.next_sticky_partition()] * len(records)
        else:
            self.appender.check_sizes(topic, (rec for _, rec in records))
        sticky = -1
        out = []
        for p, rec in records:
            if p is None:
                if rec.key is not None:
                    p = partition_for_key(rec.key, n)
                else:
                    if sticky < 0:
                        sticky = topic.next_sticky_partition()
                    p = sticky
            elif p >= n:
                topic.log(p)  # raises UNKNOWN_TOPIC_OR_PARTITION
            out.append(p)
        return out

    # -- under an Idempotency-Key -------------------------------------------------------------

    async def produce_keyed(
        self, topic_name: str, records: Placed, key: str, body: bytes, owner: str | None = None
    ) -> list[Produced]:
        """Plain produce whose retries answer the first answer (see the module docstring).
        ``owner``, the principal when keys are on, scopes the key: one principal's keys never
        meet another's (a reuse would refuse the other, and tell it the key was used)."""
        if not 1 <= len(key) <= 255:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "Idempotency-Key must be 1 to 255 characters"
            )
        if owner is not None:
            key = f"{owner}\0{key}"
        topic = self.topics.get(topic_name)
        digest = hashlib.sha256(topic_name.encode() + b"\0" + body).digest()
        tag = record.keyed_tag(
            int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        )
        while (pending := self._keys_in_flight.get(key)) is not None:
            await asyncio.shield(pending)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._keys_in_flight[key] = done
        try:
            row = await self.idempotency.get(key)
            now = self.clock.now_ms()
            window = self.settings.idempotency_key_retention_ms
            if row is not None and row.created_ms < now - window:
                row = None  # expired (deleting a topic deletes its keys)
            if row is not None and row.request_hash != digest:
                raise Conflict(
                    ErrorCode.IDEMPOTENCY_KEY_REUSED,
                    "this Idempotency-Key was used with a different request",
                )
            if row is not None and row.response is not None:
                return [Produced(*t) for t in orjson.loads(row.response)]
            if row is not None:  # pending: the server stopped between reserve and complete
                placement = row.placement
                found = {
                    p: h
                    for p, start in row.start_offsets.items()
                    if (h := topic.log(p).find_keyed_batch(start, tag)) is not None
                }
            else:
                placement = self._place(topic, records)
                found = {}
                starts = {p: topic.log(p).log_end_offset for p in set(placement)}
                await self.idempotency.reserve(
                    IdempotencyRow(key, topic.topic_id, digest, placement, starts, None, now)
                )
            bases = self._append(topic, placement, records, tag=tag, skip=found)
            await self.appender.wait_durable([topic.log(p) for p in set(placement)])
            bases.update({p: h.base_offset for p, h in found.items()})
            out = _answer(placement, records, bases)
            if found:  # answer the stored timestamps of what the first attempt appended
                out = [_stored(topic, o) if o.partition in found else o for o in out]
            await self.idempotency.complete(
                key, orjson.dumps([(o.partition, o.offset, o.timestamp) for o in out])
            )
            self.records_in.inc(len(records))
            topic.produced += len(records)
            return out
        finally:
            del self._keys_in_flight[key]
            done.set_result(None)

    async def run_key_expiry(self) -> None:
        """Forget Idempotency-Keys older than their retention."""
        retention = self.settings.idempotency_key_retention_ms
        while True:
            await asyncio.sleep(min(retention / 1000, 3600))
            await self.idempotency.expire(self.clock.now_ms() - retention)

    # -- with producer state (idempotent and transactional) -----------------------------------

    async def produce_batches(
        self,
        producer_id: int,
        epoch: int,
        tid: str | None,
        batches: list[ProduceBatch],
        principal: str | None,
    ) -> list[BatchResult]:
        """Produce with producer state. Without a transactional id, the producer id must have
        been issued to ``principal`` (docs/security.md#ownership); with one, it must be the
        transactional id's current one (``TransactionGate``), whose ACL the caller passed."""
        if tid is None and not self.ids.issued_to(producer_id, principal):
            raise InvalidRequest(
                ErrorCode.UNKNOWN_PRODUCER_ID,
                f"producer id {producer_id} was never issued to this principal; call "
                "POST /v1/producers",
            )
        results = [BatchResult(b.topic, b.partition, -1, None) for b in batches]
        resolved: list[tuple[PartitionLog, ProduceBatch, BatchResult]] = []
        for b, res in zip(batches, results, strict=True):
            try:
                resolved.append((self.appender.resolve(b, self.settings.max_record_bytes), b, res))
            except SluiceError as exc:
                res.error = exc
        if tid is None and (owner := self.transactions.owner_of(producer_id)) is not None:
            # KIP-890: a transactional producer writes only inside its transaction
            for _, _, res in resolved:
                res.error = Conflict(
                    ErrorCode.INVALID_TXN_STATE,
                    f"producer id {producer_id} belongs to transactional id {owner!r}: "
                    "produce with its transactional_id",
                )
            resolved = []
        wanted = [(b.topic, b.partition) for _, b, _ in resolved]
        if tid is not None and wanted:
            await self.transactions.join_partitions(tid, producer_id, epoch, wanted)
            self.transactions.verify_produce(tid, producer_id, epoch, wanted)
        # from here to the fsync wait: no await, so nothing interleaves
        touched = self.appender.append_producer_batches(
            producer_id, epoch, resolved, transactional=tid is not None
        )
        if touched:
            await self.appender.wait_durable(touched)
        # retries too: the metric counts records answered
        answered = [(b.topic, len(b.records)) for _, b, r in resolved if r.error is None]
        self.records_in.inc(sum(n for _, n in answered))
        for name, n in answered:
            if (topic := self.topics.topics.get(name)) is not None:
                topic.produced += n
        return results

    # -- record batches a client built -------------------------------------------------------

    async def produce_client_batches(
        self,
        topic_name: str,
        partition: int,
        body: bytes,
        tid: str | None,
        principal: str | None,
    ) -> list[BatchResult]:
        """Append the record batches of a produce body as they are (docs/api.md#produce-batches):
        every batch is checked first and none is appended if any is refused. Batches without
        a producer (id -1) are plain produce, several to a request; a producer's batch, one to
        a request as in Kafka, is held to the rules of ``produce_batches``."""
        topic = self.topics.get(topic_name)
        lg = topic.log(partition)
        checked = record.check_client_batches(
            body,
            max_record_bytes=self.settings.max_record_bytes,
            max_message_bytes=topic.max_message_bytes,
        )
        count = sum(b.header.record_count for b in checked)
        if count > self.settings.max_records_per_request:
            raise TooLarge(
                ErrorCode.REQUEST_TOO_LARGE,
                f"{count} records; the limit is {self.settings.max_records_per_request} a request",
            )
        data = memoryview(bytearray(body))  # one copy, whose batches get their base offsets
        first = checked[0].header
        if first.producer_id < 0:
            for i, b in enumerate(checked):
                h = b.header
                if h.producer_id >= 0 or h.producer_epoch != -1 or h.base_sequence != -1:
                    raise _invalid(i, "without a producer id, epoch and base sequence are -1")
                if h.is_transactional:
                    raise _invalid(i, "a transactional batch needs a producer id")
            if tid is not None:
                raise _invalid(0, "a transactional_id takes a transactional producer's batch")
            now = self.clock.now_ms()
            results = []
            for b in checked:
                info = self.appender.append_batch(lg, data[b.start : b.end], b.header, now_ms=now)
                results.append(BatchResult(topic_name, partition, info.base_offset, None))
            await self.appender.wait_durable([lg])
            self._count(topic, count)
            return results
        if len(checked) != 1:
            raise _invalid(1, "a producer's request holds one batch for a partition, as Kafka's")
        h = first
        pid, epoch = h.producer_id, h.producer_epoch
        if tid is None:
            if h.is_transactional:
                raise _invalid(0, "a transactional batch needs the request's transactional_id")
            if not self.ids.issued_to(pid, principal):
                raise InvalidRequest(
                    ErrorCode.UNKNOWN_PRODUCER_ID,
                    f"producer id {pid} was never issued to this principal; call "
                    "POST /v1/producers",
                )
            if (owner := self.transactions.owner_of(pid)) is not None:
                raise Conflict(
                    ErrorCode.INVALID_TXN_STATE,
                    f"producer id {pid} belongs to transactional id {owner!r}: produce with "
                    "its transactional_id",
                )
        elif not h.is_transactional:
            raise _invalid(0, "a request with a transactional_id takes transactional batches")
        batch = ProduceBatch(
            topic_name, partition, h.base_sequence, [], data[checked[0].start : checked[0].end], h
        )
        result = BatchResult(topic_name, partition, -1, None)
        if tid is not None:
            await self.transactions.join_partitions(tid, pid, epoch, [(topic_name, partition)])
            self.transactions.verify_produce(tid, pid, epoch, [(topic_name, partition)])
        # from the check to the append: no await, so nothing interleaves
        plans = self.appender.check_producer_batches(
            pid, epoch, [(lg, batch, result)], transactional=tid is not None, all_or_nothing=True
        )
        touched = self.appender.append_checked(pid, epoch, plans, transactional=tid is not None)
        await self.appender.wait_durable(touched)
        self._count(topic, count)
        return [result]

    def _count(self, topic: Topic, records: int) -> None:
        self.records_in.inc(records)
        topic.produced += records

    def expire_producers(self) -> int:
        """Forget producer state idle longer than the producer-id expiration."""
        before = self.clock.now_ms() - self.settings.producer_id_expiration_ms
        return sum(
            producer_state(lg).expire(before)
            for topic in self.topics.topics.values()
            for lg in topic.logs
        )

    async def run_producer_expiry(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.producer_id_expiration_ms, 600_000) / 1000)
            n = self.expire_producers()
            if n:
                log.info("forgot the state of %d idle producers", n)


def _invalid(index: int, message: str) -> InvalidRequest:
    return InvalidRequest(ErrorCode.INVALID_RECORD, f"batch {index}: {message}")


def _answer(placement: list[int], records: Placed, bases: dict[int, int]) -> list[Produced]:
    new = tuple.__new__  # a NamedTuple's own constructor costs twice as much per record
    if len(bases) == 1:
        ((p, base),) = bases.items()
        return [new(Produced, (p, base + i, rec[0])) for i, (_, rec) in enumerate(records)]
    next_offset = dict(bases)
    out: list[Produced] = []
    for p, (_, rec) in zip(placement, records, strict=True):
        out.append(Produced(p, next_offset[p], rec.timestamp))
        next_offset[p] += 1
    return out


def _stored(topic: Topic, o: Produced) -> Produced:
    lg = topic.log(o.partition)
    got = lg.read(o.offset, 1, 1, upto=lg.log_end_offset).records
    return Produced(o.partition, o.offset, got[0].timestamp if got else o.timestamp)
