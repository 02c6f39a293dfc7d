"""Share fetches and pushed frames answered as record batches (docs/api.md#share-fetch-batches):
the batches that hold the records acquired, whole, with the acquired ranges."""

from __future__ import annotations

from typing import Any

import httpx

from app.storage.record import StoredRecord

from .conftest import Served
from .helpers import create_topic, produce
from .test_read_batches import open_envelope
from .ws_client import AsgiSocket


def taken(head: dict[str, Any], records: list[StoredRecord]) -> list[tuple[int, int]]:
    """(offset, delivery count) of the records inside the acquired ranges, as a client takes
    them (a batch may hold more)."""
    out = []
    ranges = [r for p in head["partitions"] for r in p["acquired"]]
    for r in records:
        for a in ranges:
            if a["first_offset"] <= r.offset <= a["last_offset"]:
                out.append((r.offset, a["delivery_count"]))
    return out


async def fetch(c: httpx.AsyncClient, **body: Any) -> tuple[dict[str, Any], list[Any], list[Any]]:
    r = await c.post("/v1/share-groups/g/fetch", json={"format": "batches", **body})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/vnd.sluice.batches"
    return open_envelope(r.content)


async def test_a_share_fetch_answers_the_batches_of_what_it_acquired(
    client: httpx.AsyncClient,
) -> None:
    c = client
    await create_topic(c, "t")
    await c.patch("/v1/share-groups/g/config", json={"auto_offset_reset": "earliest"})
    for i in range(3):
        await produce(c, "t", [{"value": f"{i}.{j}", "partition": 0} for j in range(3)])
    head, headers, records = await fetch(
        c, subscribed_topics=["t"], max_records=4, acquire_mode="record_limit"
    )
    member = head["member_id"]
    assert head["partitions"] == [
        {
            "topic": "t",
            "partition": 0,
            "batches": 2,
            "acquired": [{"first_offset": 0, "last_offset": 3, "delivery_count": 1}],
        }
    ]
    assert [h.base_offset for h in headers] == [0, 3]  # the second batch whole: 3, 4 and 5
    assert taken(head, records) == [(0, 1), (1, 1), (2, 1), (3, 1)]
    # the rest: 4 and 5 from the same batch, then 6 to 8
    head, headers, records = await fetch(c, member_id=member, max_records=10)
    assert [h.base_offset for h in headers] == [3, 6]
    assert taken(head, records) == [(4, 1), (5, 1), (6, 1), (7, 1), (8, 1)]
    # released records come back with their delivery count
    ack = [{"topic": "t", "partition": 0, "first_offset": 4, "last_offset": 8, "type": "release"}]
    r = await c.post(
        "/v1/share-groups/g/acknowledge", json={"member_id": member, "acknowledgements": ack}
    )
    assert r.status_code == 200, r.text
    head, _, records = await fetch(c, member_id=member, max_records=10)
    assert taken(head, records) == [(o, 2) for o in range(4, 9)]
    head, headers, _ = await fetch(c, member_id=member)  # nothing left
    assert headers == [] and head["partitions"] == []


async def test_read_committed_groups_get_no_aborted_batches(client: httpx.AsyncClient) -> None:
    c = client
    await create_topic(c, "t")
    await c.patch(
        "/v1/share-groups/g/config",
        json={"auto_offset_reset": "earliest", "isolation_level": "read_committed"},
    )
    for end, value in (("abort", "gone"), ("commit", "kept")):
        tx = (await c.post("/v1/producers", json={"transactional_id": "x"})).json()
        batch = {"topic": "t", "partition": 0, "base_sequence": 0, "records": [{"value": value}]}
        await c.post("/v1/produce", json={**tx, "transactional_id": "x", "batches": [batch]})
        await c.post(f"/v1/transactions/x/{end}", json=tx)
    head, headers, records = await fetch(c, subscribed_topics=["t"])
    assert [r.value for r in records] == [b"kept"]
    assert all(not h.is_control and h.is_transactional for h in headers)
    assert taken(head, records) == [(2, 1)]


async def test_pushed_records_come_as_binary_frames_of_batches(served: Served) -> None:
    s = served
    await create_topic(s.client, "t")
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["t"], "credits": 10, "format": "batches"})
        assert (await ws.receive())["type"] == "subscribed"
        await produce(s.client, "t", [{"value": f"v{i}", "partition": 0} for i in range(3)])
        head, _, records = open_envelope(await ws.receive_bytes())
        assert head["type"] == "records" and "member_id" not in head
        assert taken(head, records) == [(0, 1), (1, 1), (2, 1)]
        await ws.send(
            {
                "type": "ack",
                "id": 1,
                "acknowledgements": [
                    {
                        "topic": "t",
                        "partition": 0,
                        "first_offset": 0,
                        "last_offset": 2,
                        "type": "accept",
                    }
                ],
            }
        )
        assert (await ws.receive())["type"] == "ack_result"
