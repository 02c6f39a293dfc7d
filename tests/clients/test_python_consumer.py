"""The Python client's consumer-group consumer against a real server process: join and read
from committed offsets or the reset policy, commit, seek, two members sharing the partitions,
and leaving."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest
import sluice

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow


def produce(url: str, topic: str, partition: int, values: list[str]) -> None:
    records = [{"value": v, "partition": partition} for v in values]
    httpx.post(f"{url}/v1/topics/{topic}/records", json={"records": records}).raise_for_status()


def read_all(consumer: sluice.Consumer, n: int, deadline_s: float = 20) -> list[str]:
    got: list[str] = []
    deadline = time.monotonic() + deadline_s
    while len(got) < n and time.monotonic() < deadline:
        got += [r.text() or "" for r in consumer.poll(0.5)]
    return got


def test_read_commit_seek_and_resume(server: ServerProcess) -> None:
    url = server.url
    with sluice.Sluice(url) as client:
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
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            a, b = first.assignment(), second.assignment()
            if a and b and not a & b and len(a | b) == 4:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"never balanced: {first.assignment()} {second.assignment()}")
        second.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(first.assignment()) != 4:
            time.sleep(0.1)
        assert len(first.assignment()) == 4  # the leaver's partitions come back
        first.close()
    server.stop()
