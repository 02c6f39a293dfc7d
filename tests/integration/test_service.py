"""Service endpoints: health, readiness, metrics and the published API description."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from app.config import Settings
from app.main import create_app

from .helpers import assert_error, create_topic, metric, metrics, produce

# Every path of the service, topics, and producing and reading sections of docs/api.md, with
# its methods.
DOCUMENTED: dict[str, set[str]] = {
    "/v1/topics": {"get", "post"},
    "/v1/topics/{topic}": {"get", "patch", "delete"},
    "/v1/topics/{topic}/delete-records": {"post"},
    "/v1/topics/{topic}/records": {"post"},
    "/v1/topics/{topic}/partitions/{partition}/records": {"get"},
    "/v1/topics/{topic}/partitions/{partition}/offsets": {"get"},
    "/healthz": {"get"},
    "/readyz": {"get"},
    "/metrics": {"get"},
}

REQUEST_BODIES = {
    ("/v1/topics", "post"): "TopicCreate",
    ("/v1/topics/{topic}", "patch"): "TopicPatch",
    ("/v1/topics/{topic}/delete-records", "post"): "DeleteRecordsRequest",
    ("/v1/topics/{topic}/records", "post"): "ProduceRequest",
}


async def test_healthz(client: httpx.AsyncClient) -> None:
    r = await client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


async def test_readyz_when_ready(client: httpx.AsyncClient) -> None:
    r = await client.get("/readyz")
    assert r.status_code == 200
    assert r.json() == {"status": "ready"}


async def test_readyz_503_before_start_and_after_stop(
    settings_factory: Callable[..., Settings],
) -> None:
    app = create_app(settings_factory())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
        err = assert_error(await c.get("/readyz"), 503, "NOT_READY")
        assert err["retriable"] is True
        assert (await c.get("/healthz")).status_code == 200
        async with app.router.lifespan_context(app):
            assert (await c.get("/readyz")).status_code == 200
        r = await c.get("/readyz")
        assert_error(r, 503, "NOT_READY")
        assert r.headers.get("retry-after") == "1"


async def test_metrics_prometheus_text_counts_produce(client: httpx.AsyncClient) -> None:
    route = "/v1/topics/{topic}/records"
    labels = {"route": route, "method": "POST", "status": "200"}
    before = metric(await metrics(client), "sluice_http_requests_total", **labels) or 0
    await create_topic(client, "m")
    await produce(client, "m", [{"value": "a"}])
    await produce(client, "m", [{"value": "b"}, {"value": "c"}])
    r = await client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = r.text
    assert "# TYPE sluice_http_requests_total counter" in text
    assert metric(text, "sluice_http_requests_total", **labels) == before + 2
    # route templates, never concrete paths (bounded label cardinality)
    assert 'route="/v1/topics/m/records"' not in text
    assert metric(text, "sluice_topics") == 1
    assert metric(text, "sluice_ready") == 1
    assert metric(text, "sluice_records_produced_total") == 3


async def test_openapi_documents_every_path_and_method(client: httpx.AsyncClient) -> None:
    r = await client.get("/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    paths = doc["paths"]
    for path, methods in DOCUMENTED.items():
        assert path in paths, path
        assert methods <= set(paths[path]), (path, set(paths[path]))
    read_params = {
        p["name"]
        for p in paths["/v1/topics/{topic}/partitions/{partition}/records"]["get"]["parameters"]
    }
    assert {
        "topic",
        "partition",
        "offset",
        "max_records",
        "max_bytes",
        "max_wait_ms",
        "isolation_level",
        "encoding",
    } <= read_params
    offsets_params = {
        p["name"]
        for p in paths["/v1/topics/{topic}/partitions/{partition}/offsets"]["get"]["parameters"]
    }
    assert {"at", "isolation_level"} <= offsets_params
    produce_params = {p["name"] for p in paths["/v1/topics/{topic}/records"]["post"]["parameters"]}
    assert "Idempotency-Key" in produce_params


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        out = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        for v in node.values():
            out += _refs(v)
        return out
    if isinstance(node, list):
        return [x for v in node for x in _refs(v)]
    return []


async def test_openapi_request_bodies_are_components(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    for (path, method), model in REQUEST_BODIES.items():
        body = doc["paths"][path][method]["requestBody"]
        assert body["content"]["application/json"]["schema"] == {
            "$ref": f"#/components/schemas/{model}"
        }
        assert model in schemas
    assert {"records", "encoding"} <= set(schemas["ProduceRequest"]["properties"])
    assert {"name", "partitions", "config"} <= set(schemas["TopicCreate"]["properties"])
    assert "partitions" in schemas["DeleteRecordsRequest"]["properties"]
    for ref in _refs(doc):  # every reference resolves
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.rsplit("/", 1)[1] in schemas, ref


async def test_openapi_never_documents_422(client: httpx.AsyncClient) -> None:
    """docs/api.md#conventions: malformed requests are 400 INVALID_REQUEST, never 422; the
    document must agree."""
    doc = (await client.get("/openapi.json")).json()
    documented_422 = sorted(
        f"{m.upper()} {p}"
        for p, ops in doc["paths"].items()
        for m, op in ops.items()
        if "422" in op.get("responses", {})
    )
    assert documented_422 == []


async def test_docs_page(client: httpx.AsyncClient) -> None:
    r = await client.get("/docs")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "/openapi.json" in r.text


async def test_unknown_route_is_404_with_error_body(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/v1/nope"), 404, "NOT_FOUND")
    assert_error(await client.post("/v1/topics/t/nothing-here", json={}), 404, "NOT_FOUND")


async def test_wrong_method_is_405_with_error_body(client: httpx.AsyncClient) -> None:
    assert_error(await client.put("/v1/topics", json={}), 405, "METHOD_NOT_ALLOWED")
    assert_error(await client.delete("/healthz"), 405, "METHOD_NOT_ALLOWED")
    assert_error(await client.get("/v1/topics/t/records"), 405, "METHOD_NOT_ALLOWED")
