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
from typing import Any, NoReturn

from app.clock import Clock
from app.config import Settings
from app.engine import Acls, QuotaAdmin
from app.engine.storage import StorageState
from app.errors import ErrorCode, SluiceError, Unsupported
from app.kafka.acls import KafkaAcls
from app.kafka.cluster import Cluster
from app.kafka.feed_state import KafkaFeedState
from app.kafka.groups import KafkaGroups
from app.kafka.idempotency import KafkaIdempotency
from app.kafka.keys import KafkaKeys
from app.kafka.produce import KafkaProduce
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
    ``KafkaIdempotency``. A producer id is not yet tied to the principal it was issued to (that
    needs the producers' topic): Kafka checks its epoch and sequences, any principal may use
    it."""

    def __init__(self, produce: KafkaProduce, idempotency: KafkaIdempotency) -> None:
        self.kafka = produce
        self.idempotency = idempotency

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
        return await self.kafka.produce_batches(topic_name, partition, body, tid)

    async def produce_batches(
        self,
        producer_id: int,
        epoch: int,
        tid: str | None,
        batches: list[ProduceBatch],
        principal: str | None,
    ) -> list[BatchResult]:
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


class KafkaEngine:
    """The gateway's engine. ``quotas`` and ``authorizer`` are the face's meters and ACL
    decisions, which the cluster's quotas and bindings are loaded into; ``start()`` connects
    and reads the cluster (``ready`` after it), ``close()`` disconnects."""

    def __init__(
        self, settings: Settings, clock: Clock, quotas: Quotas, authorizer: Authorizer
    ) -> None:
        timeout_s = settings.kafka_request_timeout_ms / 1000
        self.cluster = Cluster(
            settings.kafka_bootstrap, client_id="sluice-gateway", request_timeout=timeout_s
        )
        # long polls over connections of their own: a broker answers one connection's
        # requests in order, so a produce or commit behind a poll would wait for its end
        self.read_cluster = Cluster(
            settings.kafka_bootstrap, client_id="sluice-gateway-reads", request_timeout=timeout_s
        )
        self.topics = KafkaTopics(
            self.cluster,
            max_partitions=settings.max_partitions,
            timeout_ms=settings.kafka_request_timeout_ms,
        )
        self.kafka_produce = KafkaProduce(
            self.cluster, settings, timeout_ms=settings.kafka_request_timeout_ms
        )
        self.reads = KafkaReads(
            self.read_cluster, clock=clock, request_timeout_ms=settings.kafka_request_timeout_ms
        )
        self.transactions = KafkaTransactions(self.cluster, self.kafka_produce, clock=clock)
        self.idempotency = KafkaIdempotency(
            self.cluster,
            self.kafka_produce,
            self.transactions,
            clock,
            retention_ms=settings.idempotency_key_retention_ms,
        )
        self.producers = GatewayProduce(self.kafka_produce, self.idempotency)
        self.groups = KafkaGroups(self.cluster, self.reads)
        self.keys = KafkaKeys(self.cluster, clock)
        self._acls = KafkaAcls(self.cluster, authorizer)
        self._quota_admin = KafkaQuotaAdmin(self.cluster, quotas, clock)
        self.kafka_share = KafkaShareGroups(
            self.cluster, request_timeout_ms=settings.kafka_request_timeout_ms
        )
        self.share = GatewayShareGroups(self.kafka_share, clock)
        self._idle_member_ms = settings.share_session_timeout_ms
        self.share_admin = KafkaShareAdmin(
            self.cluster, timeout_ms=settings.kafka_request_timeout_ms
        )
        self.acquisitions: Any = NotOnKafka("share_acquisitions", "acquisitions by id")
        # the event feed's readings, over connections of their own (opened at the first)
        self.feed_state = KafkaFeedState(
            Cluster(
                settings.kafka_bootstrap, client_id="sluice-gateway-feed", request_timeout=timeout_s
            ),
            settings,
            clock,
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._ready = False

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
        await self.idempotency.close()
        await self.keys.close()
        await self.feed_state.close()
        await self.read_cluster.close()
        await self.cluster.close()
