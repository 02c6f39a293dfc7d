"""The consumer-group consumer (KIP-848's protocol over HTTP): ``Consumer`` for ``Sluice``.

``subscribe(topics)`` joins the group; heartbeats go in the background at the interval the
server asks for and bring the member's assignment. ``poll(timeout)`` reads the assigned
partitions from their positions (the group's committed offsets, else ``auto_offset_reset``:
``earliest`` or ``latest``); ``commit()`` commits the positions with the member's epoch (a
stale epoch is refused: the partitions may be another member's now); ``seek`` moves a position;
``close()`` leaves the group. A partition taken away stops being read at the next poll.
"""

from __future__ import annotations

import base64
import contextlib
import threading
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from sluice._core import Call, as_object
from sluice.client import Sluice
from sluice.errors import FencedMemberEpochError, SluiceError, UnknownMemberIdError, raise_first

TopicPartition = tuple[str, int]


@dataclass(frozen=True, slots=True)
class ConsumerRecord:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int

    def text(self) -> str | None:
        return None if self.value is None else self.value.decode()


def _b(v: str | None) -> bytes | None:
    return None if v is None else base64.b64decode(v)


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
        self.group_id = group_id
        self._path = f"/v1/groups/{quote(group_id, safe='')}"
        self.auto_offset_reset = auto_offset_reset
        self.max_records = max_records
        self._lock = threading.Lock()
        self._topics: list[str] = []
        self.member_id: str | None = None
        self.member_epoch = 0
        self._assigned: set[TopicPartition] = set()
        self._positions: dict[TopicPartition, int] = {}
        self._interval = 1.0
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._next = 0  # round robin over the assignment

    # -- membership ---------------------------------------------------------------------------

    def subscribe(self, topics: list[str]) -> None:
        self._topics = list(topics)
        self._heartbeat()
        if self._beat is None:
            self._beat = threading.Thread(target=self._beating, daemon=True, name="sluice-hb")
            self._beat.start()

    def _heartbeat(self) -> None:
        with self._lock:
            body: dict[str, Any] = {"member_epoch": self.member_epoch}
            if self.member_epoch == 0:
                body["subscribed_topics"] = self._topics
            if self.member_id is not None:
                body["member_id"] = self.member_id
            body["owned_partitions"] = _by_topic(self._assigned)
        try:
            answer = self._c.run(Call("POST", f"{self._path}/heartbeat", as_object, json=body))
        except (FencedMemberEpochError, UnknownMemberIdError):
            with self._lock:  # rejoin: what it had may be someone else's now
                self.member_epoch = 0
                self._assigned.clear()
            return
        with self._lock:
            self.member_id = answer["member_id"]
            self.member_epoch = answer["member_epoch"]
            self._interval = answer["heartbeat_interval_ms"] / 1000
            assigned = {(a["topic"], p) for a in answer["assignment"] for p in a["partitions"]}
            for tp in self._assigned - assigned:
                self._positions.pop(tp, None)
            self._assigned = assigned

    def _beating(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._heartbeat()
            except (SluiceError, OSError, Exception):
                continue

    def assignment(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._assigned)

    # -- reading ------------------------------------------------------------------------------

    def _position(self, tp: TopicPartition) -> int:
        if tp not in self._positions:
            topic, partition = tp
            committed = self._c.run(
                Call("GET", f"{self._path}/offsets", as_object, params={"topic": topic}, safe=True)
            )
            found = {o["partition"]: o["offset"] for o in committed["offsets"]}
            offset = found.get(partition, -1)
            if offset < 0:
                at = "earliest" if self.auto_offset_reset == "earliest" else "latest"
                path = f"/v1/topics/{quote(topic, safe='')}/partitions/{partition}/offsets"
                offset = self._c.run(Call("GET", path, as_object, params={"at": at}, safe=True))[
                    "offset"
                ]
            self._positions[tp] = offset
        return self._positions[tp]

    def poll(self, timeout: float = 1.0) -> list[ConsumerRecord]:
        """Records of the assigned partitions from their positions (at most ``max_records``);
        waits up to ``timeout`` s when none is there yet."""
        with self._lock:
            assigned = sorted(self._assigned)
        if not assigned:
            if timeout > 0:
                self._stop.wait(min(timeout, self._interval))
            return []
        out: list[ConsumerRecord] = []
        for i in range(len(assigned)):
            tp = assigned[(self._next + i) % len(assigned)]
            wait = timeout if i == len(assigned) - 1 and not out else 0
            out += self._read(tp, wait)
            if len(out) >= self.max_records:
                break
        self._next += 1
        return out

    def _read(self, tp: TopicPartition, wait: float) -> list[ConsumerRecord]:
        topic, partition = tp
        offset = self._position(tp)
        path = f"/v1/topics/{quote(topic, safe='')}/partitions/{partition}/records"
        params = {
            "offset": offset,
            "max_records": self.max_records,
            "max_wait_ms": int(wait * 1000),
            "encoding": "base64",
        }
        body = self._c.run(Call("GET", path, as_object, params=params, safe=True))
        with self._lock:
            if tp not in self._assigned:  # taken away meanwhile: not ours to hand out
                return []
            self._positions[tp] = body["next_offset"]
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

    def seek(self, topic: str, partition: int, offset: int) -> None:
        with self._lock:
            self._positions[(topic, partition)] = offset

    def position(self, topic: str, partition: int) -> int:
        return self._position((topic, partition))

    def commit(self) -> None:
        """Commit the positions of the assigned partitions (the next offsets to read)."""
        with self._lock:
            offsets = [
                {"topic": t, "partition": p, "offset": o}
                for (t, p), o in sorted(self._positions.items())
                if (t, p) in self._assigned
            ]
            body = {
                "member_id": self.member_id,
                "member_epoch": self.member_epoch,
                "offsets": offsets,
            }
        if not offsets:
            return
        answer = self._c.run(Call("POST", f"{self._path}/offsets", as_object, json=body))
        raise_first(answer["offsets"])

    def close(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(5)
        if self.member_id is not None:
            body = {"member_id": self.member_id, "member_epoch": -1}
            with contextlib.suppress(SluiceError):  # gone already: nothing to leave
                self._c.run(Call("POST", f"{self._path}/heartbeat", as_object, json=body))
            self.member_id = None

    def __enter__(self) -> Consumer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _by_topic(tps: set[TopicPartition]) -> list[dict[str, Any]]:
    topics: dict[str, list[int]] = {}
    for t, p in sorted(tps):
        topics.setdefault(t, []).append(p)
    return [{"topic": t, "partitions": ps} for t, ps in topics.items()]
