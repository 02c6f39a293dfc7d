"""Share-group consumers, shaped like Kafka's ``KafkaShareConsumer``: ``ShareConsumer`` for
``Sluice``, ``AsyncShareConsumer`` for ``AsyncSluice``.

``subscribe(topics)``, then ``poll(timeout)`` acquires records under time-limited locks (the
group's ``record_lock_duration_ms``); each is acknowledged with ``acknowledge(record, type)``
(``accept``, ``release``, ``reject``, ``renew``). In the implicit mode (the default, as
Kafka's) every record of a poll not acknowledged otherwise is accepted by the next ``poll`` or
``commit_sync``; in the explicit mode each must be acknowledged, and a poll with records still
unacknowledged raises. Acknowledgements ride on the next fetch (``commit_async``) or go at once
(``commit_sync``). ``close`` releases what it still holds and leaves the group. A fetch keeps the
member alive: poll more often than the group's session timeout.

Fetches and pushed frames answer record batches (``"format": "batches"``), from which the
consumer takes the records inside its acquired ranges, each with its range's delivery count;
on the ``json`` wire they answer JSON records.
"""

from __future__ import annotations

import contextlib
from binascii import a2b_base64
from typing import Any, Literal, NamedTuple
from urllib.parse import quote

from sluice import _codec
from sluice._core import Call, Wire, as_object, unbase64
from sluice._push import AsyncSocket, SyncSocket
from sluice.client import AsyncSluice, Sluice
from sluice.errors import InvalidRequestError, SluiceError, UnknownMemberIdError, raise_first

AckType = Literal["accept", "release", "reject", "renew"]


