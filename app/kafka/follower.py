"""``Follower``: one partition of an internal topic of the gateway, read from its start and then
followed, each record handed to a function as it comes.

The follower long-polls on a connection of its own (a broker answers one connection's requests
in order: a long poll would hold up the gateway's other requests behind it). ``sync`` waits
until every record the partition held when it was called is applied, so that what a gateway
decides from the topic includes every change written before (by any gateway). With
``committed``, only committed records are read (below the last stable offset, aborted
transactions left out), and ``sync`` waits until the transactions open below the end it found
have ended and the follower has read past them: a record committed above another transaction
still open is applied only then, since a committed read stops at the first open one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from app.clock import Clock
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.offsets import LATEST, READ_UNCOMMITTED, list_offsets
from app.kafka.protocol.errors import NONE, ProtocolError
from app.kafka.protocol.messages import CreateTopicsRequest
from app.kafka.reads import KafkaReads

log = logging.getLogger("sluice.kafka.follower")

POLL_WAIT_MS = 500  # a long poll: changes arrive as soon as they are written
FETCH_BYTES = 1 << 20
SYNC_TIMEOUT_S = 30.0  # how long a sync may wait for the follower to catch up


def bootstrap_of(cluster: Cluster) -> str:
    """The bootstrap list ``cluster`` was made with, as text again."""
    return ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in cluster.bootstrap)


class Behind(SluiceError):
    """The follower did not reach an offset in time: another request's transaction is still
    open below it (409 ``CONCURRENT_TRANSACTIONS``, retriable)."""


class Follower:
    """Follows ``topic``'s ``partition`` on connections of its own, handing each record's key
    and value to ``take``; ``on_applied`` runs after each read that moved the offset."""

    def __init__(
        self,
        cluster: Cluster,
        clock: Clock,
        topic: str,
        partition: int,
        take: Callable[[bytes | None, bytes | None], None],
        *,
        committed: bool = False,
        on_applied: Callable[[], None] | None = None,
    ) -> None:
        self.cluster = cluster
        self.topic = topic
        self.partition = partition
        self.committed = committed
        self._take = take
        self._on_applied = on_applied
        self._own = Cluster(
            bootstrap_of(cluster),
            client_id=f"{cluster.client_id}-{topic.strip('_')}",
            request_timeout=cluster.request_timeout,
            ssl=cluster.ssl,
            sasl=cluster.sasl,
        )
        self._reads = KafkaReads(self._own, clock=clock)
        self.next_offset = 0  # the offset of the next record to apply
        self.changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._own.start()
        self._task = asyncio.create_task(self._follow(), name=f"kafka-follow-{self.topic}")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._own.close()

    async def _follow(self) -> None:
        failed = 0  # reads failed in a row
        while True:
            try:
                answer = await self._reads.read(
                    self.topic,
                    self.partition,
                    self.next_offset,
                    max_records=1000,
                    max_bytes=FETCH_BYTES,
                    max_wait_ms=POLL_WAIT_MS,
                    committed=self.committed,
                )
            except (SluiceError, ProtocolError) as exc:
                # the broker went or moved: the cluster finds it again at the next read. Said
                # once for a run of failures (a node down fails every read until it is back),
                # with no traceback: the error says what failed
                failed += 1
                if failed == 1:
                    log.warning("reading %s failed (%s); reading on", self.topic, exc)
                else:
                    log.debug("reading %s failed again (%s)", self.topic, exc)
                await asyncio.sleep(self.cluster.retry_backoff)
                continue
            if failed:
                log.info("reading %s again, after %d failed reads", self.topic, failed)
                failed = 0
            for r in answer.result.records:
                try:
                    self._take(r.key, r.value)
                except Exception:
                    # one record that cannot be applied must not stop the follower
                    log.exception("record at %d of %s left out", r.offset, self.topic)
            if answer.result.next_offset != self.next_offset:
                self.next_offset = answer.result.next_offset
                if self._on_applied is not None:
                    self._on_applied()
                async with self.changed:
                    self.changed.notify_all()

    async def applied(self, offset: int) -> None:
        """Wait until the record at ``offset`` (and every one before it) is applied."""
        try:
            async with self.changed:
                await asyncio.wait_for(
                    self.changed.wait_for(lambda: self.next_offset > offset), SYNC_TIMEOUT_S
                )
        except TimeoutError:
            raise Behind(
                ErrorCode.CONCURRENT_TRANSACTIONS,
                f"{self.topic} was not read to offset {offset} within {SYNC_TIMEOUT_S:.0f} s "
                "(a transaction of another request is still open there); try again",
            ) from None

    async def sync(self) -> None:
        """Wait until every record the partition held when called is applied (every committed
        one, for a follower of committed records)."""
        # the high watermark, for a reader of committed records too
        ends = await list_offsets(
            self.cluster, self.topic, {self.partition: LATEST}, READ_UNCOMMITTED
        )
        end = ends[self.partition].offset
        if end > 0:
            await self.applied(end - 1)


async def every(period_s: float, work: Callable[[], Awaitable[object]], what: str) -> None:
    """``work`` every ``period_s`` seconds for as long as the gateway runs (the expiry of an
    internal topic's records); a round the cluster fails is logged, and the next one tries
    again."""
    while True:
        await asyncio.sleep(period_s)
        try:
            await work()
        except (SluiceError, ProtocolError):
            # the broker went or moved
            log.warning("%s failed", what, exc_info=True)


TOPIC_ALREADY_EXISTS = 36


async def ensure_compacted_topic(cluster: Cluster, name: str, replication_factor: int) -> None:
    """Create the one-partition compacted topic ``name`` unless it exists (the broker's default
    replication factor for -1)."""
    conn = await cluster.any_connection()
    answer = await conn.send(
        CreateTopicsRequest(
            timeout_ms=30_000,
            topics=[
                CreateTopicsRequest.CreatableTopic(
                    name=name,
                    num_partitions=1,
                    replication_factor=replication_factor,
                    configs=[
                        CreateTopicsRequest.CreatableTopicConfig(
                            name="cleanup.policy", value="compact"
                        )
                    ],
                )
            ],
        )
    )
    (result,) = answer.topics
    if result.error_code not in (NONE, TOPIC_ALREADY_EXISTS):
        raise to_sluice(result.error_code, result.error_message, f"topic {name!r}")
