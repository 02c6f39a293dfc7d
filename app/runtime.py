"""Broker: builds and owns storage, metadata, the flusher, topics and background tasks.

Routers call one Broker method each. Produce is: validate and encode → append on the event loop
(synchronous, so requests never interleave inside a partition) → await the group-commit fsync →
answer. Reads see only what is durable (fsync=always).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import orjson

from app import metrics
from app.clock import Clock, SystemClock
from app.config import Settings
from app.datadir import DataDir
from app.errors import Conflict, ErrorCode, InvalidRequest, SluiceError, TooLarge, Unavailable
from app.flusher import Flusher
from app.groups.coordinator import GroupCoordinator  # consumer groups
from app.metadata.db import Database
from app.metadata.groups import GroupStore  # consumer groups
from app.metadata.migrate import migrate
from app.metadata.store import IdempotencyRow, IdempotencyStore, TopicStore

# idempotent producer and transactions
from app.metadata.txn_store import ProducerIdStore, TransactionStore
from app.partitioner import partition_for_key
from app.producers.ids import ProducerIds
from app.producers.manager import ProducerStateManager
from app.share.admin import ShareGroupAdmin
from app.share.coordinator import AckRequest, ShareGroupCoordinator  # share groups
from app.share.txn import ShareTxnParticipant
from app.storage import record
from app.storage.log import PartitionLog, ReadResult
from app.storage.manager import LogManager
from app.storage.record import Record
from app.topics import Topic, TopicRegistry
from app.transactions.coordinator import TransactionCoordinator
from app.transactions.participants import OffsetParticipant
from app.transactions.produce import (
    BatchResult,
    ProduceBatch,
    ProduceService,
    producer_state,
)

log = logging.getLogger("sluice")


class Produced(NamedTuple):
    partition: int
    offset: int
    timestamp: int


@dataclass(slots=True)
class ReadAnswer:
    result: ReadResult
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int


class Broker:
    def __init__(self, settings: Settings, clock: Clock | None = None,
                 offset_participant: OffsetParticipant | Literal["groups"] | None = "groups"
                 ) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.data = DataDir(settings.data_dir)
        self.db = Database(self.data.metadata)
        self.log_manager = LogManager(self.data.logs, durable_reads=settings.fsync == "always",
                                      producer_state=ProducerStateManager)
        self.flusher = Flusher(always=settings.fsync == "always",
                               interval_ms=settings.fsync_interval_ms,
                               checkpoint_interval_ms=settings.checkpoint_interval_ms,
                               clock=self.clock, on_durable=self._wake_readers)
        self.flusher.observe_round = metrics.FSYNC_SECONDS.observe
        self.topics = TopicRegistry(TopicStore(self.db), self.log_manager, self.flusher,
                                    settings.max_partitions)
        self.idempotency = IdempotencyStore(self.db)
        self._idempotency_inflight: dict[str, asyncio.Future[None]] = {}
        # consumer groups
        self.groups = GroupCoordinator(settings, self.clock, GroupStore(self.db), self.topics,
                                       lambda: self.ready)
        self._readers: dict[PartitionLog, list[asyncio.Future[None]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._log_start_locks: dict[PartitionLog, asyncio.Lock] = {}
        self.ready = False
        self.stopping = False
        self.stopped = False
        # idempotent producer and transactions
        self.producer_ids = ProducerIds(ProducerIdStore(self.db), settings.producer_id_block_size)
        self.producers = ProduceService(self.topics, self.flusher, self.clock, self.producer_ids)
        self.producers.on_append = self._wake_if_interval
        # share groups
        self.share = ShareGroupCoordinator(settings, self.clock, self.db, self.topics,
                                           self.flusher)
        self.share_admin = ShareGroupAdmin(self.share)
        self.share_txn = ShareTxnParticipant(self.share)
        # consumer groups take part in transactions (KIP-447) unless a test brings its own
        # (None: a server without them), share groups with transactional acknowledgements
        self.transactions = TransactionCoordinator(
            TransactionStore(self.db), self.producer_ids, self.clock, settings,
            markers=self.producers,
            offsets=self.groups if offset_participant == "groups" else offset_participant,
            acks=self.share_txn)
        self.producers.coordinator = self.transactions

    # -- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Open metadata and logs (recovery), start background tasks, become ready."""
        if not self.data.locked:
            self.data.lock()
        try:
            await self.db.open()
            applied = await migrate(self.db.writer)
            if applied:
                log.info("applied migrations: %s", ", ".join(applied))
            await self.topics.load(self.clock.now_ms())
            await self.producer_ids.load()  # transactions
            await self.transactions.load()  # transactions
            await self.groups.load()  # consumer groups
            await self.share.load()  # share groups
        except BaseException:
            await self.db.close()
            self.data.unlock()
            raise
        self._spawn("flusher", self.flusher.run)
        self._spawn("share-state-writer", self.share.run_writer)
        # transactions: finish every Prepare* (markers need the flusher), then the sweepers
        await self.transactions.recover()
        self._spawn("txn-timeouts", self._txn_timeout_loop)
        self._spawn("producer-expiry", self._producer_expiry_loop)
        self._spawn("retention", self._retention_loop)
        self._spawn("idempotency-expiry", self._idempotency_loop)
        self._spawn("group-sessions", self.groups.run_expiry)  # consumer groups
        # share groups (the state writer runs since before recovery)
        self._spawn("share-timers", self.share.run_timers)
        self._spawn("share-sessions", self.share.membership.run_sessions)
        self.ready = True
        log.info("ready: %d topics in %s", len(self.topics.topics), self.data.path)

    def begin_shutdown(self) -> None:
        """Stop accepting work and release long polls; in-flight writes still finish."""
        self.ready = False
        self.stopping = True
        self.share.begin_shutdown()  # share groups
        for waiters in self._readers.values():
            for fut in waiters:
                if not fut.done():
                    fut.set_result(None)

    async def stop(self) -> None:
        self.begin_shutdown()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.share.close()  # share groups: the last state round
        await self.flusher.close()
        self.log_manager.close_all(clean=True)
        await self.db.close()
        self.data.unlock()
        self.stopped = True
        log.info("stopped cleanly")

    def _spawn(self, name: str, loop: Callable[[], Awaitable[None]]) -> None:
        async def supervised() -> None:
            while True:
                try:
                    await loop()
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("background task %s failed; restarting it in 1 s", name)
                    await asyncio.sleep(1)

        self._tasks.append(asyncio.create_task(supervised(), name=f"sluice-{name}"))

    # -- produce ------------------------------------------------------------------------------

    async def produce(self, topic_name: str, records: list[tuple[int | None, Record]],
                      *, idempotency_key: str | None = None, body: bytes = b"") -> list[Produced]:
        if idempotency_key is not None:
            return await self._produce_idempotent(topic_name, records, idempotency_key, body)
        return await self._produce(topic_name, records)

    async def _produce(self, topic_name: str,
                       records: list[tuple[int | None, Record]]) -> list[Produced]:
        self._check_ready()
        topic = self.topics.get(topic_name)
        placement = self._place(topic, records)
        bases = self._append(topic, placement, records)
        await self._wait_durable(topic, bases)
        metrics.RECORDS_IN.inc(len(records))
        return self._answer(placement, records, bases)

    def _append(self, topic: Topic, placement: list[int],
                records: list[tuple[int | None, Record]], *, tag: int | None = None,
                skip: Collection[int] = ()) -> dict[int, int]:
        """Append one batch per partition (synchronously); returns each base offset."""
        now = self.clock.now_ms()
        first = placement[0]
        if all(p == first for p in placement):
            by_partition = {first: [rec for _, rec in records]}
        else:
            by_partition = {}
            for p, (_, rec) in zip(placement, records, strict=True):
                by_partition.setdefault(p, []).append(rec)
        tagged = {} if tag is None else {"producer_id": tag, "attributes": record.KEYED_FLAG}
        bases: dict[int, int] = {}
        for p, recs in by_partition.items():
            if p in skip:
                continue
            lg = topic.log(p)
            try:
                bases[p] = lg.append(recs, now_ms=now, **tagged).base_offset
            except OSError as exc:
                raise Unavailable(ErrorCode.STORAGE_ERROR, f"append failed: {exc}") from exc
            if not self.flusher.always:
                self._wake_readers(lg)
        return bases

    async def _wait_durable(self, topic: Topic, partitions: Collection[int]) -> None:
        await self.flusher.wait_durable([topic.log(p) for p in partitions])

    @staticmethod
    def _answer(placement: list[int], records: list[tuple[int | None, Record]],
                bases: dict[int, int]) -> list[Produced]:
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

    def _place(self, topic: Topic, records: list[tuple[int | None, Record]]) -> list[int]:
        """The partition of each record: explicit, by key (murmur2), or one sticky partition.

        The records were parsed under the server's ``max_record_bytes``; a topic whose
        ``max_message_bytes`` is not smaller needs no second size check.
        """
        n = topic.partitions
        limit = topic.max_message_bytes
        if limit >= self.settings.max_record_bytes:
            wanted = {p for p, _ in records}
            if len(wanted) == 1:  # the common request: one explicit partition, or none
                (p,) = wanted
                if p is not None:
                    topic.log(p)  # raises UNKNOWN_TOPIC_OR_PARTITION
                    return [p] * len(records)
                if all(rec.key is None for _, rec in records):
                    return [topic.next_sticky_partition()] * len(records)
        sticky = -1
        out = []
        for p, rec in records:
            key, value = rec.key, rec.value
            if p is None:
                if key is not None:
                    p = partition_for_key(key, n)
                else:
                    if sticky < 0:
                        sticky = topic.next_sticky_partition()
                    p = sticky
            elif p >= n:
                topic.log(p)  # raises UNKNOWN_TOPIC_OR_PARTITION
            if (len(value) if value else 0) + (len(key) if key else 0) > limit:
                raise TooLarge(ErrorCode.RECORD_TOO_LARGE,
                               f"a record exceeds max_message_bytes of topic {topic.name!r}")
            out.append(p)
        return out

    async def _produce_idempotent(self, topic_name: str,
                                  records: list[tuple[int | None, Record]], key: str,
                                  body: bytes) -> list[Produced]:
        """Simple produce under an Idempotency-Key: a retry answers the first answer.

        The key is reserved in SQLite (with the planned partition of each record and the end
        offset of each partition) before anything is appended; the batches carry the key's
        hash; the key is completed with the answer once the records are durable. A retry that
        finds the key still pending (the server stopped in between) looks for the tagged
        batches from the recorded offsets and appends only what is not there.
        """
        if not 1 <= len(key) <= 255:
            raise InvalidRequest("Idempotency-Key must be 1 to 255 characters")
        self._check_ready()
        topic = self.topics.get(topic_name)
        digest = hashlib.sha256(topic_name.encode() + b"\0" + body).digest()
        tag = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
        while (pending := self._idempotency_inflight.get(key)) is not None:
            await asyncio.shield(pending)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._idempotency_inflight[key] = done
        try:
            row = await self.idempotency.get(key)
            now = self.clock.now_ms()
            window = self.settings.idempotency_key_retention_ms
            if row is not None and row.created_ms < now - window:
                row = None  # expired (deleting a topic deletes its keys)
            if row is not None and row.request_hash != digest:
                raise Conflict(ErrorCode.IDEMPOTENCY_KEY_REUSED,
                               "this Idempotency-Key was used with a different request")
            if row is not None and row.response is not None:
                return [Produced(*t) for t in orjson.loads(row.response)]
            if row is not None:  # pending: the server stopped between reserve and complete
                placement = row.placement
                found = {p: h for p, start in row.start_offsets.items()
                         if (h := topic.log(p).find_keyed_batch(start, tag)) is not None}
            else:
                placement = self._place(topic, records)
                found = {}
                starts = {p: topic.log(p).log_end_offset for p in set(placement)}
                await self.idempotency.reserve(IdempotencyRow(
                    key, topic.topic_id, digest, placement, starts, None, now))
            bases = self._append(topic, placement, records, tag=tag, skip=found)
            await self._wait_durable(topic, set(placement))
            bases.update({p: h.base_offset for p, h in found.items()})
            out = self._answer(placement, records, bases)
            if found:  # answer the stored timestamps of what the first attempt appended
                out = [self._stored(topic, o) if o.partition in found else o for o in out]
            await self.idempotency.complete(key, orjson.dumps(
                [(o.partition, o.offset, o.timestamp) for o in out]))
            metrics.RECORDS_IN.inc(len(records))
            return out
        finally:
            del self._idempotency_inflight[key]
            done.set_result(None)

    @staticmethod
    def _stored(topic: Topic, o: Produced) -> Produced:
        lg = topic.log(o.partition)
        got = lg.read(o.offset, 1, 1, upto=lg.log_end_offset).records
        return Produced(o.partition, o.offset, got[0].timestamp if got else o.timestamp)

    # -- reads --------------------------------------------------------------------------------

    async def read(self, topic_name: str, partition: int, offset: int, *, max_records: int,
                   max_bytes: int, max_wait_ms: int, committed: bool = False) -> ReadAnswer:
        self._check_ready()
        lg = self.topics.get(topic_name).log(partition)
        if offset < lg.log_start_offset or offset > lg.high_watermark:
            raise Conflict(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"offset {offset} is outside [{lg.log_start_offset}, {lg.high_watermark}]",
            )
        result = lg.read(offset, max_records, max_bytes, committed=committed)
        if not result.records and max_wait_ms > 0:
            deadline = self.clock.monotonic() + max_wait_ms / 1000
            while not result.records and not self.stopping:
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0:
                    break
                await self._wait_for_data(lg, remaining)
                lg = self.topics.get(topic_name).log(partition)
                if result.next_offset < lg.log_start_offset:
                    break
                result = lg.read(result.next_offset, max_records, max_bytes,
                                 committed=committed)
        metrics.RECORDS_OUT.inc(len(result.records))
        return ReadAnswer(result, lg.high_watermark, lg.last_stable_offset, lg.log_start_offset)

    async def _wait_for_data(self, lg: PartitionLog, timeout: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._readers.setdefault(lg, [])
        waiters.append(fut)
        try:
            await asyncio.wait([fut], timeout=timeout)
        finally:
            if fut in waiters:
                waiters.remove(fut)

    def _wake_readers(self, lg: PartitionLog) -> None:
        self.share.on_data(lg)  # share groups
        waiters = self._readers.pop(lg, None)
        for fut in waiters or ():
            if not fut.done():
                fut.set_result(None)

    def list_offsets(self, topic_name: str, partition: int, at: str,
                     committed: bool = False) -> tuple[int, int]:
        """ListOffsets: (offset, timestamp) for earliest, latest or a timestamp; "latest" is
        the last stable offset under read_committed."""
        self._check_ready()
        lg = self.topics.get(topic_name).log(partition)
        if at == "earliest":
            return lg.log_start_offset, -1
        if at == "latest":
            return (lg.last_stable_offset if committed else lg.high_watermark), -1
        if at.startswith("-") and at[1:].isascii() and at[1:].isdigit():
            raise InvalidRequest("at: a timestamp must be ≥ 0", ErrorCode.INVALID_TIMESTAMP)
        if not at.isascii() or not at.isdigit() or len(at) > 18:
            raise InvalidRequest("at must be earliest, latest or a timestamp in ms")
        ts = int(at)
        found = lg.offset_for_timestamp(ts, upto=lg.last_stable_offset if committed else None)
        return found if found is not None else (-1, -1)

    # -- deletion and retention ---------------------------------------------------------------

    async def delete_records(self, topic_name: str, partitions: list[tuple[int, int]]
                             ) -> list[tuple[int, int]]:
        """Move log starts forward; answers (partition, new log start offset)."""
        self._check_ready()
        topic = self.topics.get(topic_name)
        targets: list[tuple[PartitionLog, int, int]] = []
        for p, before in partitions:
            lg = topic.log(p)
            offset = lg.high_watermark if before == -1 else before
            if not 0 <= offset <= lg.high_watermark:
                raise Conflict(ErrorCode.OFFSET_OUT_OF_RANGE,
                               f"partition {p}: before_offset {before} is beyond the high "
                               f"watermark {lg.high_watermark}")
            targets.append((lg, p, offset))
        out = []
        for lg, p, offset in targets:
            lock = self._log_start_locks.setdefault(lg, asyncio.Lock())
            async with lock:
                if offset > lg.log_start_offset:
                    previous = lg.log_start_offset
                    lg.log_start_offset = offset
                    try:
                        await asyncio.to_thread(lg.persist_log_start)
                    except OSError as exc:
                        lg.log_start_offset = previous
                        raise Unavailable(ErrorCode.STORAGE_ERROR, str(exc)) from exc
            out.append((p, lg.log_start_offset))
        await self.apply_retention()
        return out

    async def apply_retention(self) -> int:
        """Delete whole segments past retention or below the log start; returns how many."""
        now = self.clock.now_ms()
        deleted = 0
        for topic in list(self.topics.topics.values()):
            if topic.deleting:
                continue
            for lg in topic.logs:
                if lg.active_expired(now):
                    lg.roll(now)
                doomed = lg.deletable_segments(now)
                if doomed:
                    async with self.flusher.exclusive():
                        lg.remove_segments(doomed)
                    deleted += len(doomed)
        return deleted

    async def _retention_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.retention_check_interval_ms / 1000)
            n = await self.apply_retention()
            if n:
                log.info("retention deleted %d segments", n)

    async def _idempotency_loop(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.idempotency_key_retention_ms / 1000, 3600))
            await self.idempotency.expire(
                self.clock.now_ms() - self.settings.idempotency_key_retention_ms)

    # -- idempotent producer and transactions -------------------------------------------------

    @property
    def offset_participant(self) -> OffsetParticipant | None:
        """The side of offsets in a transaction that keeps them: the consumer groups, unless a
        test brings its own (None: the offsets endpoint answers GROUPS_UNAVAILABLE)."""
        return self.transactions.offsets

    async def init_producer(self, tid: str | None, timeout_ms: int, producer_id: int | None,
                            producer_epoch: int | None) -> tuple[int, int]:
        self._check_ready()
        return await self.transactions.init_producer_id(tid, timeout_ms, producer_id,
                                                        producer_epoch)

    async def produce_batches(self, producer_id: int, producer_epoch: int, tid: str | None,
                              batches: list[ProduceBatch]) -> list[BatchResult]:
        self._check_ready()
        results = await self.producers.produce(producer_id, producer_epoch, tid, batches)
        metrics.RECORDS_IN.inc(sum(len(b.records) for b, r in zip(batches, results, strict=True)
                                   if r.error is None))
        return results

    async def end_transaction(self, tid: str, producer_id: int, producer_epoch: int,
                              commit: bool) -> tuple[int, int]:
        self._check_ready()
        return await self.transactions.end_txn(tid, producer_id, producer_epoch, commit)

    async def transaction_offsets(self, tid: str, producer_id: int, producer_epoch: int,
                                  group_id: str, member_id: str | None, member_epoch: int,
                                  group_instance_id: str | None,
                                  offsets: list[tuple[str, int, int, str | None]]) -> None:
        self._check_ready()
        await self.transactions.add_offsets(tid, producer_id, producer_epoch, group_id,
                                            member_id, member_epoch, group_instance_id, offsets)

    async def transaction_acknowledgements(  # transactional share acknowledgements
            self, tid: str, producer_id: int, producer_epoch: int, group_id: str,
            member_id: str, acks: AckRequest) -> list[tuple[tuple[str, int], SluiceError | None]]:
        self._check_ready()
        return await self.transactions.add_acknowledgements(tid, producer_id, producer_epoch,
                                                            group_id, member_id, acks)

    def expire_producers(self) -> int:
        """Forget producer state idle longer than the producer-id expiration."""
        before = self.clock.now_ms() - self.settings.producer_id_expiration_ms
        return sum(producer_state(lg).expire(before)
                   for topic in self.topics.topics.values() for lg in topic.logs)

    async def _txn_timeout_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.txn_timeout_check_interval_ms / 1000)
            await self.transactions.abort_timed_out()

    async def _producer_expiry_loop(self) -> None:
        while True:
            await asyncio.sleep(min(self.settings.producer_id_expiration_ms, 600_000) / 1000)
            n = self.expire_producers()
            if n:
                log.info("forgot the state of %d idle producers", n)

    def _wake_if_interval(self, lg: PartitionLog) -> None:
        if not self.flusher.always:
            self._wake_readers(lg)

    # -- misc ---------------------------------------------------------------------------------

    def _check_ready(self) -> None:
        if not self.ready:
            raise Unavailable(ErrorCode.NOT_READY)

    def statistics(self) -> dict[str, Any]:
        s = self.flusher.stats
        return {
            "topics": len(self.topics.topics),
            "partitions": sum(t.partitions for t in self.topics.topics.values()),
            "flush_rounds": s.rounds,
            "fsyncs": s.fsyncs,
            "flush_waiters_served": s.waiters_served,
            "transactions": self.transactions.statistics(),  # transactions
            **self.share.statistics(),  # share groups
        }
