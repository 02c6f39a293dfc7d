"""The clients of :mod:`benchmarks.peers`: one Python client per queue, all behind the same few
calls, so that the workloads are the same code for every peer.

A :class:`Client` sets a queue up (:meth:`Client.create`: a stream and its group, a table, a
quorum queue, a topic and its share group), counts what it holds (:meth:`Client.stored`), and in
the workload processes produces a request of records (:meth:`Client.produce`), fetches up to
100 (:meth:`Client.fetch`, each record with its number and whether this is its first delivery)
and acknowledges them, accepting some and releasing the others for redelivery
(:meth:`Client.ack`). Every call is a coroutine; the clients that are synchronous (Sluice's own,
redis-py, psycopg, confluent-kafka) are called directly from it, which blocks nothing, as each
workload process runs one producer or one consumer.

A record's value is 256 bytes: its number (8 bytes, big-endian), then random bytes; consumers
read the number back to check, by number, that nothing was lost.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from abc import ABC, abstractmethod
from typing import Any, NamedTuple

from benchmarks import _harness as h

Json = dict[str, Any]

HOST = "127.0.0.1"
BATCH = 100
VALUE_BYTES = 256
GROUP = "workers"
# Redis: a consumer releases an entry by setting its idle time far beyond any real holder's;
# consumers claim entries idle for longer than a minute (a crashed holder's, or released ones).
REDIS_RELEASED_IDLE_MS = 3_600_000
REDIS_CLAIM_IDLE_MS = 60_000
# PostgreSQL has no blocking fetch: a consumer that found nothing waits this long before asking
# again.
POSTGRES_EMPTY_NAP = 0.005


class Delivery(NamedTuple):
    number: int  # the record's number, read from its value
    first: bool  # its first delivery
    handle: Any  # what the peer's client needs to acknowledge it


class Broken(Exception):
    """A peer answered something its protocol does not allow (a refused write, a short read)."""


def values(first: int, count: int, pool: list[bytes]) -> list[bytes]:
    """Records ``first``..``first + count - 1``: each its number then random bytes."""
    return [n.to_bytes(8, "big") + pool[n % len(pool)] for n in range(first, first + count)]


def value_pool(seed: int = 1, size: int = 997) -> list[bytes]:
    rng = random.Random(seed)
    return [rng.randbytes(VALUE_BYTES - 8) for _ in range(size)]


def number(value: bytes | None) -> int:
    if value is None or len(value) != VALUE_BYTES:
        raise Broken(f"a value of {0 if value is None else len(value)} bytes, not {VALUE_BYTES}")
    return int.from_bytes(value[:8], "big")


class Client(ABC):
    """One connection to a peer, as one producer or one consumer holds it."""

    def __init__(self, spec: Json) -> None:
        self.spec = spec
        self.queue = ""

    @abstractmethod
    async def create(self, queue: str) -> None:
        """Set up ``queue`` (and its consumer group) in the parent process."""

    @abstractmethod
    async def stored(self, queue: str) -> int:
        """Records ``queue`` holds."""

    @abstractmethod
    async def producer(self) -> None:
        """Connect as a producer."""

    async def consumer(self, queue: str) -> None:
        """Connect as a consumer of ``queue`` (a member of its group)."""
        self.queue = queue

    @abstractmethod
    async def produce(self, queue: str, values: list[bytes]) -> None:
        """One request of ``values``, answered when the peer has taken all of them at its
        durability."""

    @abstractmethod
    async def fetch(self, wait: float) -> list[Delivery]:
        """Up to 100 records, waiting up to ``wait`` seconds when none is there."""

    @abstractmethod
    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        """Accept ``accept`` (done) and release ``release`` (delivered again)."""

    @abstractmethod
    async def close(self) -> None:
        """Leave the group (a consumer) and close the connection."""


# -- Sluice --------------------------------------------------------------------------------------


def _sluice() -> Any:
    """The Python client of this checkout (clients/python), whatever the environment holds."""
    src = str(h.REPO_ROOT / "clients" / "python" / "src")
    if sys.path[0] != src:
        sys.path.insert(0, src)
    import sluice

    return sluice


class SluiceClient(Client):
    """Sluice's own Python client (``sluice.Sluice``): the idempotent producer, and share
    consumers in explicit mode with ``record_limit`` acquisition."""

    async def create(self, queue: str) -> None:
        sluice = _sluice()
        with sluice.Sluice(self.spec["url"]) as c:
            c.admin.create_topic(queue, partitions=self.spec.get("partitions", 1))
            c.admin.alter_share_group_config(f"{queue}-{GROUP}", {"auto_offset_reset": "earliest"})

    async def stored(self, queue: str) -> int:
        sluice = _sluice()
        with sluice.Sluice(self.spec["url"]) as c:
            described = c.admin.describe_topic(queue)
        return sum(int(p["high_watermark"]) for p in described["partitions"])

    async def producer(self) -> None:
        self.client = _sluice().Sluice(self.spec["url"])
        # a request goes when 100 records wait (max_batch), not on a timer
        self.sender = self.client.producer(max_batch=BATCH, linger=1.0)

    async def produce(self, queue: str, values: list[bytes]) -> None:
        futures = [self.sender.send(queue, v) for v in values]
        self.sender.flush()
        for f in futures:
            f.result(timeout=60)  # raises the request's error

    async def consumer(self, queue: str) -> None:
        await super().consumer(queue)
        self.client = _sluice().Sluice(self.spec["url"])
        self.member = self.client.share_consumer(
            f"{queue}-{GROUP}",
            max_records=BATCH,
            acknowledgement_mode="explicit",
            acquire_mode="record_limit",
        )
        self.member.subscribe([queue])

    async def fetch(self, wait: float) -> list[Delivery]:
        return [Delivery(number(r.value), r.delivery_count == 1, r) for r in self.member.poll(wait)]

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        for d in release:
            self.member.acknowledge(d.handle, "release")
        for d in accept:
            self.member.acknowledge(d.handle, "accept")
        self.member.commit_sync()

    async def close(self) -> None:
        if hasattr(self, "member"):
            self.member.close()
        if hasattr(self, "sender"):
            self.sender.close()
        if hasattr(self, "client"):
            self.client.close()


# -- Redis Streams -------------------------------------------------------------------------------


class RedisClient(Client):
    """redis-py. Produce: 100 XADD in one pipeline. Fetch: XREADGROUP COUNT 100; when the stream
    has fewer new entries, XAUTOCLAIM takes the released ones (idle for over a minute); when both
    are empty, XREADGROUP BLOCK. Ack: XACK of the accepted and, to release, XCLAIM of the others
    to itself with IDLE an hour and JUSTID (the delivery count unchanged), which makes them the
    next XAUTOCLAIM's; both in one pipeline."""

    def _connect(self) -> Any:
        import redis

        return redis.Redis(host=HOST, port=self.spec["port"])

    async def create(self, queue: str) -> None:
        r = self._connect()
        r.xgroup_create(queue, GROUP, id="0", mkstream=True)
        r.close()

    async def stored(self, queue: str) -> int:
        r = self._connect()
        try:
            return int(r.xlen(queue))
        finally:
            r.close()

    async def producer(self) -> None:
        self.r = self._connect()

    async def produce(self, queue: str, values: list[bytes]) -> None:
        pipe = self.r.pipeline(transaction=False)
        for v in values:
            pipe.xadd(queue, {"v": v})
        ids = pipe.execute()
        if len(ids) != len(values) or not all(ids):
            raise Broken(f"XADD answered {ids[:3]}…")

    async def consumer(self, queue: str) -> None:
        await super().consumer(queue)
        self.r = self._connect()
        self.name = f"consumer-{os.getpid()}"

    def _read(self, count: int, block: int | None = None) -> list[Delivery]:
        got = self.r.xreadgroup(GROUP, self.name, {self.queue: ">"}, count=count, block=block)
        if not got:
            return []
        ((_stream, entries),) = got
        return [Delivery(number(fields[b"v"]), True, ident) for ident, fields in entries]

    async def fetch(self, wait: float) -> list[Delivery]:
        out = self._read(BATCH)
        if len(out) < BATCH:
            _cursor, claimed, _deleted = self.r.xautoclaim(
                self.queue,
                GROUP,
                self.name,
                min_idle_time=REDIS_CLAIM_IDLE_MS,
                start_id="0-0",
                count=BATCH - len(out),
            )
            out += [Delivery(number(f[b"v"]), False, i) for i, f in claimed if f]
        if not out and wait > 0:
            out = self._read(BATCH, block=max(1, int(wait * 1000)))
        return out

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        pipe = self.r.pipeline(transaction=False)
        if accept:
            pipe.xack(self.queue, GROUP, *(d.handle for d in accept))
        if release:
            pipe.xclaim(
                self.queue,
                GROUP,
                self.name,
                min_idle_time=0,
                message_ids=[d.handle for d in release],
                idle=REDIS_RELEASED_IDLE_MS,
                justid=True,
            )
        answers = pipe.execute()
        if accept and answers[0] != len(accept):
            raise Broken(f"XACK acknowledged {answers[0]} of {len(accept)}")

    async def close(self) -> None:
        if hasattr(self, "r"):
            self.r.close()


