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

from app.clock import Clock
from app.errors import ErrorCode, TooLarge
from app.flusher import Flusher
from app.producers.manager import ProducerStateManager
from app.storage import record
from app.storage.log import AppendInfo, PartitionLog
from app.storage.record import Record
from app.topics import Topic, TopicRegistry


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
    ) -> AppendInfo:
        """Append one batch (page cache, not yet durable) and publish it where visible."""
        info = lg.append(
            records,
            now_ms=now_ms,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            attributes=attributes,
        )
        self.flusher.appended(lg)
        return info

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
