"""StorageHealth: whether the disk is refusing writes now, and how often it has.

The storage engine and the metadata database report each failed write (``failed``) and, while
failing, each write that succeeds again (``recovered``). A failure episode runs from the first
failure to the next success: it is logged once at its start and once at its end, however many
requests fail meanwhile. ``/readyz`` and ``/metrics`` read the state.
"""

from __future__ import annotations

import logging

from app.errors import reason

log = logging.getLogger("sluice.storage")


class StorageHealth:
    def __init__(self) -> None:
        self.failing = False  # a write failed and none has succeeded since
        self.errors = 0  # failed writes (and fsyncs) since the start
        self.episodes = 0
        self.last_error = ""  # shown by /readyz: names no file

    def failed(self, what: str, exc: BaseException, where: str = "") -> None:
        """``what`` failed with ``exc``; ``where``, the directory it concerns, and the files
        ``exc`` names go to the log only."""
        self.errors += 1
        self.last_error = f"{what}: {reason(exc)}"
        if not self.failing:
            self.failing = True
            self.episodes += 1
            log.error(
                "storage: %s failed%s (%s); writes are answered KAFKA_STORAGE_ERROR until the "
                "disk accepts them again (logged once per episode)",
                what,
                f" in {where}" if where else "",
                exc,
            )

    def recovered(self) -> None:
        """A write succeeded: ends the episode if one is under way."""
        if self.failing:
            self.failing = False
            log.warning("storage: writes succeed again after %d failed", self.errors)