# -- PostgreSQL ----------------------------------------------------------------------------------


class PostgresClient(Client):
    """psycopg 3. A table is the queue (id, body, releases). Produce: one INSERT of 100 rows
    (unnest of an array), committed. Fetch: BEGIN and SELECT … ORDER BY id LIMIT 100 FOR UPDATE
    SKIP LOCKED in one round trip (a pipeline); the rows stay locked by the open transaction.
    Ack: DELETE of the accepted, UPDATE releases = releases + 1 of the released (a row whose
    releases is 0 is on its first delivery), COMMIT, in one round trip; the commit unlocks the
    released rows for the next SELECT."""

    def _connect(self) -> Any:
        import psycopg

        return psycopg.connect(host=HOST, port=self.spec["port"], user="postgres", autocommit=True)

    async def create(self, queue: str) -> None:
        with self._connect() as c:
            c.execute(
                f"CREATE TABLE {queue} (id bigserial PRIMARY KEY, body bytea NOT NULL, "
                "releases integer NOT NULL DEFAULT 0)"
            )

    async def stored(self, queue: str) -> int:
        with self._connect() as c:
            row = c.execute(f"SELECT count(*) FROM {queue}").fetchone()
        assert row is not None
        return int(row[0])

    async def producer(self) -> None:
        self.c = self._connect()

    async def produce(self, queue: str, values: list[bytes]) -> None:
        cur = self.c.execute(f"INSERT INTO {queue} (body) SELECT unnest(%s::bytea[])", [values])
        if cur.rowcount != len(values):
            raise Broken(f"INSERT stored {cur.rowcount} of {len(values)} rows")

    async def consumer(self, queue: str) -> None:
        await super().consumer(queue)
        self.c = self._connect()
        self.select = (
            f"SELECT id, body, releases FROM {queue} ORDER BY id LIMIT {BATCH} "
            "FOR UPDATE SKIP LOCKED"
        )

    async def fetch(self, wait: float) -> list[Delivery]:
        with self.c.pipeline():
            self.c.execute("BEGIN")
            cur = self.c.execute(self.select)
        rows = cur.fetchall()
        if not rows:
            self.c.execute("ROLLBACK")
            await asyncio.sleep(min(wait, POSTGRES_EMPTY_NAP))
            return []
        return [Delivery(number(body), releases == 0, ident) for ident, body, releases in rows]

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        with self.c.pipeline():
            if accept:
                done = self.c.execute(
                    f"DELETE FROM {self.queue} WHERE id = ANY(%s)", [[d.handle for d in accept]]
                )
            if release:
                self.c.execute(
                    f"UPDATE {self.queue} SET releases = releases + 1 WHERE id = ANY(%s)",
                    [[d.handle for d in release]],
                )
            self.c.execute("COMMIT")
        if accept and done.rowcount != len(accept):
            raise Broken(f"DELETE removed {done.rowcount} of {len(accept)} rows")

    async def close(self) -> None:
        if hasattr(self, "c"):
            self.c.close()


