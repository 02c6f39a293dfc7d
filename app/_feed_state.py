"""The event feed's pure parts (``app.feed``): entity diffs, one socket's pending changes, and
the per-second rate samples. No asyncio, no I/O; time comes in as arguments.

An *entity* is one JSON object of the feed (a topic, a share group, a consumer group, an open
transaction), identified by its kind and its id. A *state* holds every entity of every kind.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import orjson

KINDS = ("topics", "share_groups", "groups", "transactions")
HISTORY_SECONDS = 300

Entity = dict[str, Any]
State = dict[str, dict[str, Entity]]  # kind → id → entity, every kind present
Change = tuple[str, str, Entity | None]  # (kind, id, the new entity or None: removed)
Blob = tuple[str, str, bytes | None]  # a change with its entity serialised once


def empty_state() -> State:
    return {kind: {} for kind in KINDS}


def diff(prev: State, new: State) -> list[Change]:
    """The entities of ``new`` that are not in ``prev`` or differ from it there, then the ids of
    ``prev`` that ``new`` lacks (as None)."""
    out: list[Change] = []
    for kind in KINDS:
        before, after = prev[kind], new[kind]
        out.extend((kind, key, e) for key, e in after.items() if before.get(key) != e)
        out.extend((kind, key, None) for key in before if key not in after)
    return out


class Pending:
    """The changes one socket has not been sent yet: at most one entry per entity (a later
    value overwrites an earlier one; None marks a removal), the newest rates, and the newest
    per-second samples with how many seconds closed since the socket's last event. Its size
    is therefore bounded by the number of entities, however long the socket does not read."""

    def __init__(self) -> None:
        self.entities: dict[tuple[str, str], bytes | None] = {}
        self.at = 0
        self.rates = b"{}"
        self.samples: bytes | None = None
        self.seconds = 0

    def __bool__(self) -> bool:
        return bool(self.entities) or self.samples is not None

    def merge(
        self, at: int, rates: bytes, blobs: list[Blob], samples: bytes | None, seconds: int
    ) -> None:
        self.at = at
        self.rates = rates
        for kind, key, blob in blobs:
            self.entities[kind, key] = blob
        if samples is not None:
            self.samples = samples
            self.seconds += seconds

    def take(self) -> bytes:
        """The event frame of everything pending (which is then cleared)."""
        changes: dict[str, list[bytes]] = {kind: [] for kind in KINDS}
        removed: dict[str, list[str]] = {kind: [] for kind in KINDS}
        for (kind, key), blob in self.entities.items():
            if blob is None:
                removed[kind].append(key)
            else:
                changes[kind].append(blob)
        parts = [b'{"type":"event","at":%d,"rates":' % self.at, self.rates]
        if self.samples is not None:
            parts += [b',"samples":', self.samples, b',"seconds":%d' % self.seconds]
        parts.append(b',"changes":{')
        parts.append(b",".join(b'"%s":[%s]' % (k.encode(), b",".join(changes[k])) for k in KINDS))
        parts += [b'},"removed":', orjson.dumps(removed), b"}"]
        self.entities = {}
        self.samples = None
        self.seconds = 0
        return b"".join(parts)


def _rate(value: float) -> float:
    return round(value, 2)


class Rates:
    """Records per second, one sample per second, the newest ``HISTORY_SECONDS`` kept: produced
    and read records of the whole server (counters), and each topic's appended records (the sum
    of its partitions' high watermarks).

    ``observe`` is called on every publisher tick. Once a second or more has passed since the
    last sample, each series gets one sample per whole second passed, worth its records over
    the time since the last sample: a tick late by a fraction of a second shifts the boundary of
    a sample, never the number of samples. Time without ticks (no socket connected) is filled
    the same way, with its average rate, and the next second starts at the tick that ends it.
    """

    def __init__(self, seconds: int = HISTORY_SECONDS) -> None:
        self.seconds = seconds
        self.produce: deque[float] = deque(maxlen=seconds)
        self.consume: deque[float] = deque(maxlen=seconds)
        self.topics: dict[str, deque[float]] = {}
        self._mark: float | None = None  # the time of the last sample (monotonic s)
        self._boundary = 0.0  # where the next second closes, minus one
        self._counts = (0.0, 0.0)
        self._offsets: dict[str, tuple[int, int]] = {}  # topic → (topic id, sum of HWs)

    def observe(
        self, mono: float, produced: float, consumed: float, offsets: Mapping[str, tuple[int, int]]
    ) -> int:
        """Sample if a second closed; answers how many seconds closed (0: none). ``offsets``
        maps each live topic to its id and the sum of its partitions' high watermarks."""
        if self._mark is None:
            self._mark = self._boundary = mono
            self._counts = (produced, consumed)
            self._offsets = dict(offsets)
            return 0
        closed = int(mono - self._boundary)
        if closed < 1:
            return 0
        elapsed = max(mono - self._mark, 1e-9)
        n = min(closed, self.seconds)
        self.produce.extend([_rate((produced - self._counts[0]) / elapsed)] * n)
        self.consume.extend([_rate((consumed - self._counts[1]) / elapsed)] * n)
        for name in [t for t in self.topics if t not in offsets]:
            del self.topics[name]
        for name, (topic_id, total) in offsets.items():
            before = self._offsets.get(name)
            if before is None or before[0] != topic_id:  # new (or recreated) since the last one
                before = (topic_id, 0)
                self.topics[name] = deque(maxlen=self.seconds)
            series = self.topics.setdefault(name, deque(maxlen=self.seconds))
            series.extend([_rate(max(total - before[1], 0) / elapsed)] * n)
        self._mark = mono
        # after a gap (no ticks: no socket connected) the next second starts now; otherwise a
        # tick just after the gap would close a "second" of a fraction of one, and its sample
        # would overstate the rate (10 records in half a second shown as 20 a second)
        self._boundary = mono if closed > 1 else self._boundary + closed
        self._counts = (produced, consumed)
        self._offsets = dict(offsets)
        return closed

    def topic_rate(self, name: str) -> float:
        series = self.topics.get(name)
        return series[-1] if series else 0.0

    def now(self) -> dict[str, float]:
        """The newest samples of the whole server (0 before the first second closed)."""
        return {
            "produce": self.produce[-1] if self.produce else 0.0,
            "consume": self.consume[-1] if self.consume else 0.0,
        }

    def newest(self) -> dict[str, Any]:
        """The newest sample of every series (an event's ``samples``)."""
        return {**self.now(), "topics": {name: s[-1] for name, s in self.topics.items() if s}}

    def history(self) -> dict[str, Any]:
        """Every series, oldest first (a snapshot's ``history``)."""
        return {
            "seconds": self.seconds,
            "produce": list(self.produce),
            "consume": list(self.consume),
            "topics": {name: list(s) for name, s in self.topics.items()},
        }
