"""The idempotent producer: ``Producer`` for ``Sluice``, ``AsyncProducer`` for ``AsyncSluice``.

``send`` queues a record and answers a future of its ``RecordMetadata``; records go out when
``max_batch`` records wait, ``linger`` seconds after the first one, or on ``flush``: at most one
batch per partition, each a record batch of its own (``POST …/partitions/{p}/batches``, the
requests side by side), or all in one ``POST /v1/produce`` on the ``json`` wire. The producer
id, epoch and the sequence of every partition are handled here: a request whose answer was lost
is sent again as it was, and the server answers it without storing anything twice. The
partition of a keyed record is Kafka's (murmur2 of the key); records without key or partition
share one partition per topic and request ("sticky"), as Kafka's default partitioner does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import threading
import time
from typing import Any

from sluice._batches import Batches, Headers, RecordMetadata, Value
from sluice._core import Call, as_object
from sluice._partitioner import partition_for_key
from sluice.admin import calls
from sluice.client import AsyncSluice, Sluice

__all__ = ["AsyncProducer", "Producer", "RecordMetadata"]


def _key_bytes(key: Value) -> bytes | None:
    return key if isinstance(key, bytes) else None if key is None else key.encode()


class _Routing:
    """Partition counts (asked once per topic) and the sticky partition of each topic."""

    def __init__(self) -> None:
        self.partitions: dict[str, int] = {}
        self.sticky: dict[str, int] = {}

    def pick(self, topic: str, key: Value, partition: int | None) -> int:
        if partition is not None:
            return partition
        n = self.partitions[topic]
        raw = _key_bytes(key)
        if raw is not None:
            return partition_for_key(raw, n)
        if topic not in self.sticky:
            self.sticky[topic] = random.randrange(n)
        return self.sticky[topic]

    def next_request(self) -> None:
        self.sticky.clear()  # the next request's keyless records go elsewhere


# how long the linger thread waits for a record when nothing is queued before it ends (a
# producer left idle holds no thread; one kept busy keeps its thread)
_IDLE_S = 10.0


def _init_call() -> Call[dict[str, Any]]:
    return Call("POST", "/v1/producers", as_object, json={}, safe=False)


class Producer:
    def __init__(self, client: Sluice, *, linger: float = 0.005, max_batch: int = 500) -> None:
        self._c = client
        self.linger = linger
        self._batches = Batches(max_batch, client.settings.wire)
        self._routing = _Routing()
        self._lock = threading.Lock()  # the queue and ``_due``
        self._sending = threading.Lock()  # one request at a time: sequences stay in order
        # when the linger of the oldest queued record ends (time.monotonic), None when nothing
        # lingers; one thread of the producer waits for it (``_linger``), rather than a timer
        # thread started for each request
        self._due: float | None = None
        self._wake = threading.Condition(self._lock)
        self._lingerer: threading.Thread | None = None
        # the end of the linger thread's last wait (None: it waited for a record): a record
        # that starts to linger wakes it only when it waits longer than the record may
        self._sleeps_until: float | None = None
        self._identity: tuple[int, int] | None = None

    def send(
        self,
        topic: str,
        value: Value,
        *,
        key: Value = None,
        partition: int | None = None,
        headers: Headers = None,
        timestamp: int | None = None,
    ) -> concurrent.futures.Future[RecordMetadata]:
        if partition is None and topic not in self._routing.partitions:
            described = self._c.run(calls.describe_topic(topic))
            self._routing.partitions[topic] = len(described["partitions"])
        future: concurrent.futures.Future[RecordMetadata] = concurrent.futures.Future()
        record = self._batches.prepare(value, key, headers, timestamp)
        with self._lock:
            p = self._routing.pick(topic, key, partition)
            full = self._batches.add(topic, p, record, future)
            if not full and self.linger > 0 and self._due is None:
                self._due = time.monotonic() + self.linger
                if self._lingerer is None:
                    self._lingerer = threading.Thread(
                        target=self._linger, name="sluice-producer-linger", daemon=True
                    )
                    self._lingerer.start()
                elif self._sleeps_until is None or self._due < self._sleeps_until:
                    self._wake.notify()
        if full or self.linger <= 0:
            self._send_one()
        return future

    def flush(self) -> None:
        """Send everything queued; returns once every record is answered."""
        while True:
            with self._lock:
                if not self._batches.count:
                    return
            self._send_one()

    def _linger(self) -> None:
        """The linger thread: sends what is queued when its linger ends; it ends when the
        producer closes, or when nothing was queued for ``_IDLE_S``."""
        me = threading.current_thread()
        try:
            while True:
                with self._lock:
                    while True:
                        if self._lingerer is not me:
                            return  # closed (or replaced)
                        if self._due is None:
                            self._sleeps_until = None
                            if not self._wake.wait(_IDLE_S) and self._due is None:
                                return
                            continue
                        left = self._due - time.monotonic()
                        if left <= 0:
                            self._due = None
                            break
                        self._sleeps_until = self._due
                        self._wake.wait(left)
                self.flush()
        finally:
            with self._lock:
                if self._lingerer is me:
                    self._lingerer = None

    def _send_one(self) -> None:
        with self._sending:
            with self._lock:
                batches = self._batches.take()
                self._routing.next_request()
                if not self._batches.count:
                    self._due = None  # nothing left to linger
            if not batches:
                return
            try:
                if self._identity is None:
                    got = self._c.run(_init_call())
                    self._identity = (int(got["producer_id"]), int(got["producer_epoch"]))
            except Exception as exc:
                Batches.failed(batches, exc)
                return
            answers = self._c.run_all(self._batches.calls(*self._identity, batches))
            if self._batches.answered(batches, answers):
                # whether the server stored some is unknown: a new producer id starts the
                # sequences again, so that the next records are not refused as out of order
                self._identity = None
                self._batches.sequences.clear()

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._due = None
            self._lingerer = None  # the linger thread ends
            self._wake.notify()

    def __enter__(self) -> Producer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncProducer:
    def __init__(self, client: AsyncSluice, *, linger: float = 0.005, max_batch: int = 500) -> None:
        self._c = client
        self.linger = linger
        self._batches = Batches(max_batch, client.settings.wire)
        self._routing = _Routing()
        self._sending = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._identity: tuple[int, int] | None = None

    async def send(
        self,
        topic: str,
        value: Value,
        *,
        key: Value = None,
        partition: int | None = None,
        headers: Headers = None,
        timestamp: int | None = None,
    ) -> asyncio.Future[RecordMetadata]:
        """Queue a record; the future is settled when its request is answered."""
        if partition is None and topic not in self._routing.partitions:
            described = await self._c.run(calls.describe_topic(topic))
            self._routing.partitions[topic] = len(described["partitions"])
        loop = asyncio.get_running_loop()
        future: asyncio.Future[RecordMetadata] = loop.create_future()
        p = self._routing.pick(topic, key, partition)
        record = self._batches.prepare(value, key, headers, timestamp)
        full = self._batches.add(topic, p, record, future)
        if full or self.linger <= 0:
            self._start()
        elif self._timer is None:
            self._timer = loop.call_later(self.linger, self._start)
        return future

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()  # full before the linger ended: the request goes now
            self._timer = None
        task = asyncio.get_running_loop().create_task(self._send_one())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        while self._batches.count or self._tasks:
            if self._batches.count:
                await self._send_one()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _send_one(self) -> None:
        async with self._sending:
            batches = self._batches.take()
            self._routing.next_request()
            if not batches:
                return
            try:
                if self._identity is None:
                    got = await self._c.run(_init_call())
                    self._identity = (int(got["producer_id"]), int(got["producer_epoch"]))
            except Exception as exc:
                Batches.failed(batches, exc)
                return
            answers = await self._c.run_all(self._batches.calls(*self._identity, batches))
            if self._batches.answered(batches, answers):
                self._identity = None
                self._batches.sequences.clear()

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self.flush()

    async def __aenter__(self) -> AsyncProducer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
