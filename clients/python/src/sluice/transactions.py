"""The transactional producer: ``TransactionalProducer`` for ``Sluice``, and its asyncio twin.

``init`` takes the transactional id (fencing any older instance), ``begin`` opens a
transaction on this side, ``send`` queues records, ``send_offsets`` consumer-group offsets with
the consumer's group metadata (KIP-447), ``send_acknowledgements`` share-group
acknowledgements; ``commit`` sends what is left and commits it all in one request (records,
offsets and acknowledgements become visible together or not at all), ``abort`` drops it.
Records beyond ``max_batch`` go out before the commit, inside the transaction: a transactional
record batch per partition (``?transactional_id=``), or one ``POST /v1/produce`` on the
``json`` wire.

Errors, as Kafka's producer has them (KIP-588): ``TransactionTimedOutError`` when the server
aborted the transaction after its timeout; the producer has already taken a new epoch, so the
caller's loop simply starts the transaction again. ``ProducerFencedError`` when a newer
instance took the transactional id: fatal, this instance must stop.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sluice._batches import Batches, Headers, Outcome, Value
from sluice._core import Call, Wire, as_object
from sluice._partitioner import partition_for_key
from sluice.admin import calls
from sluice.client import AsyncSluice, Sluice
from sluice.errors import InvalidTxnStateError, TransactionTimedOutError, error_from, raise_first

TIMED_OUT = frozenset({"TRANSACTION_TIMED_OUT"})


@dataclass(frozen=True, slots=True)
class GroupMetadata:
    """The consumer's group metadata that offsets in a transaction are checked against."""

    group_id: str
    member_id: str | None = None
    member_epoch: int = -1
    group_instance_id: str | None = None


