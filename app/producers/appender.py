"""Appender: the one way records reach a partition log.

Every append goes through here: client records (plain, tagged with an Idempotency-Key's hash,
or carrying producer id, epoch and sequence), transaction markers and dead-letter copies. The
appender owns what every append shares:

- the size rule: a record's key and value together may not exceed the topic's
  ``max_message_bytes`` (``check_sizes``);
- publishing new data: under fsync=interval appended records are visible at once, so readers
  are told at once; under fsync=always the flusher tells them after the round that made the
  records durable;
- waiting for durability (``wait_durable``), forced for markers even under fsync=interval,
  because the Complete* that follows them in the metadata relies on them.

Appends are synchronous (no await between a caller's checks and its append, so requests never
interleave inside a partition); failures of the disk arrive as ``StorageError`` from storage.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from app.clock import Clock
from app.errors import Conflict, ErrorCode, SluiceError, TooLarge
from app.flusher import Flusher
from app.producers.manager import AppendPlan, ProducerStateManager
from app.storage import record
from app.storage.log import AppendInfo, PartitionLog
from app.storage.record import Record
from app.topics import Topic, TopicRegistry


@dataclass(slots=True)
class ProduceBatch:
    """Records for one partition from a producer with state (idempotent or transactional):
    parsed from JSON, or a record batch the client built (``raw``, checked, with its
    header)."""

    topic: str
    partition: int
    base_sequence: int
    records: list[Record]
    raw: bytearray | memoryview | None = None
    header: record.BatchHeader | None = None

    @property
    def count(self) -> int:
        return self.header.record_count if self.header is not None else len(self.records)


@dataclass(slots=True)
class BatchResult:
    topic: str
    partition: int
    base_offset: int
    error: SluiceError | None


# a batch checked against its partition's producer state: its plan, or None for a retry
CheckedBatch = tuple[PartitionLog, ProduceBatch, BatchResult, AppendPlan | None]


def producer_state(lg: PartitionLog) -> ProducerStateManager:
    state = lg.producer_state
    assert isinstance(state, ProducerStateManager), "logs are opened with producer state"
    return state


class Appender:
    def __init__(self, topics: TopicRegistry, flusher: Flusher, clock: Clock) -> None:
        self.topics = topics
        self.flusher = flusher
        self.clock = clock

    # -- records ------------------------------------------------------------------------------

    @staticmethod
    def check_sizes(topic: Topic, records: Iterable[Record]) -> None:
        """RECORD_TOO_LARGE when a record's key and value exceed ``max_message_bytes``."""
        limit = topic.max_message_bytes
        for r in records:
            if record.payload_size(r) > limit:
                raise TooLarge(
                    ErrorCode.RECORD_TOO_LARGE,
                    f"a record exceeds max_message_bytes of topic {topic.name!r}",
                )

    def append(
        self,
        lg: PartitionLog,
        records: Sequence[Record],
        *,
        now_ms: int,
        producer_id: int = -1,
        producer_epoch: int = -1,
        base_sequence: int = -1,
        attributes: int = 0,
        leader_epoch: int = record.NO_LEADER_EPOCH,
    ) -> AppendInfo:
        """Append one batch (page cache, not yet durable) and publish it where visible."""
        info = lg.append(
            records,
            now_ms=now_ms,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            attributes=attributes,
            leader_epoch=leader_epoch,
        )
        self.flusher.appended(lg)
        return info

    def append_batch(
        self, lg: PartitionLog, batch: bytearray | memoryview, h: record.BatchHeader, *, now_ms: int
    ) -> AppendInfo:
        """Append a record batch a client built, as it is (``PartitionLog.append_batch``)."""
        info = lg.append_batch(batch, h, now_ms=now_ms)
        self.flusher.appended(lg)
        return info

    def resolve(self, b: ProduceBatch, parsed_under: int) -> PartitionLog:
        """The batch's partition log, its records within the topic's size limit; raises
        UNKNOWN_TOPIC_OR_PARTITION or RECORD_TOO_LARGE. Records parsed under a server limit
        (``parsed_under``) not above the topic's need no second look."""
        topic = self.topics.get(b.topic)
        lg = topic.log(b.partition)
        if topic.max_message_bytes < parsed_under:
            self.check_sizes(topic, b.records)
        return lg

    def append_producer_batches(
        self,
        producer_id: int,
        epoch: int,
        batches: Sequence[tuple[PartitionLog, ProduceBatch, BatchResult]],
        *,
        transactional: bool,
    ) -> list[PartitionLog]:
        """``check_producer_batches`` then ``append_checked``: a refused batch gets its error
        in its result, the others are appended. Answers the logs to wait on."""
        checked = self.check_producer_batches(
            producer_id, epoch, batches, transactional=transactional
        )
        return self.append_checked(producer_id, epoch, checked, transactional=transactional)

    @staticmethod
    def check_producer_batches(
        producer_id: int,
        epoch: int,
        batches: Sequence[tuple[PartitionLog, ProduceBatch, BatchResult]],
        *,
        transactional: bool,
        all_or_nothing: bool = False,
    ) -> list[CheckedBatch]:
        """Check every batch against its partition's producer state (epoch, sequence,
        duplicates); appends nothing. A retried batch answers its original base offset. A
        refused batch gets its error in its result and is left out; with ``all_or_nothing``
        the first refusal is raised instead. One batch per partition."""
        checked: list[CheckedBatch] = []
        for i, (lg, b, res) in enumerate(batches):
            try:
                plan = producer_state(lg).prepare(
                    producer_id, epoch, b.base_sequence, b.count, transactional
                )
            except Conflict as exc:
                if all_or_nothing:  # named as the request names it: ``batches[i]``
                    raise Conflict(
                        exc.code, f"batches[{i}] ({b.topic}/{b.partition}): {exc.message}"
                    ) from None
                res.error = exc
                continue
            if isinstance(plan, AppendPlan):
                checked.append((lg, b, res, plan))
            else:
                res.base_offset = plan.first_offset  # a retry: the original answer
                checked.append((lg, b, res, None))
        return checked

    def append_checked(
        self, producer_id: int, epoch: int, checked: list[CheckedBatch], *, transactional: bool
    ) -> list[PartitionLog]:
        """Append the checked batches (with no await since the check) and record them in
        their partitions' producer state. Answers the logs to wait on."""
        now = self.clock.now_ms()
        attributes = record.TRANSACTIONAL_FLAG if transactional else 0
        for lg, b, res, maybe_plan in checked:
            if maybe_plan is None:
                continue
            if b.raw is not None and b.header is not None:
                info = self.append_batch(lg, b.raw, b.header, now_ms=now)
            else:
                info = self.append(
                    lg,
                    b.records,
                    now_ms=now,
                    producer_id=producer_id,
                    producer_epoch=epoch,
                    base_sequence=b.base_sequence,
                    attributes=attributes,
                )
            producer_state(lg).commit(maybe_plan, info.base_offset, info.last_offset, now)
            res.base_offset = info.base_offset
        return [lg for lg, _, _, _ in checked]

    def open_transactions(self) -> dict[int, dict[tuple[str, int], int]]:
        """Every producer id with a transaction open on some partition: each such partition
        with the producer's epoch there (read at start, after the logs' recovery)."""
        out: dict[int, dict[tuple[str, int], int]] = {}
        for topic in self.topics.topics.values():
            for p, lg in enumerate(topic.logs):
                for pid, entry in producer_state(lg).entries.items():
                    if entry.txn_first_offset >= 0:
                        out.setdefault(pid, {})[(topic.name, p)] = entry.epoch
        return out

    async def make_durable(self, partitions: Collection[tuple[str, int]]) -> None:
        """Under fsync=interval, fsync the partitions now (a transaction's decision must not
        be written before its records are durable); under fsync=always every answered append
        already is."""
        if self.flusher.always:
            return
        logs = []
        for name, p in partitions:
            topic = self.topics.topics.get(name)
            if topic is not None and not topic.deleting and p < topic.partitions:
                logs.append(topic.log(p))
        if logs:
            await self.wait_durable(logs, force=True)

    async def wait_durable(self, logs: Iterable[PartitionLog], *, force: bool = False) -> None:
        """Return once everything appended so far to ``logs`` is durable (fsync=always, or
        with ``force`` under fsync=interval too)."""
        await self.flusher.wait_durable(logs, force=force)

    # -- transaction markers (the transaction coordinator's MarkerWriter) ---------------------

    async def append_markers(
        self, producer_id: int, epoch: int, commit: bool, partitions: Collection[tuple[str, int]]
    ) -> None:
        """Append a COMMIT or ABORT marker to each partition and wait until all are durable,
        even under fsync=interval: Complete* follows, and nothing writes markers again.

        Partitions of topics deleted meanwhile are skipped.
        """
        now = self.clock.now_ms()
        logs: list[PartitionLog] = []
        for name, p in sorted(partitions):
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            lg = topic.log(p)
            lg.append_marker(producer_id, epoch, commit, now_ms=now)
            self.flusher.appended(lg)
            producer_state(lg).on_marker(producer_id, epoch, now)
            logs.append(lg)
        if logs:
            await self.wait_durable(logs, force=True)

    # -- copies (dead letters) ----------------------------------------------------------------

    async def append_copies(self, copies: Sequence[tuple[PartitionLog, list[Record]]]) -> int:
        """Append each list of records to its log as one batch; durable on return. Answers
        how many records were appended."""
        now = self.clock.now_ms()
        touched: dict[PartitionLog, None] = {}
        n = 0
        for lg, records in copies:
            if records:
                self.append(lg, records, now_ms=now)
                touched[lg] = None
                n += len(records)
        if touched:
            await self.wait_durable(touched)
        return n
