"""Malformed JSON on every route of the hot paths that takes a body: produce (plain and with
producer state), the share fetch and acknowledge, the consumer-group commit and the
transactions' commit, offsets, acknowledgements and commit-all. Brackets 100,000 deep that
never close, a 400-digit integer, ``1e400`` and bytes that are not UTF-8, each in a field the
route reads and in one it skips: every one is 400 ``INVALID_REQUEST`` (never a 500), nothing
is appended, and the server goes on serving."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import orjson
import pytest

from tests.integration.conftest import Served
from tests.integration.helpers import assert_error, assert_healthy, create_topic, watermarks

# Each route's body with ``@`` where an integer it reads goes (a partition, an offset).
ACK = b'{"topic": "t", "partition": @, "first_offset": 0, "last_offset": 0, "type": "accept"}'
BATCH = b'{"topic": "t", "partition": @, "base_sequence": 0, "records": [{"value": "a"}]}'
ROUTES: dict[str, tuple[str, bytes]] = {
    "produce": ("/v1/topics/t/records", b'{"records": [{"value": "a", "partition": @}]}'),
    "stateful produce": (
        "/v1/produce",
        b'{"producer_id": 1, "producer_epoch": 0, "batches": [' + BATCH + b"]}",
    ),
    "share fetch": (
        "/v1/share-groups/g/fetch",
        b'{"subscribed_topics": ["t"], "max_records": 1, "acknowledgements": [' + ACK + b"]}",
    ),
    "share acknowledge": (
        "/v1/share-groups/g/acknowledge",
        b'{"member_id": "m", "acknowledgements": [' + ACK + b"]}",
    ),
    "group commit": (
        "/v1/groups/g/offsets",
        b'{"offsets": [{"topic": "t", "partition": @, "offset": 1}]}',
    ),
    "transaction commit": (
        "/v1/transactions/tx/commit",
        b'{"producer_id": 1, "producer_epoch": 0, "batches": [' + BATCH + b"]}",
    ),
    "transaction offsets": (
        "/v1/transactions/tx/offsets",
        b'{"producer_id": 1, "producer_epoch": 0, "group_id": "g", '
        b'"offsets": [{"topic": "t", "partition": @, "offset": 1}]}',
    ),
    "transaction acknowledgements": (
        "/v1/transactions/tx/acknowledgements",
        b'{"producer_id": 1, "producer_epoch": 0, "group_id": "g", "member_id": "m", '
        b'"acknowledgements": [' + ACK + b"]}",
    ),
    "transactions commit-all": (
        "/v1/transactions:commit-all",
        b'{"transactions": [{"transactional_id": "tx", "producer_id": @, "producer_epoch": 0}]}',
    ),
}


def read(template: bytes, value: bytes) -> bytes:
    """The body with ``value`` in the field the route reads."""
    return template.replace(b"@", value)


def skipped(template: bytes, value: bytes) -> bytes:
    """The body, well formed, with ``value`` in one more field, which the route skips."""
    body = read(template, b"0")
    return body[:-1] + b', "padding": ' + value + b"}"


def not_utf8(template: bytes) -> bytes:
    """The body with a byte that is not UTF-8 in the first string it reads of ``"a"``,
    ``"t"`` or ``"tx"``."""
    body = read(template, b"0")
    string = next(s for s in (b'"a"', b'"t"', b'"tx"') if s in body)
    return body.replace(string, string[:-1] + b'\xff"', 1)


MALFORMED: dict[str, Callable[[bytes], bytes]] = {
    "100,000 levels of [": lambda _: b"[" * 100_000,
    "a 400-digit integer, read": lambda t: read(t, b"9" * 400),
    "a 400-digit integer, skipped": lambda t: skipped(t, b"9" * 400),
    "1e400, read": lambda t: read(t, b"1e400"),
    "1e400, skipped": lambda t: skipped(t, b"1e400"),
    "not UTF-8, read": not_utf8,
    "not UTF-8, skipped": lambda t: skipped(t, b'"\xff\xfe"'),
}


@pytest.fixture
async def c(served: Served) -> AsyncIterator[httpx.AsyncClient]:
    await create_topic(served.client, "t")
    yield served.client


def test_the_bodies_are_well_formed_but_for_what_is_put_in() -> None:
    for _, template in ROUTES.values():
        orjson.loads(read(template, b"0"))
        assert orjson.loads(skipped(template, b"0"))["padding"] == 0
        assert b"\xff" in not_utf8(template)


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("malformed", list(MALFORMED))
async def test_malformed_json_is_400(c: httpx.AsyncClient, route: str, malformed: str) -> None:
    path, template = ROUTES[route]
    body = MALFORMED[malformed](template)
    r = await c.post(path, content=body, headers={"Content-Type": "application/json"})
    err = assert_error(r, 400, "INVALID_REQUEST")
    assert "not valid JSON" in err["message"], err
    assert await watermarks(c, "t") == [0]
    await assert_healthy(c)
