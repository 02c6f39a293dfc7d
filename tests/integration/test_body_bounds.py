"""Bodies and WebSocket frames whose JSON holds more values, or nests deeper, than the server
parses are refused with 413 ``REQUEST_TOO_COMPLEX`` before the parser builds anything, on
every route (the one parse of ``app.api.deps``) and on the push socket; JSON record values
count. Strings full of brackets, commas, colons, quotes and backslashes are not structure:
records holding them are stored as they were sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

from app.config import Settings
from tests.integration.conftest import Served, running
from tests.integration.helpers import assert_error, create_topic, produce, watermarks
from tests.integration.txn_helpers import init_producer
from tests.integration.ws_client import AsgiSocket

MAX_VALUES = 1_000_000  # SLUICE_MAX_JSON_VALUES's default
MAX_DEPTH = 64  # SLUICE_MAX_JSON_DEPTH's default


def empty_arrays(n: int) -> bytes:
    """``[[],[],…]``: n empty arrays in one, 2n + 1 values as the server counts them."""
    return b"[" + b",".join([b"[]"] * n) + b"]"


def nested(levels: int) -> bytes:
    return b"[" * levels + b"1" + b"]" * levels


def records_of_json(values: list[bytes]) -> bytes:
    """A produce body whose records' values, in the json encoding, are ``values``."""
    return (
        b'{"encoding": "json", "records": ['
        + b",".join(b'{"value": ' + v + b"}" for v in values)
        + b"]}"
    )