# -- NATS JetStream ------------------------------------------------------------------------------


class NatsClient(Client):
    """nats-py. A stream of file storage (work-queue retention: an accepted message is removed)
    and one durable pull consumer with explicit acks, shared by the consumers. Produce: 100
    ``publish_async`` and their 100 acknowledgements awaited together. Fetch: ``fetch(100)``.
    Ack: ``ack()`` of the accepted, ``nak()`` of the released (delivered again at once), then a
    flush (a PING round trip): JetStream does not answer an ack unless asked for each one."""

    async def _connect(self) -> Any:
        import nats

        self.nc = await nats.connect(f"nats://{HOST}:{self.spec['port']}")
        return self.nc.jetstream()

    async def create(self, queue: str) -> None:
        from nats.js.api import AckPolicy, ConsumerConfig, RetentionPolicy, StorageType

        js = await self._connect()
        try:
            await js.add_stream(
                name=queue,
                subjects=[queue],
                storage=StorageType.FILE,
                retention=RetentionPolicy.WORK_QUEUE,
            )
            await js.add_consumer(
                queue, ConsumerConfig(durable_name=GROUP, ack_policy=AckPolicy.EXPLICIT)
            )
        finally:
            await self.nc.close()

    async def stored(self, queue: str) -> int:
        js = await self._connect()
        try:
            return int((await js.stream_info(queue)).state.messages)
        finally:
            await self.nc.close()

    async def producer(self) -> None:
        self.js = await self._connect()

    async def produce(self, queue: str, values: list[bytes]) -> None:
        futures = [await self.js.publish_async(queue, v) for v in values]
        for ack in await asyncio.gather(*futures):
            if ack.stream != queue:
                raise Broken(f"published to {ack.stream}, not {queue}")

    async def consumer(self, queue: str) -> None:
        await super().consumer(queue)
        self.js = await self._connect()
        self.sub = await self.js.pull_subscribe_bind(GROUP, stream=queue)

    async def fetch(self, wait: float) -> list[Delivery]:
        import nats.errors

        try:
            msgs = await self.sub.fetch(BATCH, timeout=max(wait, 0.001))
        except (TimeoutError, nats.errors.TimeoutError):
            return []
        return [Delivery(number(m.data), m.metadata.num_delivered == 1, m) for m in msgs]

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        for d in release:
            await d.handle.nak()
        for d in accept:
            await d.handle.ack()
        await self.nc.flush()

    async def close(self) -> None:
        if hasattr(self, "nc"):
            await self.nc.close()


