"""LogManager: where partition logs live on disk, opening them at start, removing topics.

Layout: ``<root>/<topic id>/<partition>/`` with the segments of one partition. Topic ids are
never reused, so a topic deleted and created again never meets its old files.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable

from app.storage import modes
from app.storage.handles import SealedFiles
from app.storage.health import StorageHealth
from app.storage.log import LogConfig, PartitionLog, ProducerStateHook

log = logging.getLogger("sluice.storage")


class LogManager:
    def __init__(
        self,
        root: str,
        *,
        durable_reads: bool,
        producer_state: Callable[[], ProducerStateHook] | None = None,
        health: StorageHealth | None = None,
        open_sealed_segments: int = 16,
    ) -> None:
        self.root = root
        self.sealed_files = SealedFiles(open_sealed_segments)
        self.health = health if health is not None else StorageHealth()
        self.durable_reads = durable_reads
        self.producer_state = producer_state
        self.logs: dict[tuple[int, int], PartitionLog] = {}
        modes.make_dirs(root)

    def open(self, topic_id: int, partition: int, config: LogConfig, now_ms: int) -> PartitionLog:
        key = (topic_id, partition)
        if key not in self.logs:
            directory = os.path.join(self.root, str(topic_id), str(partition))
            hook = self.producer_state() if self.producer_state is not None else None
            self.logs[key] = PartitionLog(
                directory,
                config,
                durable_reads=self.durable_reads,
                now_ms=now_ms,
                producer_state=hook,
                health=self.health,
                files=self.sealed_files,
            )
        return self.logs[key]

    def get(self, topic_id: int, partition: int) -> PartitionLog:
        return self.logs[(topic_id, partition)]

    def close_topic(self, topic_id: int) -> None:
        for key in [k for k in self.logs if k[0] == topic_id]:
            self.logs.pop(key).close(clean=False)

    def remove_topic_files(self, topic_id: int) -> None:
        """Delete a topic's directory (idempotent). Safe to call from a thread."""
        path = os.path.join(self.root, str(topic_id))
        if os.path.isdir(path):
            trash = os.path.join(self.root, f".deleted-{topic_id}")
            os.replace(path, trash)
            shutil.rmtree(trash, ignore_errors=True)

    def remove_orphans(self, known: set[int]) -> None:
        """Delete directories of topics the metadata does not know (an interrupted delete)."""
        for name in os.listdir(self.root):
            path = os.path.join(self.root, name)
            if name.startswith(".deleted-") or (name.isdigit() and int(name) not in known):
                log.info("removing files of deleted topic %s", name)
                shutil.rmtree(path, ignore_errors=True)

    def close_all(self, *, clean: bool) -> None:
        for lg in self.logs.values():
            lg.close(clean=clean)
        self.logs.clear()
