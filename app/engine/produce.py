"""The seam's produce: simple produce (with or without an ``Idempotency-Key``), client-built
record batches, and produce with producer state (idempotent or transactional).

Used by ``app/api/routes/records.py`` (``POST /v1/topics/{topic}/records``, ``POST
…/partitions/{partition}/batches``) and ``app/api/routes/producers.py`` (``POST
/v1/produce``), through ``deps.engine_of``. Implemented by
``app.producers.produce.ProduceService``
(``Broker.producers``); on Kafka by Produce with ``acks=all``, the gateway building the
batches, and by a transaction per ``Idempotency-Key`` (docs/kafka.md, "Produce" and "Producers
and transactions").

Every method answers only once its records are as durable as the durability policy promises
(docs/semantics.md#durability-order): fsynced under ``fsync=always``, appended and readable
under ``fsync=interval``; on Kafka, on ``min.insync.replicas`` replicas. Any method can raise
``UNKNOWN_TOPIC_OR_PARTITION``, ``RECORD_TOO_LARGE``, ``KAFKA_STORAGE_ERROR`` (507: the disk
refused the write; nothing was answered as written).
"""

from __future__ import annotations

from typing import Protocol

from app.producers.appender import BatchResult, ProduceBatch
from app.producers.produce import Placed, Produced


class Produce(Protocol):
    async def produce(self, topic_name: str, records: Placed) -> list[Produced]:
        """Records placed by partition (explicit, or None: by the key's murmur2, unkeyed ones
        one partition per request); answers each record's ``(partition, offset,
        timestamp)`` in request order."""
        ...

    async def produce_keyed(
        self,
        topic_name: str,
        records: Placed,
        key: str,
        body: bytes,
        owner: str | None = None,
    ) -> list[Produced]:
        """As ``produce``, once per ``key`` of ``owner`` (the principal): a retry with the same
        key and body answers the first answer without appending. The key's answer is durable
        before this returns. Raises ``IDEMPOTENCY_KEY_REUSED`` (the key with another topic or
        body), ``INVALID_REQUEST`` (a key of more than 255 characters)."""
        ...

    async def produce_client_batches(
        self,
        topic_name: str,
        partition: int,
        body: bytes,
        tid: str | None,
        principal: str | None,
    ) -> list[BatchResult]:
        """The RecordBatch v2 of ``body`` appended as they are; all checked before any is
        appended. Raises ``CORRUPT_MESSAGE``, ``INVALID_RECORD``,
        ``UNSUPPORTED_COMPRESSION_TYPE``, ``REQUEST_TOO_LARGE``, and for a producer's batch
        what ``produce_batches`` raises."""
        ...

    async def produce_batches(
        self,
        producer_id: int,
        epoch: int,
        tid: str | None,
        batches: list[ProduceBatch],
        principal: str | None,
    ) -> list[BatchResult]:
        """``POST /v1/produce``: one batch per partition with the client's producer id, epoch
        and base sequence; duplicates of the last five batches answer their first offsets.
        Per-batch errors (sequence, epoch) are in each ``BatchResult.error``; the whole request
        raises ``UNKNOWN_PRODUCER_ID`` (an id not issued to ``principal``),
        ``INVALID_TXN_STATE`` (the transactional bit does not match ``tid``),
        ``PRODUCER_FENCED``, ``INVALID_PRODUCER_EPOCH``, ``TRANSACTION_TIMED_OUT``."""
        ...