class _Txn:
    """The transaction's content on this side, until it is sent; no I/O."""

    def __init__(self, tid: str, timeout_ms: int, max_batch: int, wire: Wire) -> None:
        self.tid = tid
        self.timeout_ms = timeout_ms
        self.identity: tuple[int, int] | None = None
        self.open = False
        self.batches = Batches(max_batch, wire)
        self.offsets: dict[GroupMetadata, dict[tuple[str, int], int]] = {}
        self.acks: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.partitions: dict[str, int] = {}
        self.sticky: dict[str, int] = {}

    def init_call(self) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {
            "transactional_id": self.tid,
            "transaction_timeout_ms": self.timeout_ms,
        }
        if self.identity is not None:  # recovery by this instance: its id and epoch
            body["producer_id"], body["producer_epoch"] = self.identity
        return Call("POST", "/v1/producers", as_object, json=body, final=TIMED_OUT)

    def took(self, answer: dict[str, Any]) -> None:
        self.identity = (int(answer["producer_id"]), int(answer["producer_epoch"]))
        self.batches.sequences.clear()  # a new epoch counts from 0

    def begin(self) -> None:
        if self.identity is None:
            raise InvalidTxnStateError("call init() first")
        if self.open:
            raise InvalidTxnStateError("a transaction is already open")
        self.open = True

    def must_be_open(self) -> None:
        if not self.open:
            raise InvalidTxnStateError("no transaction is open: call begin() first")

    def queue(
        self,
        topic: str,
        value: Value,
        key: Value,
        partition: int | None,
        headers: Headers,
        timestamp: int | None,
    ) -> bool:
        self.must_be_open()
        if partition is None:
            n = self.partitions[topic]
            raw = key if isinstance(key, bytes) else None if key is None else key.encode()
            if raw is not None:
                partition = partition_for_key(raw, n)
            else:  # one partition per topic and transaction, as Kafka's sticky partitioner
                partition = self.sticky.setdefault(topic, random.randrange(n))
        record = self.batches.prepare(value, key, headers, timestamp)
        return self.batches.add(topic, partition, record, None)

    def produce_calls(self) -> tuple[list[Call[dict[str, Any]]], Any]:
        assert self.identity is not None
        taken = self.batches.take()
        calls = self.batches.calls(*self.identity, taken, self.tid, final=TIMED_OUT)
        return calls, taken

    def produced(self, taken: Any, answers: list[Outcome]) -> None:
        """Batches written inside the transaction: the stored ones count, a refused one fails
        the transaction (raised)."""
        first: BaseException | None = None
        for b, outcome in zip(taken, self.batches.outcomes(taken, answers), strict=True):
            if isinstance(outcome, BaseException):
                first = first or outcome
            elif outcome.get("error") is not None:
                first = first or error_from(200, {"error": outcome["error"]})
            else:
                self.batches.sent(b)
        if first is not None:
            raise first

    def add_offsets(self, offsets: dict[tuple[str, int], int], group: GroupMetadata) -> None:
        self.must_be_open()
        self.offsets.setdefault(group, {}).update(offsets)

    def add_acks(self, group_id: str, member_id: str, acks: list[dict[str, Any]]) -> None:
        self.must_be_open()
        self.acks.setdefault((group_id, member_id), []).extend(acks)

    def commit_call(self) -> Call[dict[str, Any]]:
        assert self.identity is not None
        taken = self.batches.take()
        body = self.batches.body(*self.identity, taken)
        if not taken:
            del body["batches"]
        if self.offsets:
            body["group_offsets"] = [
                {
                    "group_id": g.group_id,
                    "member_id": g.member_id,
                    "member_epoch": g.member_epoch,
                    "group_instance_id": g.group_instance_id,
                    "offsets": [
                        {"topic": t, "partition": p, "offset": o}
                        for (t, p), o in sorted(offs.items())
                    ],
                }
                for g, offs in self.offsets.items()
            ]
        if self.acks:
            body["share_acknowledgements"] = [
                {"group_id": g, "member_id": m, "acknowledgements": a}
                for (g, m), a in self.acks.items()
            ]
        path = f"/v1/transactions/{quote(self.tid, safe='')}/commit"
        return Call("POST", path, as_object, json=body, safe=True, final=TIMED_OUT)

    def abort_call(self) -> Call[dict[str, Any]]:
        assert self.identity is not None
        pid, epoch = self.identity
        path = f"/v1/transactions/{quote(self.tid, safe='')}/abort"
        body = {"producer_id": pid, "producer_epoch": epoch}
        return Call("POST", path, as_object, json=body, safe=True, final=TIMED_OUT)

    def ended(self, answer: dict[str, Any] | None) -> None:
        """The transaction is over (committed, aborted, or lost to a timeout)."""
        self.open = False
        self.sticky.clear()
        self.batches = Batches(self.batches.max_batch, self.batches.wire)
        self.offsets.clear()
        self.acks.clear()
        if answer is not None:
            self.took(answer)


