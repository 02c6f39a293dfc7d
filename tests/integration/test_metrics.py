"""``/metrics`` read back with the Prometheus client library's own parsers, in the text format
and in OpenMetrics; one registry per application; the process metrics."""

from __future__ import annotations

import platform
from collections.abc import Iterable
from pathlib import Path

import prometheus_client
from prometheus_client.metrics_core import Metric
from prometheus_client.openmetrics import parser as openmetrics
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings
from tests.integration.conftest import Served, running

from .helpers import create_topic, metric, metrics, produce

ROUTE = "/v1/topics/{topic}/records"
# what a Prometheus server sends: OpenMetrics first, the text format as a fallback
SCRAPER_ACCEPT = (
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
)


def openmetrics_families(text: str) -> Iterable[Metric]:
    families: Iterable[Metric] = openmetrics.text_string_to_metric_families(text)  # type: ignore[no-untyped-call]
    return families


def samples(families: Iterable[Metric]) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {(s.name, frozenset(s.labels.items())): s.value for f in families for s in f.samples}


async def test_the_text_format_reads_back_with_the_client_library(served: Served) -> None:
    c = served.client
    await create_topic(c, "m")
    await produce(c, "m", [{"value": "a"}, {"value": "b"}])
    r = await c.get("/metrics")
    assert r.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    families = {f.name: f for f in text_string_to_metric_families(r.text)}
    assert families["sluice_http_requests"].type == "counter"
    assert families["sluice_http_request_duration_seconds"].type == "histogram"
    assert families["sluice_fsync_round_seconds"].type == "histogram"
    assert families["sluice_topics"].type == "gauge"
    got = samples(families.values())
    produce_labels = {("route", ROUTE), ("method", "POST")}
    assert got["sluice_http_requests_total", frozenset({*produce_labels, ("status", "200")})] == 1
    assert got["sluice_http_request_duration_seconds_count", frozenset(produce_labels)] == 1
    inf = frozenset({*produce_labels, ("le", "+Inf")})
    assert got["sluice_http_request_duration_seconds_bucket", inf] == 1
    assert got["sluice_records_produced_total", frozenset()] == 2
    assert got["sluice_topics", frozenset()] == 1
    assert got["sluice_partitions", frozenset()] == 1


async def test_openmetrics_when_the_request_asks_for_it(served: Served) -> None:
    c = served.client
    await create_topic(c, "m")
    await produce(c, "m", [{"value": "a"}])
    for accept in ("application/openmetrics-text; version=1.0.0", SCRAPER_ACCEPT):
        r = await c.get("/metrics", headers={"accept": accept})
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/openmetrics-text; version=1.0.0")
        assert r.text.endswith("# EOF\n")
        families = {f.name: f for f in openmetrics_families(r.text)}
        # one counter family with its _total and _created samples
        assert families["sluice_http_requests"].type == "counter"
        assert {s.name for s in families["sluice_records_produced"].samples} == {
            "sluice_records_produced_total",
            "sluice_records_produced_created",
        }
        got = samples(families.values())
        labels = frozenset({("route", ROUTE), ("method", "POST"), ("status", "200")})
        assert got["sluice_http_requests_total", labels] == 1
        assert got["sluice_records_produced_total", frozenset()] == 1
        assert got["sluice_ready", frozenset()] == 1


async def test_two_apps_in_one_process_count_apart(tmp_path: Path) -> None:
    async with (
        running(Settings(data_dir=str(tmp_path / "a"))) as a,
        running(Settings(data_dir=str(tmp_path / "b"))) as b,
    ):
        await create_topic(a.client, "t")
        await create_topic(b.client, "t")
        await produce(a.client, "t", [{"value": "1"}, {"value": "2"}])
        await produce(a.client, "t", [{"value": "3"}])
        await produce(b.client, "t", [{"value": "1"}])
        labels = {"route": ROUTE, "method": "POST", "status": "200"}
        text_a, text_b = await metrics(a.client), await metrics(b.client)
        assert metric(text_a, "sluice_http_requests_total", **labels) == 2
        assert metric(text_b, "sluice_http_requests_total", **labels) == 1
        assert metric(text_a, "sluice_records_produced_total") == 3
        assert metric(text_b, "sluice_records_produced_total") == 1
    # neither app counted into the library's process-wide registry
    assert not [f for f in prometheus_client.REGISTRY.collect() if f.name.startswith("sluice_")]


async def test_the_process_metrics_are_present(served: Served) -> None:
    text = await metrics(served.client)
    assert (metric(text, "process_cpu_seconds_total") or 0) > 0
    assert (metric(text, "process_resident_memory_bytes") or 0) > 1_000_000
    assert (metric(text, "process_open_fds") or 0) >= 3
    assert (metric(text, "process_start_time_seconds") or 0) > 0
    python = {
        "implementation": platform.python_implementation(),
        "major": str(platform.python_version_tuple()[0]),
        "minor": str(platform.python_version_tuple()[1]),
        "patchlevel": str(platform.python_version_tuple()[2]),
        "version": platform.python_version(),
    }
    assert metric(text, "python_info", **python) == 1
