"""``PollConnections``: a connection of its own for each Fetch that may wait (a long poll).

A broker answers one connection's requests in the order they came, and holds a Fetch with
``max_wait_ms`` until records come or the wait ends. On the connection every other request
shares, one client's poll of a quiet topic would hold up every read behind it for its whole
wait, a client that reads a busy topic included. So a Fetch that may wait leases a connection
to the partition's leader for its exchange: an idle one, else a new one, up to ``per_broker``
at a time to one broker (a poll beyond that waits for one to come back). A connection comes
back when its answer came; one whose exchange failed or was cancelled (the client went away
with its poll still held by the broker) is closed instead, since an answer still owed on it
would hold up the next poll. At most ``idle_per_broker`` idle connections are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from app.kafka.cluster import Cluster
from app.kafka.connection import BrokerConnection
from app.kafka.protocol.errors import ConnectionClosedError

PER_BROKER = 64
IDLE_PER_BROKER = 8


class PollConnections:
    """Connections of ``cluster``'s settings, leased one poll at a time."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        per_broker: int = PER_BROKER,
        idle_per_broker: int = IDLE_PER_BROKER,
    ) -> None:
        self.cluster = cluster
        self.per_broker = per_broker
        self.idle_per_broker = idle_per_broker
        self._idle: dict[int, list[BrokerConnection]] = {}
        self._open: dict[int, int] = {}  # node id -> connections open (idle or leased)
        self._returned = asyncio.Condition()
        self._closed = False

    def open_count(self, node_id: int) -> int:
        return self._open.get(node_id, 0)

    @contextlib.asynccontextmanager
    async def lease(self, node_id: int) -> AsyncIterator[BrokerConnection]:
        """A connection to broker ``node_id`` for one exchange, the caller's alone meanwhile."""
        conn = await self._take(node_id)
        try:
            yield conn
        except BaseException:
            # an answer may still be owed on it: never handed to another poll
            self._forget(node_id)
            await _close_quietly(conn)
            raise
        await self._give_back(node_id, conn)

    async def _take(self, node_id: int) -> BrokerConnection:
        async with self._returned:
            while True:
                if self._closed:
                    raise ConnectionClosedError("the cluster is closed")
                idle = self._idle.get(node_id, [])
                while idle:
                    conn = idle.pop()
                    if not conn.closed:
                        return conn
                    self._open[node_id] -= 1
                if self._open.get(node_id, 0) < self.per_broker:
                    self._open[node_id] = self._open.get(node_id, 0) + 1
                    break
                await self._returned.wait()
        try:
            # the shared connection first: it learns the broker's address, and is open anyway
            await self.cluster.connection(node_id)
            broker = self.cluster.brokers[node_id]
            return await self.cluster.open_connection(broker.host, broker.port)
        except BaseException:
            self._forget(node_id)
            raise

    def _forget(self, node_id: int) -> None:
        """One connection to ``node_id`` fewer (closed, or never opened)."""
        self._open[node_id] -= 1
        self._notify()

    def _notify(self) -> None:
        async def notify() -> None:
            async with self._returned:
                self._returned.notify_all()

        # from a finally that may run in a cancelled task: the waiters are woken by a task of
        # their own rather than by an await here
        asyncio.get_running_loop().create_task(notify())

    async def _give_back(self, node_id: int, conn: BrokerConnection) -> None:
        idle = self._idle.setdefault(node_id, [])
        if conn.closed or self._closed or len(idle) >= self.idle_per_broker:
            self._forget(node_id)
            await _close_quietly(conn)
            return
        idle.append(conn)
        async with self._returned:
            self._returned.notify_all()

    async def close(self) -> None:
        self._closed = True
        idle = [c for conns in self._idle.values() for c in conns]
        self._idle.clear()
        for conn in idle:
            await _close_quietly(conn)
        async with self._returned:
            self._returned.notify_all()


async def _close_quietly(conn: BrokerConnection) -> None:
    with contextlib.suppress(OSError, ConnectionError, asyncio.CancelledError):
        await conn.close()
