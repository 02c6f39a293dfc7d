"""SealedFiles: a bound on the files that sealed segments keep open.

The active segment of each partition keeps its log and index open for appends. A segment that
rolled over is sealed: once it is durable it closes both files, and it opens its log again only
to be read. This cache keeps the most recently read sealed segments open, up to ``limit``, and
closes the least recently read one beyond that; so the files a server holds open depend on its
partitions and this limit, never on how many segments its logs have grown. ``close_idle``,
called by the retention sweep, closes those nobody read since its previous call: once readers
have moved on to the active segments, the server holds no more files than before.

Everything here runs on the event loop. A sealed segment is registered only after it was
durable, so no flush thread ever holds a descriptor this cache closes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol


class Closable(Protocol):
    def close(self) -> None: ...


class SealedFiles:
    def __init__(self, limit: int = 128) -> None:
        if limit < 1:
            raise ValueError("the limit of open sealed segments must be at least 1")
        self.limit = limit
        self._open: OrderedDict[Closable, bool] = OrderedDict()  # -> read since the last sweep
        self.opens = 0  # times a sealed segment opened its log again (for tests and metrics)

    def opened(self, segment: Closable) -> None:
        """``segment`` opened its log to be read: remember it, close the oldest over the limit."""
        self.opens += 1
        self._open[segment] = True
        while len(self._open) > self.limit:
            oldest = next(iter(self._open))
            oldest.close()  # calls ``closed``, which forgets it
            self._open.pop(oldest, None)

    def used(self, segment: Closable) -> None:
        if segment in self._open:
            self._open[segment] = True
            self._open.move_to_end(segment)

    def close_idle(self) -> int:
        """Close the segments nobody read since the previous call; answers how many."""
        idle = [segment for segment, read in self._open.items() if not read]
        for segment in idle:
            segment.close()
            self._open.pop(segment, None)
        for segment in list(self._open):
            self._open[segment] = False
        return len(idle)

    def closed(self, segment: Closable) -> None:
        self._open.pop(segment, None)

    def __len__(self) -> int:
        return len(self._open)
