"""Small HTTP helpers shared by the integration tests."""

from __future__ import annotations

import asyncio
import base64
import warnings
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin

import httpx
from prometheus_client.parser import text_string_to_metric_families

from app.runtime import Broker

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

LOOPBACK = "localhost"  # a server without keys answers loopback names only


class LoopbackClient(TestClient):
    """A ``TestClient`` whose requests and WebSocket handshakes are addressed to its base URL,
    localhost unless told (``TestClient`` sends its sockets to ``testserver`` whatever its base
    URL)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **{"base_url": f"http://{LOOPBACK}", **kwargs})

    def websocket_connect(
        self, url: str, subprotocols: Sequence[str] | None = None, **kwargs: Any
    ) -> WebSocketTestSession:
        base = str(self.base_url.copy_with(scheme="ws"))
        return super().websocket_connect(urljoin(base, url), subprotocols, **kwargs)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def assert_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The answer is ``status`` with the documented error body carrying ``code``."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert set(body) == {"error"}, body
    err = body["error"]
    assert {"code", "message", "retriable"} <= set(err), err
    extra = {"throttle_time_ms"} if code == "THROTTLING_QUOTA_EXCEEDED" else set()
    assert set(err) <= {"code", "message", "retriable", "kafka_code", *extra}, err
    assert err["code"] == code, err
    assert isinstance(err["message"], str) and err["message"], err
    assert isinstance(err["retriable"], bool), err
    if "kafka_code" in err:
        assert isinstance(err["kafka_code"], int), err
    return dict(err)


def metric(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample of a ``/metrics`` answer in the text format (None: absent)."""
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return s.value
    return None


async def metrics(c: httpx.AsyncClient) -> str:
    r = await c.get("/metrics")
    assert r.status_code == 200, r.text
    return r.text


async def create_topic(
    c: httpx.AsyncClient, name: str, partitions: int = 1, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "partitions": partitions}
    if config is not None:
        body["config"] = config
    r = await c.post("/v1/topics", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def produce(
    c: httpx.AsyncClient,
    topic: str,
    records: list[dict[str, Any]],
    encoding: str | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Produce and expect 200; answers the offsets."""
    body: dict[str, Any] = {"records": records}
    if encoding is not None:
        body["encoding"] = encoding
    r = await c.post(f"/v1/topics/{topic}/records", json=body, **kwargs)
    assert r.status_code == 200, r.text
    offsets = r.json()["offsets"]
    assert len(offsets) == len(records)
    return list(offsets)


async def read(
    c: httpx.AsyncClient, topic: str, partition: int = 0, **params: Any
) -> dict[str, Any]:
    r = await c.get(f"/v1/topics/{topic}/partitions/{partition}/records", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


async def describe(c: httpx.AsyncClient, topic: str) -> dict[str, Any]:
    r = await c.get(f"/v1/topics/{topic}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def watermarks(c: httpx.AsyncClient, topic: str) -> list[int]:
    """High watermark of every partition."""
    return [p["high_watermark"] for p in (await describe(c, topic))["partitions"]]


async def assert_healthy(c: httpx.AsyncClient) -> None:
    r = await c.get("/healthz")
    assert r.status_code == 200, r.text


async def parked(broker: Broker, topic: str, partition: int, n: int = 1) -> None:
    """Return once ``n`` long polls wait on the partition (yields to the loop, never sleeps)."""
    lg = broker.topics.get(topic).log(partition)

    async def until() -> None:
        while broker.reads.waiting(lg) < n:
            await asyncio.sleep(0)

    await asyncio.wait_for(until(), 5)
