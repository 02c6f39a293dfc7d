"""The seam's reads by offset: records (decoded, or the stored batches) and ListOffsets.

Used by ``app/api/routes/records.py`` (``GET …/partitions/{p}/records`` in its three formats,
``GET …/partitions/{p}/offsets``), through ``deps.engine_of``. Implemented by ``app.reads.Reads``
(``Broker.reads``); on Kafka by Fetch to the partition's leader and ListOffsets (docs/kafka.md,
"Reads").

Reads change nothing. A long poll (``max_wait_ms`` > 0) returns early when records arrive and
at once when the server begins to stop. Each may raise ``UNKNOWN_TOPIC_OR_PARTITION``,
``OFFSET_OUT_OF_RANGE`` (below the log start or beyond the high watermark),
``KAFKA_STORAGE_ERROR``. The caller clamps ``max_records`` and ``max_wait_ms`` to the server's
limits before calling.
"""

from __future__ import annotations

from typing import Protocol

from app.reads import BatchesAnswer, ReadAnswer


class Reads(Protocol):
    async def read(
        self,
        topic_name: str,
        partition: int,
        offset: int,
        *,
        max_records: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool = False,
    ) -> ReadAnswer:
        """Records from ``offset`` (``committed``: up to the last stable offset, without the
        records of aborted transactions and without markers), with the partition's offsets."""
        ...

    async def read_batches(
        self,
        topic_name: str,
        partition: int,
        offset: int,
        *,
        max_records: int,
        max_bytes: int,
        max_wait_ms: int,
        committed: bool = False,
    ) -> BatchesAnswer:
        """As ``read``, the record batches as stored (``format=batches``)."""
        ...

    async def list_offsets(
        self, topic_name: str, partition: int, at: str, committed: bool = False
    ) -> tuple[int, int]:
        """``(offset, timestamp)`` at ``earliest``, ``latest`` or the first record at a time
        (ms). Raises ``INVALID_TIMESTAMP``, ``INVALID_REQUEST`` (``at`` neither). A request to
        the partition's leader on Kafka; answered from memory on the embedded engine."""
        ...