class TransactionalProducer:
    def __init__(
        self,
        client: Sluice,
        transactional_id: str,
        *,
        transaction_timeout_ms: int = 60_000,
        max_batch: int = 500,
    ) -> None:
        self._c = client
        self._t = _Txn(transactional_id, transaction_timeout_ms, max_batch, client.settings.wire)

    @property
    def producer_id(self) -> int | None:
        return None if self._t.identity is None else self._t.identity[0]

    @property
    def producer_epoch(self) -> int | None:
        return None if self._t.identity is None else self._t.identity[1]

    def init(self) -> None:
        self._t.took(self._c.run(self._t.init_call()))

    def begin(self) -> None:
        self._t.begin()

    def send(
        self,
        topic: str,
        value: Value,
        *,
        key: Value = None,
        partition: int | None = None,
        headers: Headers = None,
        timestamp: int | None = None,
    ) -> None:
        if partition is None and topic not in self._t.partitions:
            self._t.partitions[topic] = len(self._c.run(calls.describe_topic(topic))["partitions"])
        if self._t.queue(topic, value, key, partition, headers, timestamp):
            self._guarded(self._produce)

    def _produce(self) -> None:
        calls, taken = self._t.produce_calls()
        self._t.produced(taken, self._c.run_all(calls))

    def send_offsets(self, offsets: dict[tuple[str, int], int], group: GroupMetadata) -> None:
        """Offsets (``{(topic, partition): next offset}``) committed with the transaction."""
        self._t.add_offsets(offsets, group)

    def send_acknowledgements(
        self, group_id: str, member_id: str, acknowledgements: list[dict[str, Any]]
    ) -> None:
        """Share-group acknowledgements (the wire's ranges) applied with the transaction."""
        self._t.add_acks(group_id, member_id, acknowledgements)

    def commit(self) -> None:
        self._t.must_be_open()
        self._guarded(self._commit)

    def _commit(self) -> None:
        answer = self._c.run(self._t.commit_call())
        raise_first(answer.get("batches", ()))  # a refused batch fails it
        self._t.ended(answer)

    def abort(self) -> None:
        self._t.must_be_open()

        def step() -> None:
            answer = self._c.run(self._t.abort_call())
            self._t.ended(answer)

        self._guarded(step)

    def _guarded(self, step: Any) -> None:
        try:
            step()
        except TransactionTimedOutError:
            # KIP-588: the server aborted it; take a new epoch now, the caller starts over
            self._t.ended(None)
            self.init()
            raise

    @contextmanager
    def transaction(self) -> Iterator[TransactionalProducer]:
        """begin; commit when the block ends, abort when it raises (and re-raise)."""
        self.begin()
        try:
            yield self
        except BaseException:
            if self._t.open:
                self.abort()
            raise
        self.commit()


class AsyncTransactionalProducer:
    def __init__(
        self,
        client: AsyncSluice,
        transactional_id: str,
        *,
        transaction_timeout_ms: int = 60_000,
        max_batch: int = 500,
    ) -> None:
        self._c = client
        self._t = _Txn(transactional_id, transaction_timeout_ms, max_batch, client.settings.wire)

    @property
    def producer_id(self) -> int | None:
        return None if self._t.identity is None else self._t.identity[0]

    @property
    def producer_epoch(self) -> int | None:
        return None if self._t.identity is None else self._t.identity[1]

    async def init(self) -> None:
        self._t.took(await self._c.run(self._t.init_call()))

    def begin(self) -> None:
        self._t.begin()

    async def send(
        self,
        topic: str,
        value: Value,
        *,
        key: Value = None,
        partition: int | None = None,
        headers: Headers = None,
        timestamp: int | None = None,
    ) -> None:
        if partition is None and topic not in self._t.partitions:
            described = await self._c.run(calls.describe_topic(topic))
            self._t.partitions[topic] = len(described["partitions"])
        if self._t.queue(topic, value, key, partition, headers, timestamp):
            await self._guarded(self._produce)

    async def _produce(self) -> None:
        calls, taken = self._t.produce_calls()
        self._t.produced(taken, await self._c.run_all(calls))

    def send_offsets(self, offsets: dict[tuple[str, int], int], group: GroupMetadata) -> None:
        self._t.add_offsets(offsets, group)

    def send_acknowledgements(
        self, group_id: str, member_id: str, acknowledgements: list[dict[str, Any]]
    ) -> None:
        self._t.add_acks(group_id, member_id, acknowledgements)

    async def commit(self) -> None:
        self._t.must_be_open()
        await self._guarded(self._commit)

    async def _commit(self) -> None:
        answer = await self._c.run(self._t.commit_call())
        raise_first(answer.get("batches", ()))  # a refused batch fails it
        self._t.ended(answer)

    async def abort(self) -> None:
        self._t.must_be_open()

        async def step() -> None:
            answer = await self._c.run(self._t.abort_call())
            self._t.ended(answer)

        await self._guarded(step)

    async def _guarded(self, step: Any) -> None:
        try:
            await step()
        except TransactionTimedOutError:
            self._t.ended(None)
            await self.init()
            raise

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncTransactionalProducer]:
        self.begin()
        try:
            yield self
        except BaseException:
            if self._t.open:
                await self.abort()
            raise
        await self.commit()
