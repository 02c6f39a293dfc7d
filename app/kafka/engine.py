"""``KafkaEngine``: the seam's interfaces (``app.engine.Engine``) on a Kafka cluster, as
``deps.engine_of`` gives them to the routes of a gateway (``SLUICE_BACKEND=kafka``).

It builds the connections to the cluster and the Kafka implementations of ``app/kafka/`` over
them, and owns their start and stop. What the gateway does not have yet (push sessions,
acquisitions by id) is ``NotOnKafka`` or refuses itself: every use
answers 400 ``UNSUPPORTED_ON_KAFKA_BACKEND`` with the name of what is missing, never a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from app.clock import Clock
from app.config import Settings
from app.engine import Acls, QuotaAdmin
from app.engine.storage import StorageState
from app.errors import ErrorCode, SluiceError, Unsupported
from app.kafka.acls import KafkaAcls
from app.kafka.cluster import Cluster
from app.kafka.credentials import cluster_for, sasl_login, tls_context
from app.kafka.feed_state import KafkaFeedState
from app.kafka.gateways import Gateways, advertised_url
from app.kafka.groups import KafkaGroups
from app.kafka.idempotency import KafkaIdempotency
from app.kafka.keys import KafkaKeys
from app.kafka.poll_connections import PollConnections
from app.kafka.produce import KafkaProduce
from app.kafka.producer_owners import ProducerOwners
from app.kafka.quotas import KafkaQuotaAdmin
from app.kafka.reads import KafkaReads
from app.kafka.share import KafkaShareGroups
from app.kafka.share_admin import KafkaShareAdmin
from app.kafka.share_members import GatewayShareGroups
from app.kafka.topics import KafkaTopics
from app.kafka.transactions import KafkaTransactions
from app.producers.appender import BatchResult, ProduceBatch
from app.producers.produce import Placed, Produced
from app.security.authorizer import Authorizer
from app.security.quotas import Quotas


class NotOnKafka:
    """Stands for an interface the gateway does not have yet: any member asked of it raises
    ``Unsupported(name)``, so that a route reaching it answers 400
    ``UNSUPPORTED_ON_KAFKA_BACKEND`` before doing anything."""

    def __init__(self, name: str, what: str) -> None:
        self._name = name
        self._what = what

    def __getattr__(self, member: str) -> NoReturn:
        raise Unsupported(self._name, f"{self._what} are not served on the Kafka backend yet")


# refusals of one batch of POST /v1/produce, answered in its result (the other batches are
# sent): the seam's produce_batches answers these per batch, as the embedded engine does; a
# partition the topic lacks and a record over the topic's limit too (docs/api.md)
_PER_BATCH = frozenset(
    {
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        ErrorCode.INVALID_PRODUCER_EPOCH,
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.RECORD_TOO_LARGE,
    }
)


class GatewayProduce:
    """The seam's ``Produce`` over ``KafkaProduce``; an ``Idempotency-Key`` through
    ``KafkaIdempotency``. A producer id without a transactional id is admitted only for the
    principal it was issued to (``ProducerOwners``); Kafka then checks its epoch and
    sequences."""

    def __init__(
        self, produce: KafkaProduce, idempotency: KafkaIdempotency, owners: ProducerOwners
    ) -> None:
        self.kafka = produce
        self.idempotency = idempotency
        self.owners = owners

    async def produce(self, topic_name: str, records: Placed) -> list[Produced]:
        return await self.kafka.produce_records(topic_name, records)

    async def produce_keyed(
        self,
        topic_name: str,
        records: Placed,
        key: str,
        body: bytes,
        owner: str | None = None,
    ) -> list[Produced]:
        return await self.idempotency.produce_keyed(topic_name, records, key, body, owner)

    async def produce_client_batches(
        self,
        topic_name: str,
        partition: int,
        body: bytes,
        tid: str | None,
        principal: str | None,
    ) -> list[BatchResult]:
        return await self.kafka.produce_batches(
            topic_name,
            partition,
            body,
            tid,
            check_producer=lambda pid: self.owners.check(pid, principal),
        )

    async def produce_batches(
        self,
        producer_id: int,
        epoch: int,
        tid: str | None,
        batches: list[ProduceBatch],
        principal: str | None,
    ) -> list[BatchResult]:
        if tid is None:
            try:
                await self.owners.check(producer_id, principal)
            except SluiceError as exc:
                if exc.code is not ErrorCode.INVALID_TXN_STATE:
                    raise
                # a transactional producer's id: every batch refused, as the embedded engine
                return [BatchResult(b.topic, b.partition, -1, exc) for b in batches]
        results: list[BatchResult] = []
        for b in batches:
            try:
                if b.raw is not None:
                    (result,) = await self.kafka.produce_batches(
                        b.topic, b.partition, bytes(b.raw), tid
                    )
                else:
                    produced = await self.kafka.produce_records(
                        b.topic,
                        [(b.partition, r) for r in b.records],
                        producer_id=producer_id,
                        producer_epoch=epoch,
                        base_sequences={b.partition: b.base_sequence},
                        transactional_id=tid,
                    )
                    result = BatchResult(b.topic, b.partition, produced[0].offset, None)
            except SluiceError as exc:
                # with a transactional id, a stale epoch is the whole request's: the producer
                # was fenced or its transaction timed out (docs/api.md)
                stale = tid is not None and exc.code is ErrorCode.INVALID_PRODUCER_EPOCH
                if exc.code not in _PER_BATCH or stale:
                    raise
                result = BatchResult(b.topic, b.partition, -1, exc)
            results.append(result)
        return results


class GatewayTransactions(KafkaTransactions):
    """The seam's ``Transactions``: ``KafkaTransactions`` with each producer id recorded as
    issued to its principal (``ProducerOwners``) before it is answered. The keyed produce's
    own producers (``KafkaIdempotency``) use a ``KafkaTransactions`` that records nothing."""

    def __init__(
        self, cluster: Cluster, produce: KafkaProduce, clock: Clock, owners: ProducerOwners
    ) -> None:
        super().__init__(cluster, produce, clock=clock)
        self.owners = owners

    async def init_producer_id(
        self,
        tid: str | None,
        timeout_ms: int,
        producer_id: int | None,
        producer_epoch: int | None,
        principal: str | None,
    ) -> tuple[int, int]:
        pid, epoch = await super().init_producer_id(
            tid, timeout_ms, producer_id, producer_epoch, principal
        )
        await self.owners.issued(pid, principal, tid)
        return pid, epoch


class KafkaEngine:
    """The gateway's engine. ``quotas`` and ``authorizer`` are the face's meters and ACL
    decisions, which the cluster's quotas and bindings are loaded into; ``start()`` connects
    and reads the cluster (``ready`` after it), ``close()`` disconnects."""

    def __init__(
        self, settings: Settings, clock: Clock, quotas: Quotas, authorizer: Authorizer
    ) -> None:
        self.settings = settings
        self.clock = clock
        # one TLS context and one login for every connection to the brokers
        tls, login = tls_context(settings), sasl_login(settings)

        def cluster(client_id: str) -> Cluster:
            return cluster_for(settings, client_id, tls=tls, login=login)

        self.cluster = cluster("sluice-gateway")
        # long polls over connections of their own: a broker answers one connection's
        # requests in order, so a produce or commit behind a poll would wait for its end
        self.read_cluster = cluster("sluice-gateway-reads")
        self.topics = KafkaTopics(
            self.cluster,
            max_partitions=settings.max_partitions,
            timeout_ms=settings.kafka_request_timeout_ms,
        )
        self.kafka_produce = KafkaProduce(
            self.cluster, settings, timeout_ms=settings.kafka_request_timeout_ms
        )
        self.polls = PollConnections(self.read_cluster)
        # records answered to reads, share fetches and push sockets, by topic: the feed's
        # consume rate
        self.consumed: Counter[str] = Counter()
        self.reads = KafkaReads(
            self.read_cluster,
            clock=clock,
            request_timeout_ms=settings.kafka_request_timeout_ms,
            polls=self.polls,
            consumed=self.consumed,
        )
        self.producer_owners = ProducerOwners(
            self.cluster,
            self.kafka_produce,
            clock,
            expiration_ms=settings.producer_id_expiration_ms,
        )
        self.transactions = GatewayTransactions(
            self.cluster, self.kafka_produce, clock, self.producer_owners
        )
        self.idempotency = KafkaIdempotency(
            self.cluster,
            self.kafka_produce,
            KafkaTransactions(self.cluster, self.kafka_produce, clock=clock),
            clock,
            retention_ms=settings.idempotency_key_retention_ms,
        )
        self.producers = GatewayProduce(self.kafka_produce, self.idempotency, self.producer_owners)
        self.groups = KafkaGroups(self.cluster, self.reads)
        self.keys = KafkaKeys(self.cluster, clock)
        self._acls = KafkaAcls(self.cluster, authorizer)
        self._quota_admin = KafkaQuotaAdmin(self.cluster, quotas, clock)
        self.kafka_share = KafkaShareGroups(
            self.cluster, request_timeout_ms=settings.kafka_request_timeout_ms
        )
        self.share = GatewayShareGroups(self.kafka_share, clock, self.consumed)
        # this gateway's id and address, and the other gateways' (share members' requests
        # that reach a gateway not holding the member are forwarded: app/kafka/forward.py)
        self.gateways = Gateways(self.cluster, clock, advertised_url(settings))
        self._idle_member_ms = settings.share_session_timeout_ms
        self.share_admin = KafkaShareAdmin(
            self.cluster, timeout_ms=settings.kafka_request_timeout_ms
        )
        self.acquisitions: Any = NotOnKafka("share_acquisitions", "acquisitions by id")
        # the event feed's readings, over connections of their own (opened at the first)
        self.feed_state = KafkaFeedState(
            cluster("sluice-gateway-feed"), settings, clock, self.consumed
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._ready = False
        # what the application built over the engine and closes with it
        self._closers: list[Callable[[], Awaitable[None]]] = []

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Await ``closer`` when the engine closes."""
        self._closers.append(closer)

    @property
    def ready(self) -> bool:
        return self._ready

    def storage(self) -> StorageState | None:
        """None: the gateway keeps no data on its own disk (the brokers do)."""
        return None

    @property
    def acls(self) -> Acls:
        return self._acls

    @property
    def quota_admin(self) -> QuotaAdmin:
        return self._quota_admin

    async def start(self) -> None:
        """Learn the cluster, read the keys' topic to its end, the ACL bindings and the
        quotas; then follow the bindings and the quotas beside the server."""
        try:
            await self.cluster.start()
            await self.read_cluster.start()
            await self.keys.start()
            await self.idempotency.start()
            await self.producer_owners.start()
            await self.gateways.start()
            self.share.membership.gateway_id = self.gateways.id
            await self._acls.load()
            await self._quota_admin.load()
        except BaseException:
            await self.close()
            raise
        self._tasks = [
            asyncio.create_task(self._acls.run(), name="kafka-acl-reload"),
            asyncio.create_task(self._quota_admin.run_reload(), name="kafka-quota-reload"),
            asyncio.create_task(
                self.share.run_reaper(self._idle_member_ms), name="kafka-share-reaper"
            ),
            asyncio.create_task(self.producer_owners.run_expiry(), name="kafka-producer-expiry"),
            asyncio.create_task(self.idempotency.run_expiry(), name="kafka-idempotency-expiry"),
        ]
        self._ready = True

    def begin_shutdown(self) -> None:
        self._ready = False
        self.share.stopped.set()  # long polls of share members answer at once

    async def close(self) -> None:
        self._ready = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        with contextlib.suppress(SluiceError, OSError):
            await self.share.close()
        await self.gateways.close()
        for closer in self._closers:
            with contextlib.suppress(Exception):
                await closer()
        await self.idempotency.close()
        await self.producer_owners.close()
        await self.keys.close()
        await self.feed_state.close()
        await self.polls.close()
        await self.read_cluster.close()
        await self.cluster.close()
