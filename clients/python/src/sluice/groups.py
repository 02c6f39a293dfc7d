"""The consumer-group consumer (KIP-848's protocol over HTTP): ``Consumer`` for ``Sluice``,
``AsyncConsumer`` for ``AsyncSluice``.

``subscribe(topics)`` joins the group; heartbeats go in the background at the interval the
server asks for and bring the member's assignment. ``poll(timeout)`` reads the assigned
partitions from their positions (the group's committed offsets, else ``auto_offset_reset``:
``earliest`` or ``latest``); ``commit()`` commits the positions with the member's epoch (a
stale epoch is refused: the partitions may be another member's now); ``seek`` moves a position;
``close()`` leaves the group. A partition taken away stops being read at the next poll.
Reads answer record batches as stored (``format=batches``), decoded here, or JSON records on
the ``json`` wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, Literal, NamedTuple
from urllib.parse import quote

from sluice import _codec
from sluice._core import Call, Wire, as_object, unbase64
from sluice.client import AsyncSluice, Sluice
from sluice.errors import FencedMemberEpochError, SluiceError, UnknownMemberIdError, raise_first

TopicPartition = tuple[str, int]


class ConsumerRecord(NamedTuple):
    """A record handed out (a named tuple: several records a microsecond to build)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int

    def text(self) -> str | None:
        return None if self.value is None else self.value.decode()


_b = unbase64


class _Member:
    """The member's state between requests, and the requests it makes; no I/O. Guarded by a
    lock in the sync twin (heartbeats run in a thread); the async twin's single loop needs none."""

    def __init__(
        self,
        group_id: str,
        auto_offset_reset: Literal["earliest", "latest"],
        max_records: int,
        wire: Wire,
    ) -> None:
        self.group_id = group_id
        self.wire = wire
        self.path = f"/v1/groups/{quote(group_id, safe='')}"
        self.auto_offset_reset = auto_offset_reset
        self.max_records = max_records
        self.topics: list[str] = []
        self.member_id: str | None = None
        self.member_epoch = 0
        self.assigned: set[TopicPartition] = set()
        self.positions: dict[TopicPartition, int] = {}
        self.interval = 1.0
        self.next = 0  # round robin over the assignment

    def heartbeat_call(self) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {"member_epoch": self.member_epoch}
        if self.member_epoch == 0:
            body["subscribed_topics"] = self.topics
        if self.member_id is not None:
            body["member_id"] = self.member_id
        body["owned_partitions"] = _by_topic(self.assigned)
        return Call("POST", f"{self.path}/heartbeat", as_object, json=body)

    def rejoin(self) -> None:
        """Fenced or forgotten: join again; what it had may be someone else's now."""
        self.member_epoch = 0
        self.assigned.clear()

    def beat(self, answer: dict[str, Any]) -> None:
        self.member_id = answer["member_id"]
        self.member_epoch = answer["member_epoch"]
        self.interval = answer["heartbeat_interval_ms"] / 1000
        assigned = {(a["topic"], p) for a in answer["assignment"] for p in a["partitions"]}
        for tp in self.assigned - assigned:
            self.positions.pop(tp, None)
        self.assigned = assigned

    def committed_call(self, topic: str) -> Call[dict[str, Any]]:
        params = {"topic": topic}
        return Call("GET", f"{self.path}/offsets", as_object, params=params, safe=True)

    def reset_call(self, tp: TopicPartition) -> Call[dict[str, Any]]:
        topic, partition = tp
        path = f"/v1/topics/{quote(topic, safe='')}/partitions/{partition}/offsets"
        at = "earliest" if self.auto_offset_reset == "earliest" else "latest"
        return Call("GET", path, as_object, params={"at": at}, safe=True)

    def order(self) -> list[TopicPartition]:
        """The assigned partitions, starting one further each poll."""
        assigned = sorted(self.assigned)
        self.next += 1
        k = (self.next - 1) % len(assigned) if assigned else 0
        return assigned[k:] + assigned[:k]

    def read_call(self, tp: TopicPartition, offset: int, wait: float) -> Call[Any]:
        topic, partition = tp
        path = f"/v1/topics/{quote(topic, safe='')}/partitions/{partition}/records"
        params: dict[str, Any] = {
            "offset": offset,
            "max_records": self.max_records,
            "max_wait_ms": int(wait * 1000),
        }
        if self.wire == "batches":
            params["format"] = "batches"
            return Call("GET", path, _codec.open_envelope, params=params, safe=True, binary=True)
        params["encoding"] = "base64"
        return Call("GET", path, as_object, params=params, safe=True)

    def read(
        self, tp: TopicPartition, offset: int, body: dict[str, Any] | _codec.Envelope
    ) -> list[ConsumerRecord]:
        """The records of a read from ``offset``; the position moves past them."""
        if tp not in self.assigned:  # taken away meanwhile: not ours to hand out
            return []
        if isinstance(body, _codec.Envelope):
            return self._from_batches(tp, offset, body)
        self.positions[tp] = body["next_offset"]
        topic, partition = tp
        return [
            ConsumerRecord(
                topic,
                partition,
                r["offset"],
                _b(r.get("key")),
                _b(r.get("value")),
                tuple((h["key"], _b(h.get("value"))) for h in r.get("headers") or ()),
                r["timestamp"],
            )
            for r in body["records"]
        ]

    def _from_batches(
        self, tp: TopicPartition, offset: int, answer: _codec.Envelope
    ) -> list[ConsumerRecord]:
        """The records of whole batches from ``offset`` on (the first batch may begin below
        it), at most ``max_records`` as a JSON read answers; markers are not records."""
        topic, partition = tp
        out: list[ConsumerRecord] = []
        room = self.max_records
        data = answer.data
        for h, pos in _codec.batches(data, answer.start):
            if h.is_control or h.last_offset < offset:
                continue
            for r in _codec.records(data, pos, h):
                if r.offset < offset:
                    continue
                headers = r.headers
                out.append(
                    ConsumerRecord(
                        topic,
                        partition,
                        r.offset,
                        r.key,
                        r.value,
                        tuple(headers) if headers else (),
                        r.timestamp,
                    )
                )
                if len(out) == room:
                    self.positions[tp] = r.offset + 1  # the rest at the next poll
                    return out
        self.positions[tp] = answer.head["next_offset"]
        return out

    def commit_call(self) -> Call[dict[str, Any]] | None:
        offsets = [
            {"topic": t, "partition": p, "offset": o}
            for (t, p), o in sorted(self.positions.items())
            if (t, p) in self.assigned
        ]
        if not offsets:
            return None
        body = {"member_id": self.member_id, "member_epoch": self.member_epoch, "offsets": offsets}
        return Call("POST", f"{self.path}/offsets", as_object, json=body)

    def leave_call(self) -> Call[dict[str, Any]] | None:
        if self.member_id is None:
            return None
        body = {"member_id": self.member_id, "member_epoch": -1}
        self.member_id = None
        return Call("POST", f"{self.path}/heartbeat", as_object, json=body)