# -- RabbitMQ ------------------------------------------------------------------------------------


class RabbitClient(Client):
    """aio-pika. A durable quorum queue. Produce: 100 publishes on a channel with publisher
    confirms, their confirms awaited together. Consume: basic.consume with basic.qos prefetch
    100; a fetch is the deliveries the client holds (waiting for the first), at most 100. Ack:
    basic.nack requeue of the released, basic.ack of the accepted (one with ``multiple`` when all
    are); AMQP answers neither."""

    async def _connect(self) -> Any:
        import aio_pika

        self.conn = await aio_pika.connect(f"amqp://guest:guest@{HOST}:{self.spec['port']}/")
        return self.conn

    async def create(self, queue: str) -> None:
        conn = await self._connect()
        try:
            channel = await conn.channel()
            await channel.declare_queue(queue, durable=True, arguments={"x-queue-type": "quorum"})
        finally:
            await conn.close()

    async def stored(self, queue: str) -> int:
        conn = await self._connect()
        try:
            channel = await conn.channel()
            declared = await channel.declare_queue(queue, passive=True)
            return int(declared.declaration_result.message_count)
        finally:
            await conn.close()

    async def producer(self) -> None:
        conn = await self._connect()
        self.channel = await conn.channel(publisher_confirms=True)

    async def produce(self, queue: str, values: list[bytes]) -> None:
        import aio_pika

        exchange = self.channel.default_exchange
        persistent = aio_pika.DeliveryMode.PERSISTENT
        await asyncio.gather(
            *(
                exchange.publish(aio_pika.Message(v, delivery_mode=persistent), routing_key=queue)
                for v in values
            )
        )

    async def consumer(self, queue: str) -> None:
        await super().consumer(queue)
        conn = await self._connect()
        self.channel = await conn.channel()
        await self.channel.set_qos(prefetch_count=BATCH)
        declared = await self.channel.declare_queue(queue, passive=True)
        self.held: asyncio.Queue[Any] = asyncio.Queue()
        await declared.consume(self.held.put, no_ack=False)

    async def fetch(self, wait: float) -> list[Delivery]:
        try:
            first = await asyncio.wait_for(self.held.get(), timeout=max(wait, 0.001))
        except TimeoutError:
            return []
        msgs = [first]
        while len(msgs) < BATCH:
            if self.held.empty():
                await asyncio.sleep(0)  # frames already received become deliveries
                if self.held.empty():
                    break
            msgs.append(self.held.get_nowait())
        return [Delivery(number(m.body), not m.redelivered, m) for m in msgs]

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        for d in release:
            await d.handle.nack(requeue=True)
        if accept and not release:
            await accept[-1].handle.ack(multiple=True)  # every delivery up to the last
        else:
            for d in accept:
                await d.handle.ack()

    async def close(self) -> None:
        if hasattr(self, "conn"):
            await self.conn.close()


