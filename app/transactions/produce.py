"""Produce with producer state (idempotent and transactional) and the markers that end a
transaction on each partition.

A request is: validate (unknown producer id → 400) → for a transactional id, join the
partitions to the open transaction durably → then, with no await in between, verify the
transaction is still ours and open, and for each batch check epoch and sequence against the
partition's producer state, append, and record the batch (prepare → append → commit) → await
the group-commit fsync → answer. Per-batch errors go into the 200 answer; fencing of the whole
request is a request-level error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from app.clock import Clock
from app.errors import Conflict, ErrorCode, InvalidRequest, SluiceError, TooLarge, Unavailable
from app.flusher import Flusher
from app.producers.ids import ProducerIds
from app.producers.manager import AppendPlan, ProducerStateManager
from app.storage import record
from app.storage.log import PartitionLog
from app.storage.record import Record
from app.topics import TopicRegistry
from app.transactions.coordinator import TransactionCoordinator


@dataclass(slots=True)
class ProduceBatch:
    topic: str
    partition: int
    base_sequence: int
    records: list[Record]


@dataclass(slots=True)
class BatchResult:
    topic: str
    partition: int
    base_offset: int
    error: SluiceError | None


def producer_state(lg: PartitionLog) -> ProducerStateManager:
    state = lg.producer_state
    assert isinstance(state, ProducerStateManager), "logs are opened with producer state"
    return state


class ProduceService:
    def __init__(self, topics: TopicRegistry, flusher: Flusher, clock: Clock,
                 ids: ProducerIds) -> None:
        self.topics = topics
        self.flusher = flusher
        self.clock = clock
        self.ids = ids
        self.coordinator: TransactionCoordinator | None = None
        self.on_append: Callable[[PartitionLog], None] = lambda lg: None

    async def produce(self, producer_id: int, epoch: int, tid: str | None,
                      batches: list[ProduceBatch]) -> list[BatchResult]:
        if not self.ids.is_known(producer_id):
            raise InvalidRequest(f"producer id {producer_id} was never issued; call "
                                 "POST /v1/producers", ErrorCode.UNKNOWN_PRODUCER_ID)
        results = [BatchResult(b.topic, b.partition, -1, None) for b in batches]
        logs: list[PartitionLog | None] = []
        for b, res in zip(batches, results, strict=True):
            try:
                topic = self.topics.get(b.topic)
                lg = topic.log(b.partition)
                limit = topic.max_message_bytes
                if any(len(r.value or b"") + len(r.key or b"") > limit for r in b.records):
                    raise TooLarge(ErrorCode.RECORD_TOO_LARGE,
                                   f"a record exceeds max_message_bytes of topic {b.topic!r}")
                logs.append(lg)
            except SluiceError as exc:
                res.error = exc
                logs.append(None)
        wanted = [(b.topic, b.partition) for b, lg in zip(batches, logs, strict=True)
                  if lg is not None]
        if tid is not None and wanted:
            assert self.coordinator is not None
            await self.coordinator.join_partitions(tid, producer_id, epoch, wanted)
            self.coordinator.verify_produce(tid, producer_id, epoch, wanted)
        # from here to the fsync wait: no await, so nothing interleaves
        now = self.clock.now_ms()
        attributes = record.TRANSACTIONAL_FLAG if tid is not None else 0
        touched: list[PartitionLog] = []
        for b, maybe_lg, res in zip(batches, logs, results, strict=True):
            if maybe_lg is None:
                continue
            lg = maybe_lg
            state = producer_state(lg)
            try:
                plan = state.prepare(producer_id, epoch, b.base_sequence, len(b.records),
                                     tid is not None)
            except Conflict as exc:
                res.error = exc
                continue
            touched.append(lg)
            if not isinstance(plan, AppendPlan):
                res.base_offset = plan.first_offset  # a retry: the original answer
                continue
            try:
                info = lg.append(b.records, now_ms=now, producer_id=producer_id,
                                 producer_epoch=epoch, base_sequence=b.base_sequence,
                                 attributes=attributes)
            except OSError as exc:
                raise Unavailable(ErrorCode.STORAGE_ERROR, f"append failed: {exc}") from exc
            state.commit(plan, info.base_offset, info.last_offset, now)
            res.base_offset = info.base_offset
            self.on_append(lg)
        if touched:
            await self.flusher.wait_durable(touched)
        return results

    async def write_markers(self, producer_id: int, epoch: int, commit: bool,
                            partitions: Collection[tuple[str, int]]) -> None:
        """Append a COMMIT or ABORT marker to each partition and wait until all are durable.

        Partitions of topics deleted meanwhile are skipped.
        """
        now = self.clock.now_ms()
        logs: list[PartitionLog] = []
        for name, p in sorted(partitions):
            topic = self.topics.topics.get(name)
            if topic is None or topic.deleting or p >= topic.partitions:
                continue
            lg = topic.log(p)
            try:
                lg.append_marker(producer_id, epoch, commit, now_ms=now)
            except OSError as exc:
                raise Unavailable(ErrorCode.STORAGE_ERROR, f"marker append failed: {exc}"
                                  ) from exc
            producer_state(lg).on_marker(producer_id, epoch, now)
            self.on_append(lg)
            logs.append(lg)
        if logs:
            # even under fsync=interval: Complete* follows, and nothing writes markers again
            await self.flusher.wait_durable(logs, force=True)

    append_markers = write_markers  # the transaction coordinator's MarkerWriter
