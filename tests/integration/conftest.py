"""Fixtures of the integration suite: apps with small limits, and the app behind a client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from app.clock import Clock, FakeClock
from app.config import Settings
from app.main import create_app
from app.runtime import Broker

SMALL_LIMITS = {
    "max_record_bytes": 1024,
    "max_request_bytes": 64 * 1024,
    "max_records_per_request": 10,
}


@dataclass
class Served:
    app: FastAPI
    client: httpx.AsyncClient

    @property
    def broker(self) -> Broker:
        b: Broker = self.app.state.broker
        return b


@asynccontextmanager
async def running(
    settings: Settings, clock: Clock | None = None, *, broker: Broker | None = None
) -> AsyncIterator[Served]:
    """An app on ``settings`` for the length of the block (restart: open another one); on
    ``broker`` when a test builds its own."""
    async for s in _serve(settings, clock, broker):
        yield s


async def _serve(
    settings: Settings, clock: Clock | None = None, broker: Broker | None = None
) -> AsyncIterator[Served]:
    app = create_app(settings, clock=clock, broker=broker)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            yield Served(app, c)


@pytest.fixture
async def served(settings_factory: Callable[..., Settings]) -> AsyncIterator[Served]:
    """Like ``client``, with the app (and its broker) at hand."""
    async for s in _serve(settings_factory()):
        yield s


@pytest.fixture
async def small_client(
    settings_factory: Callable[..., Settings],
) -> AsyncIterator[httpx.AsyncClient]:
    """A client over an app with small limits: record 1 KiB, body 64 KiB, 10 records."""
    async for s in _serve(settings_factory(**SMALL_LIMITS)):
        yield s.client


@pytest.fixture
async def fake_clock_served(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> AsyncIterator[Served]:
    """An app on the ``clock`` fixture (moves only when told), Idempotency-Keys kept 1 s."""
    async for s in _serve(settings_factory(idempotency_key_retention_ms=1000), clock):
        yield s
