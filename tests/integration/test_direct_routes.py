"""The hot endpoints that ``RequestGate`` answers itself answer exactly as through the router."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import DIRECT_ENDPOINTS, create_app, direct_routes

from .helpers import assert_error, create_topic, metric, metrics, produce


def test_every_direct_endpoint_is_a_documented_route(
    settings_factory: Callable[..., Settings],
) -> None:
    app = create_app(settings_factory())
    paths = app.openapi()["paths"]
    direct = direct_routes()
    assert len(direct) == len(DIRECT_ENDPOINTS)
    assert sorted(r.path for r in direct) == [
        "/v1/produce",
        "/v1/share-groups/{group_id}/acknowledge",
        "/v1/share-groups/{group_id}/fetch",
        "/v1/topics/{topic}/partitions/{partition}/batches",
        "/v1/topics/{topic}/records",
        "/v1/transactions/{tid}/commit",
    ]
    for r in direct:
        assert "post" in paths[r.path]


async def test_other_methods_and_paths_go_to_the_router(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/v1/produce"), 405, "METHOD_NOT_ALLOWED")
    assert_error(await client.put("/v1/topics/t/records", json={}), 405, "METHOD_NOT_ALLOWED")
    assert_error(await client.post("/v1/topics/a/b/records", json={}), 404, "NOT_FOUND")
    assert_error(await client.post("/v1/topics//records", json={}), 404, "NOT_FOUND")


async def test_errors_use_the_error_table(client: httpx.AsyncClient) -> None:
    err = assert_error(
        await client.post("/v1/topics/nope/records", json={"records": [{"value": "a"}]}),
        404,
        "UNKNOWN_TOPIC_OR_PARTITION",
    )
    assert err["kafka_code"] == 3
    assert_error(await client.post("/v1/produce", content=b"{"), 400, "INVALID_REQUEST")


async def test_percent_encoded_topic_is_decoded_as_by_the_router(
    client: httpx.AsyncClient,
) -> None:
    await create_topic(client, "a-b")
    assert (await produce(client, "a%2Db", [{"value": "x"}]))[0]["offset"] == 0


async def test_unexpected_error_is_a_500_internal(
    settings_factory: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(settings_factory())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            await create_topic(c, "t")

            async def broken(*_: Any) -> None:
                raise RuntimeError("boom")

            monkeypatch.setattr(app.state.broker.producers, "produce", broken)
            r = await c.post("/v1/topics/t/records", json={"records": [{"value": "a"}]})
            err = assert_error(r, 500, "INTERNAL")
            assert err["message"] == "internal error"
            requests = metric(
                await metrics(c),
                "sluice_http_requests_total",
                route="/v1/topics/{topic}/records",
                method="POST",
                status="500",
            )
            assert requests == 1
