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


def _counting_stack(app: Any) -> list[str]:
    """The paths of the requests that go through the application's middleware stack."""
    app.middleware_stack = app.build_middleware_stack()
    stack = app.middleware_stack
    seen: list[str] = []

    async def counted(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.append(scope["path"])
        await stack(scope, receive, send)

    app.middleware_stack = counted
    return seen


async def test_hot_routes_skip_the_middleware_stack_once_started(
    settings_factory: Callable[..., Settings],
) -> None:
    app = create_app(settings_factory())
    async with app.router.lifespan_context(app):
        seen = _counting_stack(app)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            await create_topic(c, "t")
            assert (await produce(c, "t", [{"value": "a"}]))[0]["offset"] == 0
            assert_error(await c.post("/v1/topics/t/records", content=b"{"), 400, "INVALID_REQUEST")
            assert (await c.get("/v1/topics/t/partitions/0/records")).status_code == 200
            produced = metric(
                await metrics(c),
                "sluice_http_requests_total",
                route="/v1/topics/{topic}/records",
                method="POST",
                status="200",
            )
    assert seen == ["/v1/topics", "/v1/topics/t/partitions/0/records", "/metrics"]
    assert produced == 1


async def test_with_telemetry_configured_every_request_takes_the_stack(
    settings_factory: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(settings_factory())
    monkeypatch.setattr(app._native_telemetry, "enabled", lambda: True)
    async with app.router.lifespan_context(app):
        seen = _counting_stack(app)
        monkeypatch.undo()  # the stack itself without telemetry: only the choice is tested
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            await create_topic(c, "t")
            assert (await produce(c, "t", [{"value": "a"}]))[0]["offset"] == 0
    assert seen == ["/v1/topics", "/v1/topics/t/records"]
