"""EventFeed: the live state of the server for dashboards, pushed over the WebSocket
``/v1/events`` (docs/api.md#events).

A publisher (``run``, a background loop of the Broker) ticks every ``events_interval_ms`` while
at least one socket is subscribed, and does nothing otherwise. A tick computes the state once
for every socket (topics, share groups, consumer groups, open transactions, rates), diffs it
against the previous tick's entity by entity, serialises each changed entity once and merges it
into every subscription's pending changes (``_feed_state.Pending``: one entry per entity, later
values overwrite earlier ones). Each socket's sender (``app.api.routes.events``) sends what is
pending whenever it can, as one frame. The publisher never awaits a socket: a slow or stalled
socket holds coalesced state, never a queue, and slows nothing else.

A new socket gets a snapshot of the latest state the publisher computed (serialised once per
tick and shared), or of the state now when it is the only socket. Reading the state is
awaited (on the Kafka backend it is a round of requests to the cluster): one reading at a time,
so a socket that opens during a tick waits for it and starts from its state; the next tick
starts ``events_interval_ms`` after the end of the last, so a slow reading spaces the ticks
rather than piling them up. ``close`` (shutdown) ends
every subscription: its sender closes the socket with 1001.

A socket of a principal sees only what that principal may describe: its subscription carries a
``View``, the merge keeps only the changed entities the view shows (one cached authorization
each, the serialised entities still shared), leaving out of groups and transactions what
concerns the topics it may not describe, and its snapshot and rates are its own: the server's
produce and consume rates, and their history, summed over the topics the view shows, once a
tick (the whole server's are the server's counters, for the sockets without a view). When what
the view shows may have changed (the ACLs changed), the socket gets a new snapshot.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from app import __version__
from app._feed_state import (
    KINDS,
    Blob,
    Entity,
    Pending,
    Rates,
    State,
    diff,
    empty_state,
)
from app.clock import Clock
from app.engine.feed import FeedState
from app.errors import SluiceError
from app.metrics import Metrics, total

MAX_RUNS = 500  # runs per share partition in a frame; beyond, ``runs_truncated``
GOING_AWAY = 1001  # the close code of every socket at shutdown


@dataclass(frozen=True, slots=True)
class View:
    """What one socket may see: ``visible(kind, id)`` of an entity; ``version()`` changes
    whenever the answers may have changed."""

    visible: Callable[[str, str], bool]
    version: Callable[[], int]


class Subscription:
    """One socket's side of the feed: its first frames (the snapshot, error answers) and its
    pending changes, handed to its sender by ``next_frame``."""

    def __init__(self, snapshot: bytes | None, view: View | None = None) -> None:
        self.frames: deque[bytes] = deque([snapshot] if snapshot is not None else [])
        self.pending = Pending()
        self.view = view
        self.seen = view.version() if view is not None else 0  # the view's version shown
        self.close_code: int | None = None
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()

    def merge(
        self, at: int, rates: bytes, blobs: list[Blob], samples: bytes | None, seconds: int
    ) -> None:
        self.pending.merge(at, rates, blobs, samples, seconds)
        self._wake.set()

    def restart(self, snapshot: bytes) -> None:
        """Drop the pending changes: a new snapshot replaces them (the view changed)."""
        self.pending = Pending()
        self.frames.append(snapshot)
        self._drained.clear()
        self._wake.set()

    def close(self, code: int) -> None:
        self.close_code = code
        self._wake.set()
        self._drained.set()

    async def next_frame(self) -> bytes | None:
        """The next frame to send, once there is one; None once the subscription is closed
        (then close the socket with ``close_code``)."""
        while self.close_code is None:
            if self.frames:
                frame = self.frames.popleft()
                if not self.frames:
                    self._drained.set()
                return frame
            if self.pending:
                return self.pending.take()
            self._wake.clear()
            await self._wake.wait()
        return None

    async def reject(self, error: SluiceError) -> None:
        """Answer a message of the client with an error frame; returns once the sender took it
        (so a client sending without reading holds at most one answer here)."""
        if self.close_code is not None:
            return
        self.frames.append(orjson.dumps({"type": "error", "error": error.to_dict()}))
        self._drained.clear()
        self._wake.set()
        await self._drained.wait()


class EventFeed:
    def __init__(
        self,
        *,
        interval_ms: int,
        clock: Clock,
        metrics: Metrics,
        state: FeedState,
    ) -> None:
        self.interval_ms = interval_ms
        self.clock = clock
        self.metrics = metrics
        # what the feed shows, read through the engine's seam
        self.state_source = state
        self.started_at = clock.now_ms()
        self.rates = Rates()
        self.subscriptions: list[Subscription] = []
        self.closed = False
        self._state: State | None = None  # the latest tick's (None while no socket is open)
        # of each open transaction of ``_state``: how many partitions it wrote of each topic
        self._txn_topics: dict[str, dict[str, int]] = {}
        self._at = 0
        self._snapshot: bytes | None = None  # of ``_state``, serialised when first asked for
        self._wanted = asyncio.Event()  # set while a socket is subscribed
        self._reading = asyncio.Lock()  # one reading of the state at a time (``_observe``)

    # -- subscriptions ------------------------------------------------------------------------

    async def subscribe(self, view: View | None = None) -> Subscription:
        """A new socket: its subscription starts with a snapshot (closed at once after
        ``close``); with a ``view``, of what the view shows only."""
        async with self._reading:
            if not self.closed and not self.subscriptions:
                await self._observe()  # the publisher was idle: the state now
            if self.closed:
                sub = Subscription(None)
                sub.close(GOING_AWAY)
                return sub
            sub = Subscription(self.snapshot() if view is None else self._snapshot_of(view), view)
            self.subscriptions.append(sub)
            self._wanted.set()
            return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self.subscriptions:
            self.subscriptions.remove(sub)
        if not self.subscriptions:
            self._wanted.clear()
            self._state = self._snapshot = None

    def close(self) -> None:
        """Shutdown: no new subscriptions; every socket is closed with 1001."""
        self.closed = True
        for sub in self.subscriptions:
            sub.close(GOING_AWAY)
        self.subscriptions.clear()
        self._wanted.clear()

    # -- the publisher ------------------------------------------------------------------------

    async def run(self) -> None:
        """Tick every ``interval_ms`` while a socket is subscribed; wait otherwise."""
        while True:
            await self._wanted.wait()
            await asyncio.sleep(self.interval_ms / 1000)
            await self.tick()

    async def tick(self) -> None:
        """Compute the state, and merge what changed into every subscription (nothing when no
        entity changed and no second closed)."""
        async with self._reading:
            if not self.subscriptions:
                return
            prev = self._state or empty_state()
            seconds = await self._observe()
            if not self.subscriptions:  # every socket went while the state was read
                self._state = self._snapshot = None
                return
            self._publish(prev, seconds)

    def _publish(self, prev: State, seconds: int) -> None:
        """Merge what changed since ``prev`` into every subscription."""
        assert self._state is not None
        changes = diff(prev, self._state)
        if not changes and not seconds:
            return
        blobs: list[Blob] = [
            (kind, key, None if e is None else orjson.dumps(e)) for kind, key, e in changes
        ]
        rates = orjson.dumps(self.rates.now())
        newest = self.rates.newest() if seconds else None
        samples = None if newest is None else orjson.dumps(newest)
        for sub in self.subscriptions:
            view = sub.view
            if view is None:
                sub.merge(self._at, rates, blobs, samples, seconds)
            elif view.version() != sub.seen:
                sub.seen = view.version()
                sub.restart(self._snapshot_of(view))
            else:
                names = self._topics_seen(view)
                sub.merge(
                    self._at,
                    orjson.dumps(self.rates.now(names)),
                    [
                        (kind, key, self._redacted_blob(kind, key, e, blob, view))
                        for (kind, key, e), (_, _, blob) in zip(changes, blobs, strict=True)
                        if view.visible(kind, key)
                    ],
                    None if newest is None else orjson.dumps(self.rates.newest(names)),
                    seconds,
                )

    def snapshot(self) -> bytes:
        """The snapshot frame of the latest state (serialised once per tick)."""
        if self._snapshot is None:
            self._snapshot = self._snapshot_of(None)
        return self._snapshot

    def _snapshot_of(self, view: View | None) -> bytes:
        """A snapshot frame of the latest state, of what ``view`` shows (None: everything)."""
        state = self._state or empty_state()
        names = None if view is None else self._topics_seen(view)
        return orjson.dumps(
            {
                "type": "snapshot",
                "at": self._at,
                "interval_ms": self.interval_ms,
                "server": {"version": __version__, "started_at": self.started_at},
                "rates": self.rates.now(names),
                "history": self.rates.history(names),
                **{
                    kind: [
                        e if view is None else self._redacted(kind, key, e, view)
                        for key, e in state[kind].items()
                        if view is None or view.visible(kind, key)
                    ]
                    for kind in KINDS
                },
            }
        )

    # -- the state ----------------------------------------------------------------------------

    async def _observe(self) -> int:
        """Compute the state now (and sample the rates); answers how many seconds closed."""
        now = self.clock.now_ms()
        seen = await self.state_source.observe(now, MAX_RUNS)
        produced, consumed = (
            (
                total(self.metrics.records_in),
                total(self.metrics.records_out) + total(self.metrics.delivered),
            )
            if seen.totals is None
            else seen.totals
        )
        seconds = (
            0
            if seen.stale
            else self.rates.observe(self.clock.monotonic(), produced, consumed, seen.counts)
        )
        state = seen.state
        for name, entity in state["topics"].items():
            entity["rate"] = self.rates.topic_rate(name)
        self._txn_topics = seen.txn_topics
        self._state = state
        self._at = now
        self._snapshot = None
        return seconds

    # -- what a view shows -----------------------------------------------------------------

    def _topics_seen(self, view: View) -> list[str]:
        """The topics with rates that ``view`` shows (one cached authorization each)."""
        return [name for name in self.rates.topics if view.visible("topics", name)]

    def _redacted(self, kind: str, key: str, entity: Entity, view: View) -> Entity:
        """An entity as ``view`` may see it: a group's offsets, partitions and subscriptions,
        and a transaction's count of partitions, of the topics it may describe only (the
        describes of the HTTP API leave out the same)."""
        if kind == "groups":
            offsets = entity["offsets"]
            return {
                **entity,
                "offsets": [o for o in offsets if view.visible("topics", o["topic"])],
            }
        if kind == "share_groups":
            return {
                **entity,
                "members": [
                    {
                        **m,
                        "subscribed_topics": [
                            t for t in m["subscribed_topics"] if view.visible("topics", t)
                        ],
                    }
                    for m in entity["members"]
                ],
                "partitions": [
                    p for p in entity["partitions"] if view.visible("topics", p["topic"])
                ],
            }
        if kind == "transactions":
            written = self._txn_topics.get(key, {})
            seen = sum(n for topic, n in written.items() if view.visible("topics", topic))
            return entity if seen == entity["partitions"] else {**entity, "partitions": seen}
        return entity

    def _redacted_blob(
        self, kind: str, key: str, entity: Entity | None, blob: bytes | None, view: View
    ) -> bytes | None:
        """The change's serialisation for ``view``: the shared one unless something is left
        out."""
        if entity is None or kind == "topics":
            return blob
        redacted = self._redacted(kind, key, entity, view)
        return blob if redacted == entity else orjson.dumps(redacted)