class ShareRecord(NamedTuple):
    """A record handed out (a named tuple: several records a microsecond to build)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int
    delivery_count: int

    def text(self) -> str | None:
        """The value as UTF-8 text."""
        return None if self.value is None else self.value.decode()


_bytes = unbase64


def _record(raw: dict[str, Any]) -> ShareRecord:
    key, value, headers = raw.get("key"), raw.get("value"), raw.get("headers")
    return ShareRecord(
        raw["topic"],
        raw["partition"],
        raw["offset"],
        None if key is None else a2b_base64(key),
        None if value is None else a2b_base64(value),
        tuple((h["key"], _bytes(h.get("value"))) for h in headers) if headers else (),
        raw["timestamp"],
        raw["delivery_count"],
    )


def _from_batches(answer: _codec.Envelope) -> list[ShareRecord]:
    """The records of a fetch or a pushed frame of batches: of each partition's batches, those
    inside its acquired ranges, with the range's delivery count (a batch is whole, and may
    hold records acquired by others or not at all)."""
    out: list[ShareRecord] = []
    data = answer.data
    walk = _codec.batches(data, answer.start)
    for part in answer.head["partitions"]:
        topic, partition = part["topic"], part["partition"]
        ranges = sorted(
            (a["first_offset"], a["last_offset"], a["delivery_count"]) for a in part["acquired"]
        )
        for _ in range(part["batches"]):
            h, pos = next(walk)
            if h.is_control:
                continue
            i = 0
            for r in _codec.records(data, pos, h):
                offset = r.offset
                while i < len(ranges) and ranges[i][1] < offset:
                    i += 1
                if i == len(ranges):
                    break
                first, _, count = ranges[i]
                if offset < first:
                    continue
                headers = r.headers
                out.append(
                    ShareRecord(
                        topic,
                        partition,
                        offset,
                        r.key,
                        r.value,
                        tuple(headers) if headers else (),
                        r.timestamp,
                        count,
                    )
                )
    return out


def records_of(answer: list[dict[str, Any]] | _codec.Envelope) -> list[ShareRecord]:
    """The records a fetch or a pushed frame hands out: JSON records, or batches."""
    if isinstance(answer, _codec.Envelope):
        return _from_batches(answer)
    return [_record(r) for r in answer]


def _merged(pairs: list[tuple[ShareRecord, AckType]]) -> list[dict[str, Any]] | None:
    """Ranges of ``pairs`` in one pass, when they come as a fetch hands them out: each
    partition's records together and ascending, none twice. Adjacent offsets share a range,
    with one ``type`` for all of it or, where their types differ, ``types`` one per offset (a
    poll whose records are released and accepted in turn is one range, not one per record).
    None when they do not come so."""
    acks: list[dict[str, Any]] = []
    done: set[tuple[str, int]] = set()
    last: dict[str, Any] | None = None
    kinds: list[AckType] = []  # the types of ``last``, one per offset
    for r, kind in pairs:
        if last is not None and last["partition"] == r.partition and last["topic"] == r.topic:
            if r.offset <= last["last_offset"]:
                return None  # repeated or out of order: the general way
            if r.offset == last["last_offset"] + 1:
                last["last_offset"] = r.offset
                kinds.append(kind)
                continue
        elif (r.topic, r.partition) in done:
            return None  # a partition seen before comes again
        else:
            done.add((r.topic, r.partition))
        if last is not None:
            _typed(last, kinds)
        last = {
            "topic": r.topic,
            "partition": r.partition,
            "first_offset": r.offset,
            "last_offset": r.offset,
        }
        kinds = [kind]
        acks.append(last)
    if last is not None:
        _typed(last, kinds)
    return acks


def _typed(ack: dict[str, Any], kinds: list[AckType]) -> None:
    """Give a range its ``type`` when one type covers it, else its ``types``."""
    one = kinds[0]
    if kinds.count(one) == len(kinds):
        ack["type"] = one
    else:
        ack["types"] = kinds


class _Session:
    """The consumer's state between requests; no I/O."""

    def __init__(
        self, group_id: str, max_records: int, explicit: bool, strict: bool, wire: Wire
    ) -> None:
        self.group_id = group_id
        self.wire = wire
        self.strict = strict
        self.path = f"/v1/share-groups/{quote(group_id, safe='')}"
        self.max_records = max_records
        self.explicit = explicit
        self.topics: list[str] | None = None
        self.member_id: str | None = None
        self.delivered: dict[tuple[str, int, int], ShareRecord] = {}  # not yet acknowledged
        self.pending: list[tuple[ShareRecord, AckType]] = []  # acknowledged, not yet sent

    def subscribe(self, topics: list[str]) -> None:
        self.topics = list(topics)

    def acknowledge(self, record: ShareRecord, kind: AckType) -> None:
        key = (record.topic, record.partition, record.offset)
        if key not in self.delivered:
            raise InvalidRequestError(f"{key} is not a record this consumer holds")
        if kind != "renew":
            del self.delivered[key]
        self.pending.append((record, kind))

    def take_acks(self, implicit: bool) -> list[dict[str, Any]]:
        """The acknowledgements to send now (with the records of the last poll, accepted, when
        ``implicit``), as ranges of one type each."""
        if implicit and not self.explicit:
            self.pending.extend((r, "accept") for r in self.delivered.values())
            self.delivered.clear()
        acks = _merged(self.pending)
        if acks is None:
            # the last acknowledgement of a record wins (a renew, then an accept: the accept);
            # sorted and without repeats, they merge in one pass
            last_of = {(r.topic, r.partition, r.offset): (r, kind) for r, kind in self.pending}
            acks = _merged([last_of[k] for k in sorted(last_of)])
            assert acks is not None
        self.pending.clear()
        return acks

    def fetch_call(self, timeout: float) -> Call[Any]:
        self.ready()
        body: dict[str, Any] = {
            "max_records": self.max_records,
            "acquire_mode": "record_limit" if self.strict else "batch_optimized",
            "max_wait_ms": int(timeout * 1000),
            "acknowledgements": self.take_acks(implicit=True),
        }
        if self.member_id is None:
            body["subscribed_topics"] = self.topics
        else:
            body["member_id"] = self.member_id
        path = f"{self.path}/fetch"
        if self.wire == "batches":
            body["format"] = "batches"
            return Call("POST", path, _codec.open_envelope, json=body, binary=True)
        body["encoding"] = "base64"
        return Call("POST", path, as_object, json=body)

    def fetched(self, answer: dict[str, Any] | _codec.Envelope) -> list[ShareRecord]:
        if isinstance(answer, _codec.Envelope):
            head = answer.head
            self.member_id = head["member_id"]
            raise_first(head.get("acknowledgement_errors") or ())
            return self.handed(_from_batches(answer))
        self.member_id = answer["member_id"]
        raise_first(answer.get("acknowledgement_errors") or ())
        return self.handed([_record(r) for r in answer["records"]])

    def handed(self, records: list[ShareRecord]) -> list[ShareRecord]:
        """Records given to the user: held until acknowledged."""
        for r in records:
            self.delivered[(r.topic, r.partition, r.offset)] = r
        return records

    def ready(self) -> None:
        """A poll may go: subscribed, and (explicit mode) the last poll all acknowledged."""
        if self.topics is None:
            raise InvalidRequestError("subscribe() first")
        if self.explicit and self.delivered:
            raise InvalidRequestError(
                "explicit acknowledgement: acknowledge every record of the last poll first"
            )

    def ended(self) -> None:
        """The push session is over: the server released what it held, the member left."""
        self.member_id = None
        self.delivered.clear()

    def lost(self) -> None:
        """The server no longer knows the member (its session timed out, or the gateway that
        held it went away): what it held was released and comes again, to this consumer once
        it has joined again or to another member, so the acknowledgements not sent are
        dropped."""
        self.ended()
        self.pending.clear()

    def settle(self, record: ShareRecord) -> None:
        """Acknowledged elsewhere (in a transaction that committed): no longer held."""
        self.delivered.pop((record.topic, record.partition, record.offset), None)

    def release_all(self) -> list[dict[str, Any]]:
        """The acknowledgements that give back everything held (on close), with those pending."""
        for r in list(self.delivered.values()):
            self.acknowledge(r, "release")
        return self.take_acks(implicit=False)

    def ack_call(self, acks: list[dict[str, Any]]) -> Call[dict[str, Any]]:
        body = {"member_id": self.member_id, "acknowledgements": acks}
        return Call("POST", f"{self.path}/acknowledge", as_object, json=body)

    def leave_call(self) -> Call[dict[str, Any]]:
        body = {"member_id": self.member_id, "member_epoch": -1}
        return Call("POST", f"{self.path}/heartbeat", as_object, json=body)


