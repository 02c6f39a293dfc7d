"""SealedFiles: the files sealed segments hold open, only while they are being read.

The active segment of each partition keeps its log and index open for appends. A segment that
rolled over is sealed: once it is durable it closes both files, and a read opens its log again
for as long as that read lasts. Every read of a partition log ends with ``done``, which closes
what it opened; within one read at most ``limit`` sealed segments stay open (the least recently
read one closes first), so a read across many small segments is bounded too. The files a server
holds between requests are thus two per partition, however large its logs grow and however far
behind its readers are.

Everything here runs on the event loop, and a read of the log never awaits: no other read can
find a descriptor closed under it. A sealed segment is registered only after it was durable, so
no flush thread holds a descriptor this closes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol


class Closable(Protocol):
    def close(self) -> None: ...


class SealedFiles:
    def __init__(self, limit: int = 16) -> None:
        if limit < 1:
            raise ValueError("the limit of open sealed segments must be at least 1")
        self.limit = limit
        self._open: OrderedDict[Closable, None] = OrderedDict()
        self.opens = 0  # times a sealed segment opened its log again (for tests)

    def opened(self, segment: Closable) -> None:
        """``segment`` opened its log to be read: close the oldest beyond the limit."""
        self.opens += 1
        self._open[segment] = None
        while len(self._open) > self.limit:
            oldest = next(iter(self._open))
            oldest.close()  # calls ``closed``, which forgets it
            self._open.pop(oldest, None)

    def used(self, segment: Closable) -> None:
        if segment in self._open:
            self._open.move_to_end(segment)

    def closed(self, segment: Closable) -> None:
        self._open.pop(segment, None)

    def done(self) -> None:
        """A read ended: close the sealed segments it opened."""
        while self._open:
            segment = next(iter(self._open))
            segment.close()
            self._open.pop(segment, None)

    def __len__(self) -> int:
        return len(self._open)
