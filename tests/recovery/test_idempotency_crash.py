"""An Idempotency-Key retry after the server stopped mid-request never appends twice.

The server is stopped at the two dangerous points by making the next step fail, then a new
server process-equivalent (a fresh app on the same data directory) answers the retry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.runtime import Broker
from app.storage.log import AppendInfo

BODY = {"records": [{"value": "a"}, {"value": "b", "key": "k1"}, {"value": "c", "key": "k2"}]}


class Stop(Exception):
    """Stands for the process dying at this point."""


async def call(
    settings: Settings,
    key: str,
    body: dict[str, Any],
    sabotage: Callable[[Broker], None] | None = None,
) -> httpx.Response | None:
    broker = Broker(settings)
    app = create_app(settings, broker=broker)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            if (await c.get("/v1/topics/t")).status_code == 404:
                await c.post("/v1/topics", json={"name": "t", "partitions": 3})
            if sabotage is not None:
                sabotage(broker)
                failed = await c.post(
                    "/v1/topics/t/records", json=body, headers={"Idempotency-Key": key}
                )
                assert failed.status_code == 500  # the stand-in for the process dying
                return None
            return await c.post("/v1/topics/t/records", json=body, headers={"Idempotency-Key": key})


async def total_records(settings: Settings) -> list[tuple[int, str]]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            out = []
            for p in range(3):
                r = await c.get(f"/v1/topics/t/partitions/{p}/records", params={"offset": 0})
                out += [(p, rec["value"]) for rec in r.json()["records"]]
            return sorted(out)


def stop_before_completing(broker: Broker) -> None:
    async def fail(key: str, response: bytes) -> None:
        raise Stop

    broker.producers.idempotency.complete = fail  # type: ignore[method-assign]


def stop_before_appending(broker: Broker) -> None:
    def fail(*args: Any, **kwargs: Any) -> AppendInfo:
        raise Stop

    broker.appender.append = fail  # type: ignore[method-assign]


@pytest.mark.parametrize("sabotage", [stop_before_completing, stop_before_appending])
async def test_retry_after_a_stop_appends_exactly_once(
    settings_factory: Callable[..., Settings], sabotage: Callable[[Broker], None]
) -> None:
    settings = settings_factory()
    await call(settings, "key-1", BODY, sabotage)
    retry = await call(settings, "key-1", BODY)
    assert retry is not None and retry.status_code == 200, retry and retry.text
    again = await call(settings, "key-1", BODY)
    assert again is not None and again.json() == retry.json()
    stored = await total_records(settings)
    assert sorted(v for _, v in stored) == ["a", "b", "c"], "each record exactly once"
    answered = {(o["partition"], o["offset"]) for o in retry.json()["offsets"]}
    assert len(answered) == 3
    assert {p for p, _ in stored} == {p for p, _ in answered}


async def test_a_pending_key_with_a_different_body_is_refused(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory()
    await call(settings, "key-2", BODY, stop_before_completing)
    other = await call(settings, "key-2", {"records": [{"value": "zzz"}]})
    assert other is not None and other.status_code == 409
    assert other.json()["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert sorted(v for _, v in await total_records(settings)) == ["a", "b", "c"]