async def test_a_body_of_empty_arrays_is_refused_before_it_is_parsed(served: Served) -> None:
    c = served.client
    await create_topic(c, "t")
    body = empty_arrays(MAX_VALUES // 2)  # one value over the bound
    for path in ("/v1/topics/t/records", "/v1/produce", "/v1/topics", "/v1/groups/g/heartbeat"):
        r = await c.post(path, content=body)
        err = assert_error(r, 413, "REQUEST_TOO_COMPLEX")
        assert "SLUICE_MAX_JSON_VALUES" in err["message"], err
    assert await watermarks(c, "t") == [0]


async def test_record_values_count(served: Served) -> None:
    """Three records whose JSON values are arrays of 200,000 empty arrays each: every record
    within the record limit, the body over the value bound."""
    c = served.client
    await create_topic(c, "t")
    value = empty_arrays(200_000)
    r = await c.post("/v1/topics/t/records", content=records_of_json([value] * 3))
    assert_error(r, 413, "REQUEST_TOO_COMPLEX")
    pid, epoch = await init_producer(c)
    batch = b'{"topic": "t", "partition": 0, "base_sequence": 0, "encoding": "json", "records": ['
    batch += b",".join([b'{"value": ' + value + b"}"] * 3) + b"]}"
    body = b'{"producer_id": %d, "producer_epoch": %d, "batches": [%s]}' % (pid, epoch, batch)
    assert_error(await c.post("/v1/produce", content=body), 413, "REQUEST_TOO_COMPLEX")
    assert await watermarks(c, "t") == [0]
    # one of them is within the bound
    await produce(c, "t", [{"value": [[]] * 200_000}], encoding="json")


async def test_nesting_is_bounded_up_to_the_limit_exactly(served: Served) -> None:
    """The body nests its record's value three levels down: ``{"records": [{"value": …}]}``."""
    c = served.client
    await create_topic(c, "t")
    deepest = MAX_DEPTH - 3
    r = await c.post("/v1/topics/t/records", content=records_of_json([nested(deepest)]))
    assert r.status_code == 200, r.text
    for levels in (deepest + 1, 300, 1000):
        r = await c.post("/v1/topics/t/records", content=records_of_json([nested(levels)]))
        err = assert_error(r, 413, "REQUEST_TOO_COMPLEX")
        assert "SLUICE_MAX_JSON_DEPTH" in err["message"], err
    r = await c.get("/v1/topics/t/partitions/0/records", params={"encoding": "json"})
    assert r.status_code == 200, r.text
    value = r.json()["records"][0]["value"]
    for _ in range(deepest):
        (value,) = value
    assert value == 1
    assert await watermarks(c, "t") == [1]


async def test_strings_are_not_structure(served: Served) -> None:
    """Values full of what the count must not take for values or levels, in a body well past
    the sizes it skips, stored and read back exactly."""
    c = served.client
    await create_topic(c, "t")
    tricky = '[[[{{{,,,:::"""\\\\\\"]]]' * 50 + "[" * 500
    records: list[dict[str, Any]] = [{"value": tricky, "key": f"{i}" + "]" * i} for i in range(50)]
    await produce(c, "t", records)
    await produce(c, "t", [{"value": {"s": tricky, "n": [tricky] * 3}}], encoding="json")
    r = await c.get("/v1/topics/t/partitions/0/records", params={"max_records": 100})
    got = r.json()["records"]
    assert [(x["key"], x["value"]) for x in got[:50]] == [(x["key"], x["value"]) for x in records]
    r = await c.get("/v1/topics/t/partitions/0/records", params={"offset": 50, "encoding": "json"})
    assert r.json()["records"][0]["value"] == {"s": tricky, "n": [tricky] * 3}


async def test_the_bounds_are_settings(settings_factory: Callable[..., Settings]) -> None:
    async with running(settings_factory(max_json_values=1000, max_json_depth=8)) as s:
        c = s.client
        await create_topic(c, "t")
        # the object, its key and its array; each record, its key and its value: 3 + 3 * 332
        await produce(c, "t", [{"value": "v"}] * 332)
        r = await c.post("/v1/topics/t/records", json={"records": [{"value": "v"}] * 333})
        assert_error(r, 413, "REQUEST_TOO_COMPLEX")
        # the body, its records and the record, then the value: 3 + 5 levels
        await produce(c, "t", [{"value": [[[[[1]]]]]}], encoding="json")
        r = await c.post(
            "/v1/topics/t/records",
            json={"encoding": "json", "records": [{"value": [[[[[[1]]]]]]}]},
        )
        assert_error(r, 413, "REQUEST_TOO_COMPLEX")


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "subscribe", "topics": ["t"], "padding": orjson.loads(nested(MAX_DEPTH))},
        '{"type": "subscribe", "topics": ["t"], "padding": ' + "[" * 5000 + "]" * 5000 + "}",
    ],
    ids=["at the depth limit", "5,000 levels"],
)
async def test_push_frames_are_bounded_as_bodies_are(
    settings_factory: Callable[..., Settings], frame: dict[str, Any] | str
) -> None:
    """A frame too deep is answered with an error frame, the socket stays open."""
    async with running(settings_factory()) as s:
        await create_topic(s.client, "t")
        async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
            await ws.send(frame)
            answer = await ws.receive()
            assert answer["type"] == "error", answer
            assert answer["error"]["code"] == "REQUEST_TOO_COMPLEX", answer
            await ws.send({"type": "subscribe", "topics": ["t"]})
            assert (await ws.receive())["type"] == "subscribed"


async def test_push_frames_count_their_values(settings_factory: Callable[..., Settings]) -> None:
    async with running(settings_factory(max_json_values=1000)) as s:
        await create_topic(s.client, "t")
        async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
            await ws.send({"type": "subscribe", "topics": ["t"], "padding": [0] * 1000})
            answer = await ws.receive()
            assert answer["error"]["code"] == "REQUEST_TOO_COMPLEX", answer
            await ws.send({"type": "subscribe", "topics": ["t"], "padding": [0] * 990})
            assert (await ws.receive())["type"] == "subscribed"


async def test_admin_bodies_are_bounded(served: Served) -> None:
    c: httpx.AsyncClient = served.client
    for path in ("/v1/admin/acls", "/v1/admin/keys"):
        r = await c.post(path, content=b'{"principal": ' + nested(MAX_DEPTH + 1) + b"}")
        assert_error(r, 413, "REQUEST_TOO_COMPLEX")