# -- Kafka ---------------------------------------------------------------------------------------


class KafkaClient(Client):
    """confluent-kafka. Produce: an idempotent producer (acks=all), 100 ``produce`` then
    ``flush``: one request. Consume: a ``ShareConsumer`` (share groups) in explicit mode with
    ``max.poll.records`` 100 (best effort in this client: a poll may hand out a little more);
    ack: ``acknowledge`` ACCEPT or RELEASE of each record, then ``commit_sync``."""

    def _admin(self) -> Any:
        from confluent_kafka.admin import AdminClient

        return AdminClient({"bootstrap.servers": self.spec["bootstrap"], "log_level": 3})

    async def create(self, queue: str) -> None:
        from confluent_kafka.admin import (
            AlterConfigOpType,
            ConfigEntry,
            ConfigResource,
            NewTopic,
            ResourceType,
        )

        admin = self._admin()
        config = {"flush.messages": "1"} if self.spec.get("sync") else {}
        partitions = self.spec.get("partitions", 1)
        created = admin.create_topics([NewTopic(queue, partitions, 1, config=config)])
        created[queue].result(timeout=60)
        settings = [("share.auto.offset.reset", "earliest"), ("share.heartbeat.interval.ms", "200")]
        group = ConfigResource(
            ResourceType.GROUP,
            f"{queue}-{GROUP}",
            incremental_configs=[
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in settings
            ],
        )
        for future in admin.incremental_alter_configs([group]).values():
            future.result(timeout=60)

    async def stored(self, queue: str) -> int:
        from confluent_kafka import Consumer, TopicPartition

        reader = Consumer({"bootstrap.servers": self.spec["bootstrap"], "group.id": "peers-count"})
        try:
            metadata = reader.list_topics(queue, timeout=60)
            total = 0
            for p in metadata.topics[queue].partitions:
                _low, high = reader.get_watermark_offsets(TopicPartition(queue, p), timeout=60)
                total += high
            return total
        finally:
            reader.close()

    async def producer(self) -> None:
        from confluent_kafka import Producer

        self.p = Producer(
            {
                "bootstrap.servers": self.spec["bootstrap"],
                "acks": "all",
                "enable.idempotence": True,
                "compression.type": "none",
            }
        )

    async def produce(self, queue: str, values: list[bytes]) -> None:
        errors: list[Any] = []

        def delivered(err: Any, _msg: Any) -> None:
            if err is not None:
                errors.append(err)

        for v in values:
            self.p.produce(queue, v, on_delivery=delivered)
        left = self.p.flush(60)
        if left or errors:
            raise Broken(f"{left} records not delivered, errors {errors[:3]}")

    async def consumer(self, queue: str) -> None:
        from confluent_kafka import ShareConsumer

        await super().consumer(queue)
        self.c = ShareConsumer(
            {
                "bootstrap.servers": self.spec["bootstrap"],
                "group.id": f"{queue}-{GROUP}",
                "share.acknowledgement.mode": "explicit",
                "max.poll.records": BATCH,
                "log_level": 3,  # errors only: not the client's notice that its share consumer
                # is a preview, once per consumer
            }
        )
        self.c.subscribe([queue])

    async def fetch(self, wait: float) -> list[Delivery]:
        out = []
        for m in self.c.poll(wait):
            if m.error() is not None:
                raise Broken(f"share poll: {m.error()}")
            out.append(Delivery(number(m.value()), m.delivery_count() == 1, m))
        return out

    async def ack(self, accept: list[Delivery], release: list[Delivery]) -> None:
        from confluent_kafka import AcknowledgeType

        for d in release:
            self.c.acknowledge(d.handle, AcknowledgeType.RELEASE)
        for d in accept:
            self.c.acknowledge(d.handle, AcknowledgeType.ACCEPT)
        for partition, error in self.c.commit_sync(60).items():
            if error is not None:
                raise Broken(f"acknowledgements of {partition} refused: {error}")

    async def close(self) -> None:
        if hasattr(self, "c"):
            self.c.close()
        if hasattr(self, "p"):
            self.p.flush(60)


