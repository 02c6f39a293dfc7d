"""The admin surface: ``Admin`` for ``Sluice``, ``AsyncAdmin`` for ``AsyncSluice``. Each method
is one ``Call``, built once in ``calls`` / ``more_calls``, except ``dead_letters``, which reads
a share group's dead-letter topic in a few (the reading is shared by both twins in
``DeadLetterScan``, without I/O)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sluice._batches import wire_record
from sluice._core import Call, as_object, nothing, unbase64
from sluice.errors import raise_first

if TYPE_CHECKING:
    from sluice.client import AsyncSluice, Sluice


def _topics(body: Any) -> list[dict[str, Any]]:
    return list(body["topics"])


class calls:
    @staticmethod
    def create_topic(
        name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {"name": name, "partitions": partitions}
        if config:
            body["config"] = config
        return Call("POST", "/v1/topics", as_object, json=body)

    @staticmethod
    def list_topics() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/topics", _topics, safe=True)

    @staticmethod
    def describe_topic(name: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/topics/{quote(name, safe='')}", as_object, safe=True)

    @staticmethod
    def alter_topic(
        name: str, *, partitions: int | None = None, config: dict[str, int | None] | None = None
    ) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {}
        if partitions is not None:
            body["partitions"] = partitions
        if config is not None:
            body["config"] = config
        return Call("PATCH", f"/v1/topics/{quote(name, safe='')}", as_object, json=body, safe=True)

    @staticmethod
    def delete_topic(name: str) -> Call[None]:
        return Call("DELETE", f"/v1/topics/{quote(name, safe='')}", nothing, safe=True)


def _p(name: str) -> str:
    return quote(name, safe="")


def _list_of(key: str) -> Any:
    def read(body: Any) -> list[dict[str, Any]]:
        return list(body[key])

    return read


class more_calls:
    """Groups, share groups and transactions (the calls behind the CLI's commands)."""

    @staticmethod
    def list_groups() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/groups", _list_of("groups"), safe=True)

    @staticmethod
    def describe_group(group_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/groups/{_p(group_id)}", as_object, safe=True)

    @staticmethod
    def group_offsets(group_id: str, topic: str | None = None) -> Call[list[dict[str, Any]]]:
        params = None if topic is None else {"topic": topic}
        return Call(
            "GET",
            f"/v1/groups/{_p(group_id)}/offsets",
            _list_of("offsets"),
            params=params,
            safe=True,
        )

    @staticmethod
    def delete_group(group_id: str) -> Call[None]:
        return Call("DELETE", f"/v1/groups/{_p(group_id)}", nothing, safe=True)

    @staticmethod
    def list_share_groups() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/share-groups", _list_of("share_groups"), safe=True)

    @staticmethod
    def describe_share_group(group_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/share-groups/{_p(group_id)}", as_object, safe=True)

    @staticmethod
    def alter_share_group_config(group_id: str, changes: dict[str, Any]) -> Call[dict[str, Any]]:
        return Call(
            "PATCH", f"/v1/share-groups/{_p(group_id)}/config", as_object, json=changes, safe=True
        )

    @staticmethod
    def reset_share_group_offsets(
        group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> Call[dict[str, Any]]:
        """``targets``: ``{"topic", "partitions": [..] | None, "to": "earliest" | "latest" |
        {"timestamp": ms} | {"offset": n}}`` each."""
        body = {"topics": targets, "dry_run": dry_run}
        return Call("POST", f"/v1/share-groups/{_p(group_id)}/offsets", as_object, json=body)

    @staticmethod
    def delete_share_group_offsets(group_id: str, topic: str) -> Call[None]:
        path = f"/v1/share-groups/{_p(group_id)}/offsets"
        return Call("DELETE", path, nothing, params={"topic": topic}, safe=True)

    @staticmethod
    def delete_share_group(group_id: str) -> Call[None]:
        return Call("DELETE", f"/v1/share-groups/{_p(group_id)}", nothing, safe=True)

    @staticmethod
    def list_transactions(state: str | None = None) -> Call[list[dict[str, Any]]]:
        params = None if state is None else {"state": state}
        return Call("GET", "/v1/transactions", _list_of("transactions"), params=params, safe=True)

    @staticmethod
    def describe_transaction(transactional_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/transactions/{_p(transactional_id)}", as_object, safe=True)

    @staticmethod
    def commit_group_offsets(group_id: str, offsets: list[dict[str, Any]]) -> Call[dict[str, Any]]:
        """Set a consumer group's offsets as an admin does (no member: epoch -1); ``offsets``
        are ``{"topic", "partition", "offset"}``. Refused while the group has members."""
        body = {"member_id": None, "member_epoch": -1, "offsets": offsets}
        return Call("POST", f"/v1/groups/{_p(group_id)}/offsets", as_object, json=body)

    @staticmethod
    def read(topic: str, partition: int, offset: int, max_records: int) -> Call[dict[str, Any]]:
        path = f"/v1/topics/{_p(topic)}/partitions/{partition}/records"
        params = {"offset": offset, "max_records": max_records, "encoding": "base64"}
        return Call("GET", path, as_object, params=params, safe=True)

    @staticmethod
    def redrive(letter: DeadLetter) -> Call[dict[str, Any]]:
        """Produce a dead letter back to its source partition, without the sluice.dlq.*
        headers; the Idempotency-Key redrive:<dlq topic>:<partition>:<offset> stores it once
        however often it is sent."""
        if letter.source_topic is None:
            raise ValueError("this record has no sluice.dlq.topic header")
        record, _ = wire_record(letter.value, letter.key, list(letter.headers), None)
        record["partition"] = letter.source_partition
        key = f"redrive:{letter.dlq_topic}:{letter.partition}:{letter.offset}"
        return Call(
            "POST",
            f"/v1/topics/{_p(letter.source_topic)}/records",
            as_object,
            json={"encoding": "base64", "records": [record]},
            headers={"Idempotency-Key": key},
            safe=True,
        )


_DLQ = "sluice.dlq."


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A record of a dead-letter topic, read with the sluice.dlq.* headers the server added
    (``headers`` are the ones it came with)."""

    dlq_topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    source_topic: str | None
    source_partition: int | None
    source_offset: int | None
    group: str | None
    reason: str | None
    delivery_count: int | None

    @classmethod
    def of(cls, dlq_topic: str, partition: int, raw: dict[str, Any]) -> DeadLetter:
        b = unbase64
        dlq: dict[str, str] = {}
        kept: list[tuple[str, bytes | None]] = []
        for h in raw.get("headers") or ():
            value = b(h.get("value"))
            if h["key"].startswith(_DLQ):
                dlq[h["key"][len(_DLQ) :]] = "" if value is None else value.decode()
            else:
                kept.append((h["key"], value))

        def number(name: str) -> int | None:
            return int(dlq[name]) if name in dlq else None

        return cls(
            dlq_topic,
            partition,
            raw["offset"],
            b(raw.get("key")),
            b(raw.get("value")),
            tuple(kept),
            dlq.get("topic"),
            number("partition"),
            number("offset"),
            dlq.get("group"),
            dlq.get("reason"),
            number("delivery_count"),
        )


class DeadLetterScan:
    """The reads that list a share group's dead letters, and what they found; no I/O. The
    caller runs each call ``next_call`` gives and hands its answer to ``took``."""

    def __init__(self, group_id: str, per_partition: int) -> None:
        self.group_id = group_id
        self.per_partition = per_partition
        self.found: list[DeadLetter] = []
        self.topic: str | None = None
        self._pages: Iterator[tuple[int, int, int]] = iter(())
        self._at: tuple[int, int, int] | None = None

    def start(self, described_group: dict[str, Any]) -> Call[dict[str, Any]] | None:
        """From the group's description: the call that describes its dead-letter topic."""
        self.topic = (described_group.get("config") or {}).get("dead_letter_topic")
        return None if self.topic is None else calls.describe_topic(self.topic)

    def ranges(self, described_topic: dict[str, Any]) -> None:
        self._pages = iter(
            (
                p["partition"],
                max(p["log_start_offset"], p["high_watermark"] - self.per_partition),
                p["high_watermark"],
            )
            for p in described_topic["partitions"]
        )

    def next_call(self) -> Call[dict[str, Any]] | None:
        assert self.topic is not None
        if self._at is None or self._at[1] >= self._at[2]:
            self._at = next((r for r in self._pages if r[1] < r[2]), None)
            if self._at is None:
                return None
        partition, offset, end = self._at
        return more_calls.read(self.topic, partition, offset, end - offset)

    def took(self, answer: dict[str, Any]) -> None:
        assert self.topic is not None and self._at is not None
        partition, _, end = self._at
        records = answer["records"]
        for raw in records:
            letter = DeadLetter.of(self.topic, partition, raw)
            if letter.group == self.group_id:
                self.found.append(letter)
        self._at = (partition, records[-1]["offset"] + 1 if records else end, end)


class Admin:
    def __init__(self, client: Sluice) -> None:
        self._c = client

    def create_topic(
        self, name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> dict[str, Any]:
        return self._c.run(calls.create_topic(name, partitions, config))

    def list_topics(self) -> list[dict[str, Any]]:
        return self._c.run(calls.list_topics())

    def describe_topic(self, name: str) -> dict[str, Any]:
        return self._c.run(calls.describe_topic(name))

    def alter_topic(
        self,
        name: str,
        *,
        partitions: int | None = None,
        config: dict[str, int | None] | None = None,
    ) -> dict[str, Any]:
        return self._c.run(calls.alter_topic(name, partitions=partitions, config=config))

    def delete_topic(self, name: str) -> None:
        self._c.run(calls.delete_topic(name))

    def list_groups(self) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_groups())

    def describe_group(self, group_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_group(group_id))

    def group_offsets(self, group_id: str, topic: str | None = None) -> list[dict[str, Any]]:
        return self._c.run(more_calls.group_offsets(group_id, topic))

    def delete_group(self, group_id: str) -> None:
        return self._c.run(more_calls.delete_group(group_id))

    def list_share_groups(self) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_share_groups())

    def describe_share_group(self, group_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_share_group(group_id))

    def alter_share_group_config(self, group_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        return self._c.run(more_calls.alter_share_group_config(group_id, changes))

    def reset_share_group_offsets(
        self, group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> dict[str, Any]:
        return self._c.run(more_calls.reset_share_group_offsets(group_id, targets, dry_run=dry_run))

    def delete_share_group_offsets(self, group_id: str, topic: str) -> None:
        return self._c.run(more_calls.delete_share_group_offsets(group_id, topic))

    def delete_share_group(self, group_id: str) -> None:
        return self._c.run(more_calls.delete_share_group(group_id))

    def list_transactions(self, state: str | None = None) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_transactions(state))

    def describe_transaction(self, transactional_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_transaction(transactional_id))

    def commit_group_offsets(self, group_id: str, offsets: list[dict[str, Any]]) -> None:
        """Set an empty consumer group's offsets (``{"topic", "partition", "offset"}`` each)."""
        raise_first(self._c.run(more_calls.commit_group_offsets(group_id, offsets))["offsets"])

    def dead_letters(self, group_id: str, *, per_partition: int = 200) -> list[DeadLetter]:
        """The group's records in its dead-letter topic: the newest ``per_partition`` records
        of each of its partitions are read ([] when the group has no dead-letter topic)."""
        scan = DeadLetterScan(group_id, per_partition)
        call = scan.start(self.describe_share_group(group_id))
        if call is None:
            return []
        scan.ranges(self._c.run(call))
        while (read := scan.next_call()) is not None:
            scan.took(self._c.run(read))
        return scan.found

    def redrive(self, letter: DeadLetter) -> dict[str, Any]:
        """Produce ``letter`` back where it came from (stored once, however often sent)."""
        return self._c.run(more_calls.redrive(letter))


class AsyncAdmin:
    def __init__(self, client: AsyncSluice) -> None:
        self._c = client

    async def create_topic(
        self, name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> dict[str, Any]:
        return await self._c.run(calls.create_topic(name, partitions, config))

    async def list_topics(self) -> list[dict[str, Any]]:
        return await self._c.run(calls.list_topics())

    async def describe_topic(self, name: str) -> dict[str, Any]:
        return await self._c.run(calls.describe_topic(name))

    async def alter_topic(
        self,
        name: str,
        *,
        partitions: int | None = None,
        config: dict[str, int | None] | None = None,
    ) -> dict[str, Any]:
        return await self._c.run(calls.alter_topic(name, partitions=partitions, config=config))

    async def delete_topic(self, name: str) -> None:
        await self._c.run(calls.delete_topic(name))

    async def list_groups(self) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_groups())

    async def describe_group(self, group_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_group(group_id))

    async def group_offsets(self, group_id: str, topic: str | None = None) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.group_offsets(group_id, topic))

    async def delete_group(self, group_id: str) -> None:
        return await self._c.run(more_calls.delete_group(group_id))

    async def list_share_groups(self) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_share_groups())

    async def describe_share_group(self, group_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_share_group(group_id))

    async def alter_share_group_config(
        self, group_id: str, changes: dict[str, Any]
    ) -> dict[str, Any]:
        return await self._c.run(more_calls.alter_share_group_config(group_id, changes))

    async def reset_share_group_offsets(
        self, group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> dict[str, Any]:
        return await self._c.run(
            more_calls.reset_share_group_offsets(group_id, targets, dry_run=dry_run)
        )

    async def delete_share_group_offsets(self, group_id: str, topic: str) -> None:
        return await self._c.run(more_calls.delete_share_group_offsets(group_id, topic))

    async def delete_share_group(self, group_id: str) -> None:
        return await self._c.run(more_calls.delete_share_group(group_id))

    async def list_transactions(self, state: str | None = None) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_transactions(state))

    async def describe_transaction(self, transactional_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_transaction(transactional_id))

    async def commit_group_offsets(self, group_id: str, offsets: list[dict[str, Any]]) -> None:
        answer = await self._c.run(more_calls.commit_group_offsets(group_id, offsets))
        raise_first(answer["offsets"])

    async def dead_letters(self, group_id: str, *, per_partition: int = 200) -> list[DeadLetter]:
        scan = DeadLetterScan(group_id, per_partition)
        call = scan.start(await self.describe_share_group(group_id))
        if call is None:
            return []
        scan.ranges(await self._c.run(call))
        while (read := scan.next_call()) is not None:
            scan.took(await self._c.run(read))
        return scan.found

    async def redrive(self, letter: DeadLetter) -> dict[str, Any]:
        return await self._c.run(more_calls.redrive(letter))
