"""The request gate's instruments: every request counted and observed under its own labels,
whether or not its series is among those kept at hand."""

from __future__ import annotations

import pytest

from app import metrics as metrics_module
from app.metrics import Metrics, total


def value(m: Metrics, name: str, **labels: str) -> float:
    got = m.registry.get_sample_value(name, labels)
    assert got is not None, (name, labels)
    return got


def test_a_request_is_counted_and_its_latency_observed() -> None:
    m = Metrics()
    m.request("/v1/topics", "GET", 200, 0.0007)
    m.request("/v1/topics", "GET", 200, 0.003)
    m.request("/v1/topics", "GET", 404, 0.0001)
    m.request("/v1/topics", "POST", 201, 0.02)
    assert (
        value(m, "sluice_http_requests_total", route="/v1/topics", method="GET", status="200") == 2
    )
    assert (
        value(m, "sluice_http_requests_total", route="/v1/topics", method="GET", status="404") == 1
    )
    assert (
        value(m, "sluice_http_requests_total", route="/v1/topics", method="POST", status="201") == 1
    )
    get = {"route": "/v1/topics", "method": "GET"}
    assert value(m, "sluice_http_request_duration_seconds_count", **get) == 3
    assert value(m, "sluice_http_request_duration_seconds_sum", **get) == pytest.approx(0.0038)
    assert value(m, "sluice_http_request_duration_seconds_bucket", le="0.0005", **get) == 1
    assert value(m, "sluice_http_request_duration_seconds_bucket", le="0.001", **get) == 2
    assert value(m, "sluice_http_request_duration_seconds_bucket", le="+Inf", **get) == 3


def test_series_past_the_cache_are_still_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_module, "MAX_CACHED_SERIES", 2)
    m = Metrics()
    for _ in range(3):
        for status in (200, 400, 404, 500):
            m.request("unmatched", "GET", status, 0.001)
    for code in ("200", "400", "404", "500"):
        labels = {"route": "unmatched", "method": "GET", "status": code}
        assert value(m, "sluice_http_requests_total", **labels) == 3
    assert (
        value(m, "sluice_http_request_duration_seconds_count", route="unmatched", method="GET")
        == 12
    )
    assert len(m._series) == 2


def test_total_sums_a_counter_over_its_label_sets() -> None:
    m = Metrics()
    assert total(m.records_in) == 0
    m.records_in.inc(3)
    m.records_in.inc(4)
    assert total(m.records_in) == 7
    m.quota_bytes.labels("alice", "produce").inc(10)
    m.quota_bytes.labels("bob", "fetch").inc(5)
    assert total(m.quota_bytes) == 15
