"""A Kafka cluster as the gateway sees it (docs/kafka-protocol.md#cluster): its brokers, topics,
partitions and their leaders as Metadata last answered, one connection per broker made when
first needed, and the coordinators of groups and transactions as FindCoordinator answered.

What the cluster learns it keeps until an answer says it is stale: a partition error that
means the leader moved or the topic changed (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION
and the like) drops the topic from the cache, and the next lookup asks Metadata again;
NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE drop the coordinator, and the next lookup asks
FindCoordinator again. ``send_to_leader`` and ``send_to_coordinator`` do that and send again, a
bounded number of times.

A request whose connection ends is not sent again here: the broker may have acted on it, and
only the caller knows whether sending it twice is safe. The dead connection is dropped, so the
next request makes a new one. A broker that cannot be reached (its connection refused or
ended) is taken for one that may have died: what the cluster learned that names it (the
leaderships of its partitions, the coordinators it was) is dropped, so that the next lookup
asks Metadata or FindCoordinator again and finds the broker that took over once the controllers
fenced the dead one. ``send_to_leader`` and ``send_to_coordinator`` also look up again and send
when the connection could not even be made, since then nothing was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl as ssl_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from uuid import UUID

from app.kafka.connection import DEFAULT_REQUEST_TIMEOUT, BrokerConnection
from app.kafka.protocol.errors import (
    COORDINATOR_LOAD_IN_PROGRESS,
    COORDINATOR_NOT_AVAILABLE,
    FENCED_LEADER_EPOCH,
    LEADER_NOT_AVAILABLE,
    NONE,
    NOT_COORDINATOR,
    NOT_LEADER_OR_FOLLOWER,
    UNKNOWN_LEADER_EPOCH,
    UNKNOWN_TOPIC_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
    BrokerError,
    ConnectionClosedError,
    ProtocolError,
)
from app.kafka.protocol.message import Request, Response
from app.kafka.protocol.messages import (
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    MetadataRequest,
    MetadataResponse,
)
from app.kafka.sasl import SaslLogin

R = TypeVar("R", bound=Response)

# FindCoordinator's key types
GROUP = 0
TRANSACTION = 1

BROKER_NOT_AVAILABLE = 8

# partition errors that mean the cached leader or topic is stale: ask Metadata again
STALE_METADATA = frozenset(
    {
        UNKNOWN_TOPIC_OR_PARTITION,
        LEADER_NOT_AVAILABLE,
        NOT_LEADER_OR_FOLLOWER,
        FENCED_LEADER_EPOCH,
        UNKNOWN_LEADER_EPOCH,
        UNKNOWN_TOPIC_ID,
    }
)
# coordinator errors that mean the cached coordinator is stale: ask FindCoordinator again
STALE_COORDINATOR = frozenset({NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE})
# the coordinator is right but still loading its state: ask it again later
COORDINATOR_RETRY = STALE_COORDINATOR | {COORDINATOR_LOAD_IN_PROGRESS}


@dataclass(frozen=True, slots=True)
class Broker:
    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    partition: int
    leader_id: int  # -1 while there is none
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    error_code: int = NONE


@dataclass(frozen=True, slots=True)
class TopicInfo:
    name: str
    topic_id: UUID
    partitions: dict[int, PartitionInfo]
    is_internal: bool = False


def parse_bootstrap(text: str) -> list[tuple[str, int]]:
    """``host:port,host:port,...`` (an IPv6 host in brackets: ``[::1]:9092``)."""
    out: list[tuple[str, int]] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"bootstrap address {item!r} is not host:port")
        out.append((host, int(port)))
    if not out:
        raise ValueError("the bootstrap list names no broker")
    return out


class Cluster:
    """The brokers of one cluster, learned from the bootstrap list. ``await start()`` first."""

    def __init__(
        self,
        bootstrap: str,
        *,
        client_id: str = "sluice",
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        ssl: ssl_module.SSLContext | None = None,
        sasl: SaslLogin | None = None,
        retries: int = 5,
        retry_backoff: float = 0.1,
    ) -> None:
        self.bootstrap = parse_bootstrap(bootstrap)
        self.client_id = client_id
        self.request_timeout = request_timeout
        self.ssl = ssl
        self.sasl = sasl
        self.retries = retries
        self.retry_backoff = retry_backoff
        self.cluster_id: str | None = None
        self.controller_id = -1
        self.brokers: dict[int, Broker] = {}
        self.topics: dict[str, TopicInfo] = {}
        self._connections: dict[int, BrokerConnection] = {}
        self._opening: dict[int, asyncio.Future[BrokerConnection]] = {}
        self._bootstrap_connection: BrokerConnection | None = None
        self._coordinators: dict[tuple[int, str], int] = {}
        self._closed = False

    async def start(self) -> None:
        """Connect to the first bootstrap broker that answers and learn the cluster."""
        await self.refresh_metadata()

    async def close(self) -> None:
        self._closed = True
        conns = list(self._connections.values())
        if self._bootstrap_connection is not None:
            conns.append(self._bootstrap_connection)
        self._connections.clear()
        self._bootstrap_connection = None
        for conn in conns:
            await conn.close()

    # -- connections -----------------------------------------------------------------------------

    async def open_connection(self, host: str, port: int) -> BrokerConnection:
        """A new connection to ``host:port`` with the cluster's settings (TLS, SASL login),
        which the caller owns and closes."""
        return await BrokerConnection.open(
            host,
            port,
            client_id=self.client_id,
            request_timeout=self.request_timeout,
            ssl=self.ssl,
            sasl=self.sasl,
        )

    async def connection(self, node_id: int) -> BrokerConnection:
        """The open connection to broker ``node_id``, made now if there is none. Callers that
        ask at the same time share one opening."""
        if self._closed:
            raise ConnectionClosedError("the cluster is closed")
        conn = self._connections.get(node_id)
        if conn is not None and not conn.closed:
            return conn
        if node_id not in self.brokers and node_id not in self._opening:
            await self.refresh_metadata()
            if node_id not in self.brokers:
                raise BrokerError(
                    BROKER_NOT_AVAILABLE, f"broker {node_id} is not in the cluster's metadata"
                )
        opening = self._opening.get(node_id)
        if opening is None:
            conn = self._connections.get(node_id)
            if conn is not None and not conn.closed:
                return conn  # opened while Metadata was asked
            opening = asyncio.ensure_future(self._open_node(node_id, self.brokers[node_id]))
            self._opening[node_id] = opening
        # shielded: a caller that gives up does not end the opening the others wait on
        try:
            return await asyncio.shield(opening)
        except ConnectionClosedError:
            self.forget_node(node_id)
            raise

    def forget_node(self, node_id: int) -> None:
        """Drop what was learned that names broker ``node_id`` as a leader or a coordinator,
        after it could not be reached: a broker killed keeps its leaderships in the cluster's
        metadata until the controllers fence it, and a cache that is never asked again would
        send to it for as long as the gateway runs."""
        for name in [
            name
            for name, info in self.topics.items()
            if any(p.leader_id == node_id for p in info.partitions.values())
        ]:
            del self.topics[name]
        for key in [k for k, n in self._coordinators.items() if n == node_id]:
            del self._coordinators[key]

    async def _open_node(self, node_id: int, broker: Broker) -> BrokerConnection:
        # the opening itself keeps the connection, whichever of its callers are still waiting
        try:
            conn = await self.open_connection(broker.host, broker.port)
        finally:
            self._opening.pop(node_id, None)
        if self._closed:
            await conn.close()
            raise ConnectionClosedError("the cluster is closed")
        self._connections[node_id] = conn
        return conn

    async def any_connection(self) -> BrokerConnection:
        """A connection to some broker, for requests any broker answers (Metadata,
        FindCoordinator): one already open, else one to a known broker, else one to the
        bootstrap brokers in turn."""
        if self._closed:
            raise ConnectionClosedError("the cluster is closed")
        for conn in self._connections.values():
            if not conn.closed:
                return conn
        boot = self._bootstrap_connection
        if boot is not None and not boot.closed:
            return boot
        errors: list[str] = []
        for node_id in list(self.brokers):
            try:
                return await self.connection(node_id)
            except ProtocolError as e:
                errors.append(str(e))
        for host, port in self.bootstrap:
            try:
                self._bootstrap_connection = await self.open_connection(host, port)
                return self._bootstrap_connection
            except ProtocolError as e:
                errors.append(str(e))
        raise ConnectionClosedError("no broker answered: " + "; ".join(errors))

    # -- metadata --------------------------------------------------------------------------------

    async def refresh_metadata(self, topics: Sequence[str] | None = None) -> MetadataResponse:
        """Ask Metadata about ``topics`` (every topic when None) and keep what it says.

        Topics are never created by asking about them."""
        request = MetadataRequest(
            topics=None
            if topics is None
            else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False,
        )
        conn = await self.any_connection()
        answer = await conn.send(request)
        if answer.error_code:
            raise BrokerError(answer.error_code, "Metadata")
        self.cluster_id = answer.cluster_id
        self.controller_id = answer.controller_id
        self.brokers = {
            b.node_id: Broker(b.node_id, b.host, b.port, b.rack) for b in answer.brokers
        }
        if topics is None:
            self.topics = {}
        for t in answer.topics:
            if t.name is None:
                continue
            if t.error_code:
                self.topics.pop(t.name, None)
                continue
            self.topics[t.name] = TopicInfo(
                name=t.name,
                topic_id=t.topic_id,
                is_internal=t.is_internal,
                partitions={
                    p.partition_index: PartitionInfo(
                        partition=p.partition_index,
                        leader_id=p.leader_id,
                        leader_epoch=p.leader_epoch,
                        replicas=tuple(p.replica_nodes),
                        isr=tuple(p.isr_nodes),
                        error_code=p.error_code,
                    )
                    for p in t.partitions
                },
            )
        # connections to brokers that left the cluster are closed
        for node_id in [n for n in self._connections if n not in self.brokers]:
            await self._connections.pop(node_id).close()
        return answer

    async def topic(self, name: str) -> TopicInfo:
        """The topic as last learned, asking Metadata when it is not known."""
        info = self.topics.get(name)
        if info is None:
            answer = await self.refresh_metadata([name])
            info = self.topics.get(name)
            if info is None:
                code = next(
                    (t.error_code for t in answer.topics if t.name == name),
                    UNKNOWN_TOPIC_OR_PARTITION,
                )
                raise BrokerError(code or UNKNOWN_TOPIC_OR_PARTITION, f"topic {name!r}")
        return info

    async def leader(self, topic: str, partition: int) -> tuple[TopicInfo, PartitionInfo]:
        """The partition and its leader; while it has none (an election, a topic just
        created), Metadata is asked again, a bounded number of times. A partition the cached
        metadata lacks is asked for once more: partitions may have been added since."""
        asked_again = False
        for attempt in range(self.retries + 1):
            try:
                info = await self.topic(topic)
            except BrokerError as e:
                if e.code not in STALE_METADATA or attempt == self.retries:
                    raise
                await self._backoff(attempt)
                continue
            p = info.partitions.get(partition)
            if p is None and not asked_again:
                asked_again = True
                self.topics.pop(topic, None)
                continue
            if p is None:
                raise BrokerError(
                    UNKNOWN_TOPIC_OR_PARTITION, f"topic {topic!r} has no partition {partition}"
                )
            # a partition with a leader may still carry an error (a replica offline): the
            # leader is what counts here
            if p.leader_id >= 0:
                return info, p
            if attempt == self.retries:
                raise BrokerError(
                    p.error_code or LEADER_NOT_AVAILABLE, f"{topic}-{partition} has no leader"
                )
            self.topics.pop(topic, None)
            await self._backoff(attempt)
        raise AssertionError("unreachable")

    def stale(self, topic: str, code: int) -> bool:
        """Whether ``code``, answered for a partition of ``topic``, means the cached metadata
        is stale; if so the topic is dropped, and the next lookup asks Metadata again."""
        if code in STALE_METADATA:
            self.topics.pop(topic, None)
            return True
        return False

    async def send_to_leader(
        self,
        topic: str,
        partition: int,
        build: Callable[[TopicInfo, PartitionInfo], Request[R]],
        error_of: Callable[[R], int],
    ) -> R:
        """Send the request ``build`` makes (from the topic and partition as known) to the
        partition's leader; when ``error_of`` its answer says the metadata was stale, learn it
        again and send again, up to ``retries`` times. The last answer is returned as it came.
        """
        for attempt in range(self.retries + 1):
            info, p = await self.leader(topic, partition)
            try:
                conn = await self.connection(p.leader_id)
            except ConnectionClosedError:
                # nothing was sent: the leader is looked up again (``connection`` forgot it)
                if attempt == self.retries:
                    raise
                await self._backoff(attempt)
                continue
            answer = await self._send(p.leader_id, conn, build(info, p))
            if not self.stale(topic, error_of(answer)) or attempt == self.retries:
                return answer
            await self._backoff(attempt)
        raise AssertionError("unreachable")

    async def _send(self, node_id: int, conn: BrokerConnection, request: Request[R]) -> R:
        try:
            return await conn.send(request)
        except ConnectionClosedError:
            # the next request to this broker opens a new connection, and the next lookup of
            # what it led or coordinated asks again
            if self._connections.get(node_id) is conn:
                del self._connections[node_id]
            self.forget_node(node_id)
            raise

    # -- coordinators ----------------------------------------------------------------------------

    async def coordinator(self, key: str, key_type: int = GROUP) -> int:
        """The node id of the coordinator of group or transactional id ``key``, asking
        FindCoordinator when it is not known (and again while the answer is that none is
        available yet)."""
        cached = self._coordinators.get((key_type, key))
        if cached is not None:
            return cached
        for attempt in range(self.retries + 1):
            conn = await self.any_connection()
            version = conn.version(FindCoordinatorRequest)
            if FindCoordinatorRequest.carries("coordinator_keys", version):
                request = FindCoordinatorRequest(key_type=key_type, coordinator_keys=[key])
            else:
                request = FindCoordinatorRequest(key_type=key_type, key=key)
            answer = await conn.send(request)
            node_id, host, port, code, message = _coordinator_of(answer, key)
            if code == NONE:
                if node_id not in self.brokers:
                    self.brokers[node_id] = Broker(node_id, host, port)
                self._coordinators[(key_type, key)] = node_id
                return node_id
            if code not in COORDINATOR_RETRY or attempt == self.retries:
                raise BrokerError(code, message or f"FindCoordinator for {key!r}")
            await self._backoff(attempt)
        raise AssertionError("unreachable")

    def stale_coordinator(self, key: str, key_type: int, code: int) -> bool:
        """Whether ``code``, answered by the coordinator of ``key``, means to ask again
        (dropping the cached coordinator when it moved)."""
        if code in STALE_COORDINATOR:
            self._coordinators.pop((key_type, key), None)
        return code in COORDINATOR_RETRY

    async def send_to_coordinator(
        self,
        key: str,
        key_type: int,
        build: Callable[[], Request[R]],
        error_of: Callable[[R], int],
    ) -> R:
        """Send the request ``build`` makes to the coordinator of ``key``; when ``error_of``
        its answer says the coordinator moved or is loading, find it again and send again, up
        to ``retries`` times. The last answer is returned as it came."""
        for attempt in range(self.retries + 1):
            node_id = await self.coordinator(key, key_type)
            try:
                conn = await self.connection(node_id)
            except ConnectionClosedError:
                # nothing was sent: the coordinator is looked up again (``connection`` forgot it)
                if attempt == self.retries:
                    raise
                await self._backoff(attempt)
                continue
            answer = await self._send(node_id, conn, build())
            if not self.stale_coordinator(key, key_type, error_of(answer)):
                return answer
            if attempt == self.retries:
                return answer
            await self._backoff(attempt)
        raise AssertionError("unreachable")

    async def _backoff(self, attempt: int) -> None:
        # doubling from retry_backoff, at most a second: a leader election or a coordinator
        # loading its state takes that long
        with contextlib.suppress(OverflowError):
            await asyncio.sleep(min(self.retry_backoff * (2**attempt), 1.0))


def _coordinator_of(answer: FindCoordinatorResponse, key: str) -> tuple[int, str, int, int, Any]:
    """(node id, host, port, error code, message) for ``key``, from either layout."""
    for c in answer.coordinators:
        if c.key == key:
            return c.node_id, c.host, c.port, c.error_code, c.error_message
    if answer.coordinators:
        c = answer.coordinators[0]
        return c.node_id, c.host, c.port, c.error_code, c.error_message
    return answer.node_id, answer.host, answer.port, answer.error_code, answer.error_message
