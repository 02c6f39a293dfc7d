"""The server's instruments on the Prometheus client library, in a registry of their own.

Each application (each ``Broker``) has its own ``CollectorRegistry``, never the library's global
one, so that two apps in one process (as in the tests) count apart and can both be built. The
registry holds the instruments below, the library's process and platform collectors, and the
collectors that compute gauges at scrape time from the services' ``statistics()``
(``Metrics.register``). ``/metrics`` answers the text format, or OpenMetrics when the request
asks for it (``Metrics.exposition``).

Everything runs on the event loop (the fsync thread only hands a number back to the loop); the
library's own locks are uncontended.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

__all__ = ["Collector", "Counter", "Histogram", "Metrics", "total"]

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

# Most (route, method, status) series whose instruments the request gate keeps at hand. The
# routes are templates and the statuses a few dozen; the server's HTTP parser accepts only the
# registered methods, but an app served otherwise may see any, so the cache stops growing here
# (later series are still counted, through the library's own lookup).
MAX_CACHED_SERIES = 4096


class Metrics:
    """The instruments of one server, and the registry that exposes them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        r = self.registry
        self.requests = Counter(
            "sluice_http_requests_total",
            "HTTP requests by route, method and status",
            ("route", "method", "status"),
            registry=r,
        )
        self.latency = Histogram(
            "sluice_http_request_duration_seconds",
            "HTTP request latency",
            ("route", "method"),
            buckets=BUCKETS,
            registry=r,
        )
        self.bytes_in = Counter(
            "sluice_http_request_bytes_total", "request body bytes received", registry=r
        )
        self.records_in = Counter("sluice_records_produced_total", "records appended", registry=r)
        self.records_out = Counter(
            "sluice_records_read_total", "records returned by reads", registry=r
        )
        self.delivered = Counter(
            "sluice_share_records_delivered_total",
            "records delivered to share-group consumers (HTTP fetch and WebSocket push)",
            registry=r,
        )
        self.fsync_seconds = Histogram(
            "sluice_fsync_round_seconds",
            "duration of one group-commit round",
            buckets=BUCKETS,
            registry=r,
        )
        self.quota_throttled = Counter(
            "sluice_quota_throttled_requests_total",
            "requests refused (429) and WebSocket pushes delayed over a byte-rate quota",
            ("principal", "kind"),
            registry=r,
        )
        self.quota_throttle_seconds = Counter(
            "sluice_quota_throttle_seconds_total",
            "throttle time given to requests and pushes over a byte-rate quota",
            ("principal", "kind"),
            registry=r,
        )
        self.quota_bytes = Counter(
            "sluice_quota_bytes_total",
            "bytes counted against byte-rate quotas (principals with a quota only)",
            ("principal", "kind"),
            registry=r,
        )
        # the library's labels() validates and converts its arguments and takes a lock on every
        # call (two thirds of the gate's cost): the gate asks for the same few series over and
        # over, so it keeps them at hand
        self._series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        """One HTTP request answered: counted per route, method and status, its latency
        observed per route and method."""
        key = (route, method, status)
        series = self._series.get(key)
        if series is None:
            series = (
                self.requests.labels(route, method, str(status)),
                self.latency.labels(route, method),
            )
            if len(self._series) < MAX_CACHED_SERIES:
                self._series[key] = series
        series[0].inc()
        series[1].observe(seconds)

    def register(self, collector: Collector) -> None:
        """Add a collector whose metrics are computed at each scrape."""
        self.registry.register(collector)

    def exposition(self, accept: str | None) -> tuple[bytes, str]:
        """Every metric of the registry, and its content type: OpenMetrics when ``accept`` asks
        for it, the Prometheus text format otherwise."""
        encode, content_type = choose_encoder(accept or "")
        return encode(self.registry), content_type


def total(counter: Counter) -> float:
    """A counter's value summed over its label sets."""
    return sum(
        s.value for family in counter.collect() for s in family.samples if s.name.endswith("_total")
    )
