"""The seam's state of the engine's own storage, as ``/readyz`` shows it.

Used by ``app/api/routes/health.py`` through ``Engine.storage()``. Implemented today by
``app.storage.health.StorageHealth`` (``Broker.storage_health``): the embedded engine's disk.
On Kafka there is none (``Engine.storage()`` answers None): a broker's failed disk is its
partitions' ``KAFKA_STORAGE_ERROR`` (docs/engine.md).
"""

from __future__ import annotations

from typing import Protocol


class StorageState(Protocol):
    @property
    def failing(self) -> bool:
        """A write failed and none has succeeded since: reads are served, writes answer
        ``KAFKA_STORAGE_ERROR``."""
        ...

    @property
    def last_error(self) -> str:
        """What failed last, naming no file (``/readyz`` shows it)."""
        ...
