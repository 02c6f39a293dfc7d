"""Broker: the composition root. It builds every service with its dependencies, starts and stops
them in order, and sums up their ``statistics()``; it does no request's work itself.

Built, bottom up: the data directory, the metadata database and the partition logs; the
flusher (group-commit fsync, publishing new data); topics; the appender (the one append
path); the transaction coordinator (markers through the appender; consumer-group offsets and
share-group acknowledgements as its participants); produce, reads and retention; consumer and
share groups; the event feed of dashboards; the ACLs and their authorizer; the quotas.
Routers reach each service through ``app.api.deps``.

Start is: lock the directory, migrate and load the metadata, open the logs (recovery), start
the flusher and the share state writer, finish every interrupted transaction end, start the
sweepers, become ready. Stop is the reverse, after releasing long polls.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal, cast

from app.clock import Clock, SystemClock
from app.config import Settings
from app.datadir import DataDir
from app.engine import Engine
from app.engine.embedded.engine import EmbeddedEngine
from app.engine.embedded.feed import EmbeddedFeedState
from app.feed import EventFeed
from app.flusher import Flusher
from app.gauges import BrokerGauges
from app.groups.coordinator import GroupCoordinator
from app.groups.txn import GroupTxnParticipant
from app.metadata.db import Database
from app.metadata.groups import GroupStore
from app.metadata.migrate import migrate
from app.metadata.store import IdempotencyStore, TopicStore
from app.metadata.txn_store import ProducerIdStore, TransactionStore
from app.metrics import Metrics
from app.producers.appender import Appender
from app.producers.ids import ProducerIds
from app.producers.manager import ProducerStateManager
from app.producers.produce import ProduceService
from app.reads import Reads
from app.retention import Retention
from app.security.acls import AclStore
from app.security.authorizer import Authorizer
from app.security.keys import KeyStore
from app.security.quota_admin import QuotaAdmin
from app.security.quota_store import QuotaStore
from app.security.quotas import QuotaCounters, Quotas
from app.security.tokens import WsTokens
from app.share.acquisitions import Acquisitions
from app.share.admin import ShareGroupAdmin
from app.share.coordinator import ShareGroupCoordinator
from app.share.txn import ShareTxnParticipant
from app.storage.health import StorageHealth
from app.storage.manager import LogManager
from app.supervisor import Supervisor
from app.topics import TopicRegistry
from app.transactions.coordinator import TransactionCoordinator
from app.transactions.participants import OffsetParticipant

if TYPE_CHECKING:
    from app.kafka.engine import KafkaEngine

log = logging.getLogger("sluice")


class Broker:
    def __init__(
        self,
        settings: Settings,
        clock: Clock | None = None,
        *,
        offset_participant: OffsetParticipant | Literal["groups"] | None = "groups",
    ) -> None:
        """``offset_participant`` replaces the consumer groups' side of transactional offsets
        (tests bring their own; None: a server whose transactions take no offsets)."""
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.metrics = Metrics()
        self.storage_health = StorageHealth()
        self.quotas = Quotas(
            self.clock,
            producer_byte_rate=settings.quota_producer_byte_rate,
            consumer_byte_rate=settings.quota_consumer_byte_rate,
            windows=settings.quota_windows,
            window_ms=settings.quota_window_ms,
            counters=QuotaCounters(
                self.metrics.quota_throttled,
                self.metrics.quota_throttle_seconds,
                self.metrics.quota_bytes,
            ),
        )
        self.authorizer = Authorizer(
            super_users=(u.strip() for u in settings.super_users.split(",") if u.strip())
        )
        self.ws_tokens = WsTokens(self.clock, settings.ws_token_ttl_ms)
        self.supervisor = Supervisor()
        self.ready = False
        self.stopped = False
        # the gateway's engine, or None on the embedded engine (the default)
        self.kafka: KafkaEngine | None = None
        if settings.backend == "kafka":
            self._build_kafka()
        else:
            self._build_embedded(offset_participant)

    def _build_embedded(
        self, offset_participant: OffsetParticipant | Literal["groups"] | None
    ) -> None:
        settings = self.settings
        self.data = DataDir(settings.data_dir)
        self.db = Database(self.data.metadata, self.storage_health)
        always = settings.fsync == "always"
        self.log_manager = LogManager(
            self.data.logs,
            durable_reads=always,
            producer_state=ProducerStateManager,
            health=self.storage_health,
        )
        self.flusher = Flusher(
            always=always,
            interval_ms=settings.fsync_interval_ms,
            checkpoint_interval_ms=settings.checkpoint_interval_ms,
            clock=self.clock,
            round_seconds=self.metrics.fsync_seconds,
        )
        self.topics = TopicRegistry(
            TopicStore(self.db), self.log_manager, self.flusher, settings.max_partitions
        )
        self.appender = Appender(self.topics, self.flusher, self.clock)
        self.producer_ids = ProducerIds(ProducerIdStore(self.db), settings.producer_id_block_size)
        self.groups = GroupCoordinator(settings, self.clock, GroupStore(self.db), self.topics)
        self.share = ShareGroupCoordinator(
            settings, self.clock, self.db, self.topics, self.appender, self.metrics.delivered
        )
        self.share_admin = ShareGroupAdmin(self.share)
        self.acquisitions = Acquisitions(self.share)
        self.transactions = TransactionCoordinator(
            TransactionStore(self.db),
            self.producer_ids,
            self.clock,
            settings,
            log=self.appender,
            offsets=(
                GroupTxnParticipant(self.groups)
                if offset_participant == "groups"
                else offset_participant
            ),
            acks=ShareTxnParticipant(self.share),
        )
        self.producers = ProduceService(
            settings,
            self.clock,
            self.topics,
            self.appender,
            self.producer_ids,
            IdempotencyStore(self.db),
            self.transactions,
            self.metrics.records_in,
        )
        self.reads = Reads(self.topics, self.clock, self.metrics.records_out)
        self.retention = Retention(
            self.topics, self.flusher, self.clock, settings.retention_check_interval_ms
        )
        self.feed_state = EmbeddedFeedState(
            self.topics, self.share_admin, self.groups, self.transactions
        )
        self.feed = EventFeed(
            interval_ms=settings.events_interval_ms,
            clock=self.clock,
            metrics=self.metrics,
            state=self.feed_state,
        )
        self.quota_admin = QuotaAdmin(self.quotas, QuotaStore(self.db), self.clock)
        self.flusher.subscribe(self.reads.on_new_data)
        self.flusher.subscribe(self.share.on_data)
        self.acls = AclStore(self.db, self.authorizer, self.clock)
        self.keys: KeyStore = KeyStore(self.db, self.clock)
        self.metrics.register(BrokerGauges(self))
        # what the routes on the seam are given (app.api.deps.engine_of)
        self.engine: Engine = EmbeddedEngine(self)

    def _build_kafka(self) -> None:
        """The gateway (docs/kafka.md): the face's objects over ``KafkaEngine``; no data
        directory, no metadata database, no log. The face's acquisitions are the engine's
        stand-in, which answers UNSUPPORTED_ON_KAFKA_BACKEND; the event feed is the face's,
        over the engine's feed state (read from the cluster)."""
        # imported here: the Kafka modules (the protocol's message classes above all, some 30 MB)
        # are loaded by a gateway only, never by the embedded server
        from app.kafka.engine import KafkaEngine

        kafka = KafkaEngine(self.settings, self.clock, self.quotas, self.authorizer)
        self.kafka = kafka
        self.keys = kafka.keys
        # the routes ask of these only what the seam's ShareGroups and ShareAdmin have
        self.share = cast(ShareGroupCoordinator, kafka.share)
        self.share_admin = cast(ShareGroupAdmin, kafka.share_admin)
        self.acquisitions = kafka.acquisitions
        # the feed reads only what the seam's FeedState has
        self.feed_state = cast(EmbeddedFeedState, kafka.feed_state)
        self.feed = EventFeed(
            interval_ms=self.settings.events_interval_ms,
            clock=self.clock,
            metrics=self.metrics,
            state=self.feed_state,
        )
        # the routes ask of these only what the seam's Acls and QuotaAdmin have
        self.acls = cast(AclStore, kafka.acls)
        self.quota_admin = cast(QuotaAdmin, kafka.quota_admin)
        self.engine = kafka

    async def start(self) -> None:
        """Open metadata and logs (recovery), start background tasks, become ready; on the
        Kafka backend, connect to the cluster and read it."""
        if self.kafka is not None:
            await self.kafka.start()
            self.supervisor.spawn("events-publisher", self.feed.run)
            self.ready = True
            log.info("ready: the gateway of Kafka cluster %s", self.kafka.cluster.cluster_id)
            return
        if not self.data.locked:
            self.data.lock()
        try:
            await self.db.open()
            applied = await migrate(self.db.writer)
            if applied:
                log.info("applied migrations: %s", ", ".join(applied))
            await self.keys.reload_if_changed()
            await self.topics.load(self.clock.now_ms())
            await self.producer_ids.load()
            await self.transactions.load()
            await self.groups.load()
            await self.share.load()
            await self.acls.reload_if_changed()
            await self.quota_admin.load()
        except BaseException:
            await self.db.close()
            self.data.unlock()
            raise
        run = self.supervisor.spawn
        run("flusher", self.flusher.run)
        run("share-state-writer", self.share.run_writer)
        await self.transactions.recover()  # markers need the flusher
        run("txn-timeouts", self.transactions.run_timeouts)
        run("producer-expiry", self.producers.run_producer_expiry)
        run("idempotency-expiry", self.producers.run_key_expiry)
        run("retention", self.retention.run)
        run("group-sessions", self.groups.run_expiry)
        run("share-timers", self.share.run_timers)
        run("share-sessions", self.share.membership.run_sessions)
        run("events-publisher", self.feed.run)
        run("acl-reload", self.acls.run)
        run("keys-watch", self.keys.watch)
        run("quota-reload", self.quota_admin.run_reload)
        self.ready = True
        log.info("ready: %d topics in %s", len(self.topics.topics), self.data.path)

    def begin_shutdown(self) -> None:
        """Stop accepting requests, release long polls and close the event sockets; in-flight
        writes still finish."""
        self.ready = False
        if self.kafka is not None:
            self.kafka.begin_shutdown()
        else:
            self.reads.begin_shutdown()
            self.share.begin_shutdown()
        self.feed.close()

    async def stop(self) -> None:
        self.begin_shutdown()
        if self.kafka is not None:
            await self.supervisor.stop()
            await self.kafka.close()
            self.stopped = True
            log.info("stopped cleanly")
            return
        await self.transactions.drain()  # ends answered early still write their markers
        await self.supervisor.stop()
        await self.share.close()  # the last share state round
        await self.flusher.close()
        self.log_manager.close_all(clean=True)
        await self.db.close()
        self.data.unlock()
        self.stopped = True
        log.info("stopped cleanly")

    def statistics(self) -> dict[str, Any]:
        if self.kafka is not None:
            return {"backend": "kafka", "brokers": len(self.kafka.cluster.brokers)}
        s = self.flusher.stats
        return {
            "topics": len(self.topics.topics),
            "partitions": sum(t.partitions for t in self.topics.topics.values()),
            "flush_rounds": s.rounds,
            "fsyncs": s.fsyncs,
            "flush_waiters_served": s.waiters_served,
            "transactions": self.transactions.statistics(),
            **self.share.statistics(),
        }