def _found(committed: dict[str, Any], partition: int) -> int:
    found = {int(o["partition"]): int(o["offset"]) for o in committed["offsets"]}
    return found.get(partition, -1)


class Consumer:
    def __init__(
        self,
        client: Sluice,
        group_id: str,
        *,
        auto_offset_reset: Literal["earliest", "latest"] = "latest",
        max_records: int = 500,
    ) -> None:
        self._c = client
        self._m = _Member(group_id, auto_offset_reset, max_records, client.settings.wire)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    @property
    def group_id(self) -> str:
        return self._m.group_id

    @property
    def member_id(self) -> str | None:
        return self._m.member_id

    @property
    def member_epoch(self) -> int:
        return self._m.member_epoch

    # -- membership ---------------------------------------------------------------------------

    def subscribe(self, topics: list[str]) -> None:
        self._m.topics = list(topics)
        self._heartbeat()
        if self._beat is None:
            self._beat = threading.Thread(target=self._beating, daemon=True, name="sluice-hb")
            self._beat.start()

    def _heartbeat(self) -> None:
        with self._lock:
            call = self._m.heartbeat_call()
        try:
            answer = self._c.run(call)
        except (FencedMemberEpochError, UnknownMemberIdError):
            with self._lock:
                self._m.rejoin()
            return
        with self._lock:
            self._m.beat(answer)

    def _beating(self) -> None:
        while not self._stop.wait(self._m.interval):
            with contextlib.suppress(Exception):  # the next beat tries again
                self._heartbeat()

    def assignment(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._m.assigned)

    # -- reading ------------------------------------------------------------------------------

    def _position(self, tp: TopicPartition) -> int:
        if tp not in self._m.positions:
            offset = _found(self._c.run(self._m.committed_call(tp[0])), tp[1])
            if offset < 0:
                offset = int(self._c.run(self._m.reset_call(tp))["offset"])
            self._m.positions[tp] = offset
        return self._m.positions[tp]

    def poll(self, timeout: float = 1.0) -> list[ConsumerRecord]:
        """Records of the assigned partitions from their positions (at most ``max_records``);
        waits up to ``timeout`` s when none is there yet."""
        with self._lock:
            order = self._m.order()
        if not order:
            if timeout > 0:
                self._stop.wait(min(timeout, self._m.interval))
            return []
        out: list[ConsumerRecord] = []
        for i, tp in enumerate(order):
            wait = timeout if i == len(order) - 1 and not out else 0
            offset = self._position(tp)
            body = self._c.run(self._m.read_call(tp, offset, wait))
            with self._lock:
                out += self._m.read(tp, offset, body)
            if len(out) >= self._m.max_records:
                break
        return out

    def seek(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            self._m.positions[(topic, partition)] = offset

    def position(self, topic: str, partition: int) -> int:
        return self._position((topic, partition))

    def commit(self) -> None:
        """Commit the positions of the assigned partitions (the next offsets to read)."""
        with self._lock:
            call = self._m.commit_call()
        if call is not None:
            raise_first(self._c.run(call)["offsets"])

    def close(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(5)
        call = self._m.leave_call()
        if call is not None:
            with contextlib.suppress(SluiceError):  # gone already: nothing to leave
                self._c.run(call)

    def __enter__(self) -> Consumer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncConsumer:
    """``Consumer``'s twin for asyncio: heartbeats in a task of the running loop."""

    def __init__(
        self,
        client: AsyncSluice,
        group_id: str,
        *,
        auto_offset_reset: Literal["earliest", "latest"] = "latest",
        max_records: int = 500,
    ) -> None:
        self._c = client
        self._m = _Member(group_id, auto_offset_reset, max_records, client.settings.wire)
        self._beat: asyncio.Task[None] | None = None
        self._stopped = asyncio.Event()

    @property
    def group_id(self) -> str:
        return self._m.group_id

    @property
    def member_id(self) -> str | None:
        return self._m.member_id

    @property
    def member_epoch(self) -> int:
        return self._m.member_epoch

    async def subscribe(self, topics: list[str]) -> None:
        self._m.topics = list(topics)
        await self._heartbeat()
        if self._beat is None:
            self._beat = asyncio.get_running_loop().create_task(self._beating())

    async def _heartbeat(self) -> None:
        try:
            self._m.beat(await self._c.run(self._m.heartbeat_call()))
        except (FencedMemberEpochError, UnknownMemberIdError):
            self._m.rejoin()

    async def _beating(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._m.interval):
                    await self._stopped.wait()
            if self._stopped.is_set():
                return
            with contextlib.suppress(Exception):  # the next beat tries again
                await self._heartbeat()

    def assignment(self) -> set[TopicPartition]:
        return set(self._m.assigned)

    async def _position(self, tp: TopicPartition) -> int:
        if tp not in self._m.positions:
            offset = _found(await self._c.run(self._m.committed_call(tp[0])), tp[1])
            if offset < 0:
                offset = int((await self._c.run(self._m.reset_call(tp)))["offset"])
            self._m.positions[tp] = offset
        return self._m.positions[tp]

    async def poll(self, timeout: float = 1.0) -> list[ConsumerRecord]:
        order = self._m.order()
        if not order:
            if timeout > 0:
                await asyncio.sleep(min(timeout, self._m.interval))
            return []
        out: list[ConsumerRecord] = []
        for i, tp in enumerate(order):
            wait = timeout if i == len(order) - 1 and not out else 0
            offset = await self._position(tp)
            body = await self._c.run(self._m.read_call(tp, offset, wait))
            out += self._m.read(tp, offset, body)
            if len(out) >= self._m.max_records:
                break
        return out

    def seek(self, topic: str, partition: int, offset: int) -> None:
        self._m.positions[(topic, partition)] = offset

    async def position(self, topic: str, partition: int) -> int:
        return await self._position((topic, partition))

    async def commit(self) -> None:
        call = self._m.commit_call()
        if call is not None:
            raise_first((await self._c.run(call))["offsets"])

    async def close(self) -> None:
        self._stopped.set()
        if self._beat is not None:
            await self._beat
        call = self._m.leave_call()
        if call is not None:
            with contextlib.suppress(SluiceError):
                await self._c.run(call)

    async def __aenter__(self) -> AsyncConsumer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _by_topic(tps: set[TopicPartition]) -> list[dict[str, Any]]:
    topics: dict[str, list[int]] = {}
    for t, p in sorted(tps):
        topics.setdefault(t, []).append(p)
    return [{"topic": t, "partitions": ps} for t, ps in topics.items()]
