"""Quotas against a real ``python -m app serve`` process: the ``quotas`` command, run while the
server runs, throttles key-less requests (principal ANONYMOUS) within about a second, and its
removal lifts the throttle; the 429 answer and the counters as a client sees them. On a gateway
the quota is set and removed through the admin routes (tests/e2e/admin.py), on a principal
with a key."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import httpx
import pytest

from tests.conftest import GATEWAY, ServerProcess
from tests.e2e.admin import Admin
from tests.integration.helpers import metric

pytestmark = pytest.mark.slow

BODY = {"records": [{"value": "x" * 2000}]}


def until_status(c: httpx.Client, status: int, timeout: float = 10) -> httpx.Response:
    """Produce until an answer has ``status`` (the server applies the table within ~1 s)."""
    deadline = time.monotonic() + timeout
    while True:
        r = c.post("/v1/topics/t/records", json=BODY)
        if r.status_code == status or time.monotonic() > deadline:
            return r
        time.sleep(0.05)


def test_the_command_throttles_a_running_server(
    server_factory: Callable[..., ServerProcess],
) -> None:
    # on a gateway, a keyed principal: a quota on ANONYMOUS would be the brokers' quota on
    # the gateway's own connections too (docs/kafka.md: anonymous_quota)
    principal = "ops" if GATEWAY else "ANONYMOUS"
    server = server_factory(SLUICE_SUPER_USERS="ops") if GATEWAY else server_factory()
    server.start()
    admin = Admin(server)
    headers = {}
    if GATEWAY:
        admin.key = admin.create_key("ops")
        headers = {"Authorization": f"Bearer {admin.key}"}
    with httpx.Client(base_url=server.url, timeout=10, headers=headers) as c:
        assert c.post("/v1/topics", json={"name": "t"}).status_code == 201
        assert c.post("/v1/topics/t/records", json=BODY).status_code == 200
        out = admin.set_quota(principal, 100)
        assert GATEWAY or "ANONYMOUS: producer_byte_rate 100 bytes/s" in out
        r = until_status(c, 429)
        assert r.status_code == 429, r.text
        err = r.json()["error"]
        assert err["code"] == "THROTTLING_QUOTA_EXCEEDED" and err["retriable"] is True
        assert r.headers["retry-after"] == str(math.ceil(err["throttle_time_ms"] / 1000))
        listed = c.get("/v1/admin/quotas").json()["quotas"]
        assert [(q["principal"], q["producer_byte_rate"]) for q in listed] == [(principal, 100)]
        name = "sluice_quota_throttled_requests_total"
        assert metric(c.get("/metrics").text, name, principal=principal, kind="produce")
        hw = c.get("/v1/topics/t").json()["partitions"][0]["high_watermark"]
        assert c.post("/v1/topics/t/records", json=BODY).status_code == 429
        assert c.get("/v1/topics/t").json()["partitions"][0]["high_watermark"] == hw
        if not GATEWAY:
            assert "ANONYMOUS" in admin.command("quotas", "list").stdout
        admin.remove_quota(principal)
        assert until_status(c, 200).status_code == 200
    assert server.stop() == 0
