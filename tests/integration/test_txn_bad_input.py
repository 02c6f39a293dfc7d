"""Bad input to the producer and transaction endpoints: documented 4xx, no state change."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from app.config import Settings
from tests.integration.conftest import SMALL_LIMITS, Served, running
from tests.integration.helpers import assert_error, create_topic
from tests.integration.txn_helpers import batch, init_producer, partition_info


@pytest.fixture
async def small(settings_factory: Callable[..., Settings]) -> AsyncIterator[Served]:
    async with running(settings_factory(txn_max_partitions=2, **SMALL_LIMITS)) as s:
        await create_topic(s.client, "t", partitions=3)
        yield s


async def _unchanged(c: httpx.AsyncClient) -> None:
    for p in range(3):
        info = await partition_info(c, "t", p)
        assert info["high_watermark"] == 0 and info["last_stable_offset"] == 0
    r = await c.get("/v1/transactions", params={"state": "Ongoing"})
    assert r.json()["transactions"] == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"transactional_id": "tx", "transaction_timeout_ms": 0}, "INVALID_TRANSACTION_TIMEOUT"),
        ({"transactional_id": "tx", "transaction_timeout_ms": -5}, "INVALID_TRANSACTION_TIMEOUT"),
        (
            {"transactional_id": "tx", "transaction_timeout_ms": 900_001},
            "INVALID_TRANSACTION_TIMEOUT",
        ),
        ({"transactional_id": "tx", "transaction_timeout_ms": "1"}, "INVALID_TRANSACTION_TIMEOUT"),
        ({"transactional_id": ""}, "INVALID_REQUEST"),
        ({"transactional_id": "no spaces"}, "INVALID_REQUEST"),
        ({"transactional_id": 5}, "INVALID_REQUEST"),
        ({"transactional_id": "x" * 250}, "INVALID_REQUEST"),
        ({"producer_id": 0}, "INVALID_REQUEST"),
        ({"producer_id": 0, "producer_epoch": 32768}, "INVALID_REQUEST"),
        ({"producer_id": -1, "producer_epoch": 0}, "INVALID_REQUEST"),
        ({"producer_id": True, "producer_epoch": 0}, "INVALID_REQUEST"),
        ([], "INVALID_REQUEST"),
    ],
)
async def test_init_producer_bad_bodies(small: Served, body: Any, code: str) -> None:
    assert_error(await small.client.post("/v1/producers", json=body), 400, code)
    assert (await small.client.get("/v1/transactions")).json()["transactions"] == []


async def test_init_producer_not_json(small: Served) -> None:
    r = await small.client.post("/v1/producers", content=b"{nope")
    assert_error(r, 400, "INVALID_REQUEST")


def _produce(pid: int, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"producer_id": pid, "producer_epoch": 0, "batches": [batch("t", 0, 0)]}
    body.update(over)
    return body


@pytest.mark.parametrize(
    ("over", "status", "code"),
    [
        ({"producer_id": None}, 400, "INVALID_REQUEST"),
        ({"producer_id": "7"}, 400, "INVALID_REQUEST"),
        ({"producer_epoch": -1}, 400, "INVALID_REQUEST"),
        ({"producer_epoch": 1.5}, 400, "INVALID_REQUEST"),
        ({"batches": []}, 400, "INVALID_REQUEST"),
        ({"batches": {"topic": "t"}}, 400, "INVALID_REQUEST"),
        ({"batches": [5]}, 400, "INVALID_REQUEST"),
        (
            {"batches": [{"topic": "t", "partition": 0, "records": [{"value": "v"}]}]},
            400,
            "INVALID_REQUEST",
        ),
        ({"batches": [{**batch("t", 0, 0), "base_sequence": 2**31}]}, 400, "INVALID_REQUEST"),
        ({"batches": [{**batch("t", 0, 0), "partition": "0"}]}, 400, "INVALID_REQUEST"),
        ({"batches": [{**batch("t", 0, 0), "topic": 3}]}, 400, "INVALID_REQUEST"),
        ({"batches": [{**batch("t", 0, 0), "records": []}]}, 400, "INVALID_REQUEST"),
        ({"batches": [batch("t", 0, 0), batch("t", 0, 1)]}, 400, "INVALID_REQUEST"),
        ({"batches": [{**batch("t", 0, 0), "records": [{"value": 5}]}]}, 400, "INVALID_REQUEST"),
        (
            {"batches": [{**batch("t", 0, 0), "records": [{"value": "%%"}]}], "encoding": "base64"},
            400,
            "INVALID_REQUEST",
        ),
        ({"encoding": "latin1"}, 400, "INVALID_REQUEST"),
        ({"transactional_id": "bad id"}, 400, "INVALID_REQUEST"),
        ({"batches": [batch("t", 0, 0, n=11)]}, 413, "REQUEST_TOO_LARGE"),
        (
            {"batches": [{**batch("t", 0, 0), "records": [{"value": "x" * 2000}]}]},
            413,
            "RECORD_TOO_LARGE",
        ),
    ],
)
async def test_produce_bad_bodies(
    small: Served, over: dict[str, Any], status: int, code: str
) -> None:
    pid, _ = await init_producer(small.client)
    assert_error(await small.client.post("/v1/produce", json=_produce(pid, **over)), status, code)
    await _unchanged(small.client)


async def test_unknown_producer_and_epochs(small: Served) -> None:
    c = small.client
    assert_error(await c.post("/v1/produce", json=_produce(424242)), 400, "UNKNOWN_PRODUCER_ID")
    pid, e = await init_producer(c, transactional_id="tx")
    assert_error(
        await c.post(
            "/v1/produce", json=_produce(pid, producer_epoch=e + 1, transactional_id="tx")
        ),
        409,
        "INVALID_PRODUCER_EPOCH",
    )
    r = await c.post(
        "/v1/transactions/tx/commit", json={"producer_id": pid, "producer_epoch": e + 1}
    )
    assert_error(r, 409, "PRODUCER_FENCED")
    await _unchanged(c)


async def test_oversized_transaction_is_413_and_opens_nothing(small: Served) -> None:
    c = small.client
    pid, _ = await init_producer(c, transactional_id="tx")
    body = _produce(
        pid, transactional_id="tx", batches=[batch("t", 0, 0), batch("t", 1, 0), batch("t", 2, 0)]
    )
    assert_error(await c.post("/v1/produce", json=body), 413, "REQUEST_TOO_LARGE")
    await _unchanged(c)
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"producer_id": 0},
        {"producer_epoch": 0},
        {"producer_id": "a", "producer_epoch": 0},
        [1, 2],
        None,
    ],
)
async def test_end_transaction_bad_bodies(small: Served, body: Any) -> None:
    c = small.client
    await init_producer(c, transactional_id="tx")
    for how in ("commit", "abort"):
        r = await c.post(f"/v1/transactions/tx/{how}", json=body)
        assert_error(r, 400, "INVALID_REQUEST")
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"


async def test_bad_transactional_id_in_path(small: Served) -> None:
    r = await small.client.post(
        "/v1/transactions/bad%20id/commit", json={"producer_id": 0, "producer_epoch": 0}
    )
    assert_error(r, 400, "INVALID_REQUEST")


@pytest.mark.parametrize(
    "over",
    [
        {"group_id": None},
        {"group_id": "bad group"},
        {"offsets": []},
        {"offsets": [{"topic": "t", "partition": -1, "offset": 0}]},
        {"offsets": [{"topic": "t", "partition": 0, "offset": -3}]},
        {"offsets": [{"topic": "t", "partition": 0, "offset": 0, "metadata": 5}]},
        {"member_epoch": "x"},
        {"member_id": 7},
        {"group_instance_id": ""},
    ],
)
async def test_txn_offsets_bad_bodies(small: Served, over: dict[str, Any]) -> None:
    c = small.client
    pid, e = await init_producer(c, transactional_id="tx")
    body = {
        "producer_id": pid,
        "producer_epoch": e,
        "group_id": "g",
        "member_id": "m",
        "member_epoch": 1,
        "offsets": [{"topic": "t", "partition": 0, "offset": 1}],
    }
    body.update(over)
    assert_error(await c.post("/v1/transactions/tx/offsets", json=body), 400, "INVALID_REQUEST")
    assert (await c.get("/v1/transactions/tx")).json()["state"] == "Empty"
