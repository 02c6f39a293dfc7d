"""The event feed's pure parts (``app.feed``): entity diffs, one socket's pending changes, and
the per-second rate samples. No asyncio, no I/O; time comes in as arguments.

An *entity* is one JSON object of the feed (a topic, a share group, a consumer group, an open
transaction), identified by its kind and its id. A *state* holds every entity of every kind.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

KINDS = ("topics", "share_groups", "groups", "transactions")
HISTORY_SECONDS = 300

if TYPE_CHECKING:
    from app.share.membership import ShareGroup

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


def _last(series: deque[float]) -> float:
    return series[-1] if series else 0.0


class TopicCounts(NamedTuple):
    """What the publisher reads of one live topic on every tick."""

    topic_id: int
    appended: int  # the sum of its partitions' high watermarks
    produced: int = 0  # records answered to produce requests (``Topic.produced``)
    consumed: int = 0  # records read by offset or delivered to share groups


class TopicSeries:
    """One topic's samples: its appended records (its ``rate``), and its part of the server's
    produce and consume rates (summed over the topics a principal may see)."""

    __slots__ = ("appended", "consume", "produce")

    def __init__(self, seconds: int) -> None:
        self.appended: deque[float] = deque(maxlen=seconds)
        self.produce: deque[float] = deque(maxlen=seconds)
        self.consume: deque[float] = deque(maxlen=seconds)


class Rates:
    """Records per second, one sample per second, the newest ``HISTORY_SECONDS`` kept: produced
    and read records of the whole server (counters), and for each topic its appended records
    (the sum of its partitions' high watermarks) and its produced and read records.

    ``observe`` is called on every publisher tick. Once a second or more has passed since the
    last sample, each series gets one sample per whole second passed, worth its records over
    the time since the last sample: a tick late by a fraction of a second shifts the boundary of
    a sample, never the number of samples. Time without ticks (no socket connected) is filled
    the same way, with its average rate, and the next second starts at the tick that ends it.

    What the whole server shows (``names`` None) is the server's counters, as cheap as one
    lookup; what a principal sees (``names``: the topics it may describe) is summed from those
    topics' series when asked, once a tick.
    """

    def __init__(self, seconds: int = HISTORY_SECONDS) -> None:
        self.seconds = seconds
        self.produce: deque[float] = deque(maxlen=seconds)
        self.consume: deque[float] = deque(maxlen=seconds)
        self.topics: dict[str, TopicSeries] = {}
        self._mark: float | None = None  # the time of the last sample (monotonic s)
        self._boundary = 0.0  # where the next second closes, minus one
        self._counts = (0.0, 0.0)
        self._offsets: dict[str, TopicCounts] = {}  # of the last sample

    def observe(
        self, mono: float, produced: float, consumed: float, offsets: Mapping[str, TopicCounts]
    ) -> int:
        """Sample if a second closed; answers how many seconds closed (0: none). ``offsets``
        holds the counts of each live topic."""
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

        def sample(delta: float) -> list[float]:
            return [_rate(max(delta, 0) / elapsed)] * n

        self.produce.extend(sample(produced - self._counts[0]))
        self.consume.extend(sample(consumed - self._counts[1]))
        for name in [t for t in self.topics if t not in offsets]:
            del self.topics[name]
        for name, now in offsets.items():
            before = self._offsets.get(name)
            if before is None or before.topic_id != now.topic_id:  # new (or recreated) since
                before = TopicCounts(now.topic_id, 0)
                self.topics[name] = TopicSeries(self.seconds)
            series = self.topics.setdefault(name, TopicSeries(self.seconds))
            series.appended.extend(sample(now.appended - before.appended))
            series.produce.extend(sample(now.produced - before.produced))
            series.consume.extend(sample(now.consumed - before.consumed))
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
        return _last(series.appended) if series else 0.0

    def now(self, names: Collection[str] | None = None) -> dict[str, float]:
        """The newest samples of the whole server, or of the topics ``names`` (of ``topics``)
        together (0 before the first second closed)."""
        if names is None:
            return {"produce": _last(self.produce), "consume": _last(self.consume)}
        series = [self.topics[name] for name in names]
        return {
            "produce": _rate(sum(_last(s.produce) for s in series)),
            "consume": _rate(sum(_last(s.consume) for s in series)),
        }

    def newest(self, names: Collection[str] | None = None) -> dict[str, Any]:
        """The newest sample of every series, or of those of ``names`` (an event's
        ``samples``)."""
        shown = self.topics if names is None else names
        return {
            **self.now(names),
            "topics": {name: s.appended[-1] for name in shown if (s := self.topics[name]).appended},
        }

    def history(self, names: Collection[str] | None = None) -> dict[str, Any]:
        """Every series, oldest first, or those of ``names`` (a snapshot's ``history``)."""
        shown = self.topics if names is None else names
        topics = {name: list(self.topics[name].appended) for name in shown}
        if names is None:
            return {
                "seconds": self.seconds,
                "produce": list(self.produce),
                "consume": list(self.consume),
                "topics": topics,
            }
        series = [self.topics[name] for name in names]
        return {
            "seconds": self.seconds,
            "produce": _summed([s.produce for s in series], len(self.produce)),
            "consume": _summed([s.consume for s in series], len(self.consume)),
            "topics": topics,
        }


def _summed(series: list[deque[float]], length: int) -> list[float]:
    """The sum of ``series`` second by second, each aligned on the newest second (a topic's
    series starts when the topic did, so may be shorter), ``length`` samples long."""
    out = [0.0] * length
    for s in series:
        start = length - len(s)
        for i, value in enumerate(s):
            if start + i >= 0:
                out[start + i] += value
    return [_rate(v) for v in out]


def share_group_entity(group: ShareGroup, partitions: list[Entity]) -> Entity:
    """A share group as the feed shows it, with its partitions' entities (each engine builds
    those from what it knows of the partitions)."""
    cfg = group.config
    return {
        "group_id": group.group_id,
        "state": group.state.value,
        "group_epoch": group.group_epoch,
        "config": {
            "record_lock_duration_ms": cfg.record_lock_duration_ms,
            "delivery_count_limit": cfg.delivery_count_limit,
            "dead_letter_topic": cfg.dead_letter_topic,
            "isolation_level": cfg.isolation_level,
        },
        "members": [
            {
                "member_id": m.member_id,
                "subscribed_topics": list(m.subscribed_topics),
                "last_seen_ms": m.last_seen_ms,
            }
            for _, m in sorted(group.members.items())
        ],
        "partitions": partitions,
    }