def _ranges(records: list[ShareRecord], kind: AckType) -> list[dict[str, Any]]:
    return [
        {
            "topic": r.topic,
            "partition": r.partition,
            "first_offset": r.offset,
            "last_offset": r.offset,
            "type": kind,
        }
        for r in sorted(records, key=lambda r: (r.topic, r.partition, r.offset))
    ]


class ShareConsumer:
    def __init__(
        self,
        client: Sluice,
        group_id: str,
        *,
        max_records: int = 500,
        acknowledgement_mode: Literal["implicit", "explicit"] = "implicit",
        acquire_mode: Literal["batch_optimized", "record_limit"] = "batch_optimized",
        push: bool = False,
        credits: int = 100,
        auto_renew: bool = False,
    ) -> None:
        """``acquire_mode``: ``record_limit`` never acquires more than ``max_records`` a poll;
        ``batch_optimized`` (Kafka's default) may take whole stored batches beyond it.
        ``push``: records pushed over the WebSocket, at most ``credits`` out at once,
        ``auto_renew`` keeping their locks alive while the socket lives."""
        self._c = client
        strict = acquire_mode == "record_limit"
        explicit = acknowledgement_mode == "explicit"
        self._s = _Session(group_id, max_records, explicit, strict, client.settings.wire)
        path = f"{self._s.path}/consume"
        self._push = SyncSocket(client.settings, path, records_of) if push else None
        self._credits, self._auto_renew = credits, auto_renew

    @property
    def member_id(self) -> str | None:
        return self._s.member_id

    def subscribe(self, topics: list[str]) -> None:
        self._s.subscribe(topics)

    def poll(self, timeout: float = 1.0) -> list[ShareRecord]:
        """Records acquired for this member (waiting up to ``timeout`` s for some)."""
        if self._push is None:
            try:
                return self._s.fetched(self._c.run(self._s.fetch_call(timeout)))
            except UnknownMemberIdError:
                # forgotten by the server: join again at once
                self._s.lost()
                return self._s.fetched(self._c.run(self._s.fetch_call(timeout)))
        self._s.ready()
        push = self._push
        if not push.open:
            self._s.ended()  # a closed push session's records were released
            self._s.member_id = push.start(self._s.topics or [], self._credits, self._auto_renew)
        acks = self._s.take_acks(implicit=True)
        if acks:
            push.send_acks(acks)
        push.wait_records(timeout)
        push.frames.take_failure()
        return self._s.handed(push.frames.take(self._s.max_records))

    def acknowledge(self, record: ShareRecord, type: AckType = "accept") -> None:
        self._s.acknowledge(record, type)

    def acknowledgements(
        self,
        records: list[ShareRecord],
        type: AckType = "accept",
    ) -> list[dict[str, Any]]:
        """The wire acknowledgements of ``records``, for a transaction to carry
        (``TransactionalProducer.send_acknowledgements``); ``settled`` once it committed."""
        return _ranges(records, type)

    def settled(self, records: list[ShareRecord]) -> None:
        """The records were acknowledged in a transaction that committed: no longer held."""
        for r in records:
            self._s.settle(r)

    def commit_sync(self) -> None:
        """Send the acknowledgements now (implicit mode: with the last poll's records accepted).
        ``UnknownMemberIdError`` when the server no longer knows the member (its session timed
        out, or the gateway holding it went away): the acknowledgements did not apply, the
        records come again, and the next poll joins again."""
        acks = self._s.take_acks(implicit=True)
        if acks and self._push is not None and self._push.open:
            raise_first(self._push.acknowledge(acks))
        elif acks and self._s.member_id is not None:
            try:
                raise_first(self._c.run(self._s.ack_call(acks))["results"])
            except UnknownMemberIdError:
                # the records come again; the next poll joins again
                self._s.lost()
                raise

    def commit_async(self) -> None:
        """Leave the acknowledgements for the next poll to carry (one request fewer); in push
        mode send them now, without waiting for their result."""
        if self._push is not None and self._push.open:
            acks = self._s.take_acks(implicit=True)
            if acks:
                self._push.send_acks(acks)

    def close(self) -> None:
        """Release what this member still holds and leave the group (push mode: apply the
        acknowledgements made, then close the socket; the server releases the rest)."""
        if self._push is not None:
            try:
                acks = self._s.take_acks(implicit=False)
                if acks and self._push.open:
                    raise_first(self._push.acknowledge(acks))
            finally:
                self._push.close()
                self._s.ended()
            return
        if self._s.member_id is None:
            return
        try:
            acks = self._s.release_all()
            if acks:
                self._c.run(self._s.ack_call(acks))
        finally:
            with contextlib.suppress(SluiceError):  # already gone: nothing of it is held
                self._c.run(self._s.leave_call())
            self._s.member_id = None

    def __enter__(self) -> ShareConsumer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncShareConsumer:
    def __init__(
        self,
        client: AsyncSluice,
        group_id: str,
        *,
        max_records: int = 500,
        acknowledgement_mode: Literal["implicit", "explicit"] = "implicit",
        acquire_mode: Literal["batch_optimized", "record_limit"] = "batch_optimized",
        push: bool = False,
        credits: int = 100,
        auto_renew: bool = False,
    ) -> None:
        """As ``ShareConsumer``'s."""
        self._c = client
        strict = acquire_mode == "record_limit"
        explicit = acknowledgement_mode == "explicit"
        self._s = _Session(group_id, max_records, explicit, strict, client.settings.wire)
        path = f"{self._s.path}/consume"
        self._push = AsyncSocket(client.settings, path, records_of) if push else None
        self._credits, self._auto_renew = credits, auto_renew

    @property
    def member_id(self) -> str | None:
        return self._s.member_id

    def subscribe(self, topics: list[str]) -> None:
        self._s.subscribe(topics)

    async def poll(self, timeout: float = 1.0) -> list[ShareRecord]:
        if self._push is None:
            try:
                return self._s.fetched(await self._c.run(self._s.fetch_call(timeout)))
            except UnknownMemberIdError:
                # forgotten by the server: join again at once
                self._s.lost()
                return self._s.fetched(await self._c.run(self._s.fetch_call(timeout)))
        self._s.ready()
        push = self._push
        if not push.open:
            self._s.ended()  # a closed push session's records were released
            topics = self._s.topics or []
            self._s.member_id = await push.start(topics, self._credits, self._auto_renew)
        acks = self._s.take_acks(implicit=True)
        if acks:
            await push.send_acks(acks)
        await push.wait_records(timeout)
        push.frames.take_failure()
        return self._s.handed(push.frames.take(self._s.max_records))

    def acknowledge(self, record: ShareRecord, type: AckType = "accept") -> None:
        self._s.acknowledge(record, type)

    def acknowledgements(
        self,
        records: list[ShareRecord],
        type: AckType = "accept",
    ) -> list[dict[str, Any]]:
        return _ranges(records, type)

    def settled(self, records: list[ShareRecord]) -> None:
        for r in records:
            self._s.settle(r)

    async def commit_sync(self) -> None:
        acks = self._s.take_acks(implicit=True)
        if acks and self._push is not None and self._push.open:
            raise_first(await self._push.acknowledge(acks))
        elif acks and self._s.member_id is not None:
            try:
                raise_first((await self._c.run(self._s.ack_call(acks)))["results"])
            except UnknownMemberIdError:
                # the records come again; the next poll joins again
                self._s.lost()
                raise

    async def commit_async(self) -> None:
        """Leave the acknowledgements for the next poll to carry; in push mode send them now,
        without waiting for their result."""
        if self._push is not None and self._push.open:
            acks = self._s.take_acks(implicit=True)
            if acks:
                await self._push.send_acks(acks)

    async def close(self) -> None:
        if self._push is not None:
            try:
                acks = self._s.take_acks(implicit=False)
                if acks and self._push.open:
                    raise_first(await self._push.acknowledge(acks))
            finally:
                await self._push.close()
                self._s.ended()
            return
        if self._s.member_id is None:
            return
        try:
            acks = self._s.release_all()
            if acks:
                await self._c.run(self._s.ack_call(acks))
        finally:
            with contextlib.suppress(SluiceError):
                await self._c.run(self._s.leave_call())
            self._s.member_id = None

    async def __aenter__(self) -> AsyncShareConsumer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
