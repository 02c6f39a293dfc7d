"""The Python client's consumer-group consumer against a real server process: join and read
from committed offsets or the reset policy, commit, seek, two members sharing the partitions,
and leaving; reads of record batches (the default) and of JSON records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx
import pytest
import sluice
from sluice._core import Wire

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow
WIRES = pytest.mark.parametrize("wire", ["batches", "json"])

BALANCED_WITHIN_S = 60.0


def produce(url: str, topic: str, partition: int, values: list[str]) -> None:
    records = [{"value": v, "partition": partition} for v in values]
    httpx.post(f"{url}/v1/topics/{topic}/records", json={"records": records}).raise_for_status()


def read_all(consumer: sluice.Consumer, n: int, deadline_s: float = 20) -> list[str]:
    got: list[str] = []
    deadline = time.monotonic() + deadline_s
    while len(got) < n and time.monotonic() < deadline:
        got += [r.text() or "" for r in consumer.poll(0.5)]
    return got


@WIRES
def test_read_commit_seek_and_resume(server: ServerProcess, wire: Wire) -> None:
    url = server.url
    with sluice.Sluice(url, wire=wire) as client:
        client.admin.create_topic("orders", 2)
        produce(url, "orders", 0, ["a0", "a1"])
        produce(url, "orders", 1, ["b0"])
        with client.consumer("etl", auto_offset_reset="earliest") as consumer:
            consumer.subscribe(["orders"])
            assert sorted(read_all(consumer, 3)) == ["a0", "a1", "b0"]
            assert consumer.assignment() == {("orders", 0), ("orders", 1)}
            consumer.commit()
            consumer.seek("orders", 0, 1)
            assert read_all(consumer, 1) == ["a1"]
        committed = httpx.get(f"{url}/v1/groups/etl/offsets").json()["offsets"]
        assert sorted((o["partition"], o["offset"]) for o in committed) == [(0, 2), (1, 1)]
        produce(url, "orders", 0, ["a2"])
        with client.consumer("etl") as again:  # resumes from the committed offsets
            again.subscribe(["orders"])
            assert read_all(again, 1) == ["a2"]
        with client.consumer("late") as late:  # no offsets: latest
            late.subscribe(["orders"])
            assert late.poll(0.2) == []
            assert late.position("orders", 0) == 3
        produce(url, "orders", 0, ["a3", "a4", "a5", "a6"])  # one batch: offsets 3 to 6
        with client.consumer("small", auto_offset_reset="earliest", max_records=2) as small:
            small.subscribe(["orders"])
            small.seek("orders", 0, 4)  # inside that batch: a3 is not handed out
            polls: list[list[tuple[int, str]]] = []
            while sum(len(p) for p in polls) < 4:
                polls.append([(r.partition, r.text() or "") for r in small.poll(0.5)])
            assert all(len(p) <= 2 for p in polls)  # at most max_records a read
            got = [x for p in polls for x in p]
            assert [v for p, v in got if p == 0] == ["a4", "a5", "a6"]
            assert [v for p, v in got if p == 1] == ["b0"]
            assert small.position("orders", 0) == 7


def test_two_members_share_the_partitions(server_factory: Callable[..., ServerProcess]) -> None:
    server = server_factory(SLUICE_GROUP_HEARTBEAT_INTERVAL_MS="1000")
    server.start()
    url = server.url
    with sluice.Sluice(url) as client:
        client.admin.create_topic("events", 4)
        first = client.consumer("pair", auto_offset_reset="earliest")
        first.subscribe(["events"])
        second = client.consumer("pair", auto_offset_reset="earliest")
        second.subscribe(["events"])
        # on a gateway Kafka's coordinator balances: a few of its heartbeat intervals (5 s by
        # default), about 15 s on a quiet machine; a loaded one takes longer
        deadline = time.monotonic() + BALANCED_WITHIN_S
        while time.monotonic() < deadline:
            a, b = first.assignment(), second.assignment()
            if a and b and not a & b and len(a | b) == 4:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"never balanced: {first.assignment()} {second.assignment()}")
        second.close()
        deadline = time.monotonic() + BALANCED_WITHIN_S
        while time.monotonic() < deadline and len(first.assignment()) != 4:
            time.sleep(0.1)
        assert len(first.assignment()) == 4  # the leaver's partitions come back
        first.close()
    server.stop()


@WIRES
def test_async_twin_shares_partitions_with_a_sync_member(
    server_factory: Callable[..., ServerProcess], wire: Wire
) -> None:
    """The asyncio consumer joins, is balanced against a sync member by its background
    heartbeats, reads and commits what it was given, and leaves."""
    server = server_factory(SLUICE_GROUP_HEARTBEAT_INTERVAL_MS="1000")
    server.start()
    url = server.url
    with sluice.Sluice(url, wire=wire) as client:
        client.admin.create_topic("clicks", 2)
        produce(url, "clicks", 0, ["c0", "c1"])
        produce(url, "clicks", 1, ["d0"])
        sync_member = client.consumer("mixed", auto_offset_reset="earliest")
        sync_member.subscribe(["clicks"])

        async def main() -> tuple[set[tuple[str, int]], list[str]]:
            async with (
                sluice.AsyncSluice(url, wire=wire) as aclient,
                aclient.consumer("mixed", auto_offset_reset="earliest") as member,
            ):
                await member.subscribe(["clicks"])
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:  # beats in its task move the assignment
                    mine, theirs = member.assignment(), sync_member.assignment()
                    if len(mine) == 1 and len(theirs) == 1 and not mine & theirs:
                        break
                    await asyncio.sleep(0.1)
                mine = member.assignment()
                (tp,) = mine
                want = 2 if tp[1] == 0 else 1
                got: list[str] = []
                while len(got) < want and time.monotonic() < deadline:
                    got += [r.text() or "" for r in await member.poll(0.5)]
                await member.commit()
                assert member.member_epoch > 0
                return mine, got

        mine, got = asyncio.run(main())
        assert len(mine) == 1, mine
        ((_, partition),) = mine
        assert got == (["c0", "c1"] if partition == 0 else ["d0"])
        committed = httpx.get(f"{url}/v1/groups/mixed/offsets").json()["offsets"]
        assert [(o["partition"], o["offset"]) for o in committed] == [(partition, len(got))]
        members = httpx.get(f"{url}/v1/groups/mixed").json()["members"]
        assert len(members) == 1  # the async member left
        sync_member.close()