CLIENTS: dict[str, type[Client]] = {
    "sluice": SluiceClient,
    "redis": RedisClient,
    "postgres": PostgresClient,
    "nats": NatsClient,
    "rabbitmq": RabbitClient,
    "kafka": KafkaClient,
}


def client(peer: str, spec: Json) -> Client:
    return CLIENTS[peer](spec)


# -- the workload processes ----------------------------------------------------------------------
#
# Each producer or consumer runs in a process of its own (spawned), like the services of an
# application: it connects, gets ready (a producer sends its warm-up requests; a consumer takes
# its first batch, so that joining a group is not timed), says so, waits for the parent's go,
# and works until the parent's ``done`` event: the producer sets it after its last request, the
# consumer whose acknowledgement brings the shared count of accepted records to the total sets
# it, with the time (CLOCK_MONOTONIC, the same in every process) in ``finished``.


class Shared(NamedTuple):
    """What the parent shares with its workload processes."""

    ready: Any  # multiprocessing Queue: one item per process once ready (or its error)
    results: Any  # multiprocessing Queue: one result per process
    go: Any  # multiprocessing Event
    done: Any  # multiprocessing Event
    accepted: Any  # multiprocessing Value('q'): records accepted by all consumers
    finished: Any  # multiprocessing Value('d'): time.monotonic() when the workload ended


def _cpu() -> float:
    import resource

    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _ms(since: float) -> float:
    import time

    return (time.perf_counter() - since) * 1000.0


async def _produce(c: Client, job: Json, shared: Shared) -> Json:
    import time

    pool = value_pool()
    await c.producer()
    for i in range(job["warmup_requests"]):
        await c.produce(job["warmup_queue"], values(i * BATCH, BATCH, pool))
    shared.ready.put({"ready": True})
    if not shared.go.wait(job["max_seconds"]):
        raise Broken("no go from the parent")
    cpu0 = _cpu()
    request_ms: list[float] = []
    deadline = time.monotonic() + job["max_seconds"]
    sent = 0
    while sent < job["records"]:
        if time.monotonic() > deadline:
            raise Broken(f"{sent} of {job['records']} records sent in {job['max_seconds']} s")
        n = min(BATCH, job["records"] - sent)
        batch = values(job["first"] + sent, n, pool)
        t0 = time.perf_counter()
        await c.produce(job["queue"], batch)
        request_ms.append(_ms(t0))
        sent += n
    shared.finished.value = time.monotonic()
    shared.done.set()
    return {"sent": sent, "request_ms": request_ms, "client_cpu_s": _cpu() - cpu0}


async def _consume(c: Client, job: Json, shared: Shared) -> Json:
    """Fetch, then accept (or, with ``release_half``, release the even-numbered records of a
    first delivery and accept the rest), until all ``total`` are accepted."""
    import array
    import time

    total, wait, release_half = job["total"], job["wait"], job["release_half"]
    deadline = time.monotonic() + job["max_seconds"]
    await c.consumer(job["queue"])
    held: list[Delivery] = []
    while not held and time.monotonic() < deadline and not shared.done.is_set():
        held = await c.fetch(wait)
    shared.ready.put({"ready": True, "held": len(held)})
    if not shared.go.wait(job["max_seconds"]):
        raise Broken("no go from the parent")
    cpu0 = _cpu()
    accepted = array.array("q")
    fetch_ms: list[float] = []
    ack_ms: list[float] = []
    counts = {"fetches": 0, "empty_fetches": 0, "delivered": 0, "redeliveries": 0, "releases": 0}
    batch = held
    while True:
        if batch:
            counts["delivered"] += len(batch)
            counts["redeliveries"] += sum(1 for d in batch if not d.first)
            release = [d for d in batch if release_half and d.first and d.number % 2 == 0]
            accept = [d for d in batch if not (release_half and d.first and d.number % 2 == 0)]
            t0 = time.perf_counter()
            await c.ack(accept, release)
            ack_ms.append(_ms(t0))
            counts["releases"] += len(release)
            accepted.extend(d.number for d in accept)
            with shared.accepted.get_lock():
                shared.accepted.value += len(accept)
                reached = shared.accepted.value >= total
            if reached and not shared.done.is_set():
                shared.finished.value = time.monotonic()
                shared.done.set()
        if shared.done.is_set():
            break
        if time.monotonic() > deadline:
            raise Broken(f"{shared.accepted.value} of {total} accepted in {job['max_seconds']} s")
        t0 = time.perf_counter()
        batch = await c.fetch(wait)
        took = _ms(t0)
        counts["fetches"] += 1
        if batch:
            fetch_ms.append(took)
        else:
            counts["empty_fetches"] += 1
    return {
        **counts,
        "fetch_ms": fetch_ms,
        "ack_ms": ack_ms,
        "accepted": accepted.tobytes(),
        "client_cpu_s": _cpu() - cpu0,
    }


async def _work(peer: str, spec: Json, role: str, job: Json, shared: Shared) -> Json:
    c = client(peer, spec)
    try:
        if role == "produce":
            return await _produce(c, job, shared)
        return await _consume(c, job, shared)
    finally:
        await c.close()


def work(peer: str, spec: Json, role: str, job: Json, shared: Shared) -> None:
    """A workload process's body (the target of a spawned process)."""
    import traceback

    import uvloop

    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result = runner.run(_work(peer, spec, role, job, shared))
    except BaseException as exc:  # reported to the parent, which fails the row
        text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
        shared.ready.put({"error": text})
        shared.results.put({"error": text})
        shared.done.set()
        return
    shared.results.put(result)
