"""A small Prometheus text registry: counters and histograms, labels as tuples.

Kept in-process and lock-free (everything runs on the event loop, the fsync thread only hands
a number back to the loop).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def _escape(value: str) -> str:
    """A label value as the text format writes it (principal names may hold anything)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    if not names:
        return ""
    inner = ",".join(f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + inner + "}"


class Counter:
    def __init__(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.doc, self.label_names = name, doc, labels
        self.values: dict[tuple[str, ...], float] = {}

    def inc(self, amount: float = 1, labels: tuple[str, ...] = ()) -> None:
        self.values[labels] = self.values.get(labels, 0) + amount

    def total(self) -> float:
        """The sum over every label set."""
        return sum(self.values.values())

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.doc}", f"# TYPE {self.name} counter"]
        if not self.values and not self.label_names:
            lines.append(f"{self.name} 0")
        for lv, v in sorted(self.values.items()):
            lines.append(f"{self.name}{_labels(self.label_names, lv)} {v:g}")
        return lines


class Histogram:
    def __init__(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.doc, self.label_names = name, doc, labels
        self.series: dict[tuple[str, ...], list[float]] = {}  # bucket counts + [sum, count]

    def observe(self, seconds: float, labels: tuple[str, ...] = ()) -> None:
        s = self.series.get(labels)
        if s is None:
            s = self.series[labels] = [0.0] * (len(_BUCKETS) + 2)
        i = bisect.bisect_left(_BUCKETS, seconds)
        if i < len(_BUCKETS):
            s[i] += 1
        s[-2] += seconds
        s[-1] += 1

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.doc}", f"# TYPE {self.name} histogram"]
        for lv, s in sorted(self.series.items()):
            cum = 0.0
            for b, c in zip(_BUCKETS, s, strict=False):
                cum += c
                lab = _labels((*self.label_names, "le"), (*lv, f"{b:g}"))
                lines.append(f"{self.name}_bucket{lab} {cum:g}")
            lab = _labels((*self.label_names, "le"), (*lv, "+Inf"))
            lines.append(f"{self.name}_bucket{lab} {s[-1]:g}")
            lines.append(f"{self.name}_sum{_labels(self.label_names, lv)} {s[-2]:g}")
            lines.append(f"{self.name}_count{_labels(self.label_names, lv)} {s[-1]:g}")
        return lines


class Gauge:
    def __init__(self, name: str, doc: str, read: Callable[[], float]) -> None:
        self.name, self.doc, self.read = name, doc, read

    def render(self) -> list[str]:
        return [
            f"# HELP {self.name} {self.doc}",
            f"# TYPE {self.name} gauge",
            f"{self.name} {self.read():g}",
        ]


class Metrics:
    """The instruments of one server (one per application, so two apps in one process, as in
    the tests, count apart)."""

    def __init__(self) -> None:
        self.requests = Counter(
            "sluice_http_requests_total",
            "HTTP requests by route, method and status",
            ("route", "method", "status"),
        )
        self.latency = Histogram(
            "sluice_http_request_duration_seconds", "HTTP request latency", ("route", "method")
        )
        self.bytes_in = Counter("sluice_http_request_bytes_total", "request body bytes received")
        self.records_in = Counter("sluice_records_produced_total", "records appended")
        self.records_out = Counter("sluice_records_read_total", "records returned by reads")
        self.delivered = Counter(
            "sluice_share_records_delivered_total",
            "records delivered to share-group consumers (HTTP fetch and WebSocket push)",
        )
        self.fsync_seconds = Histogram(
            "sluice_fsync_round_seconds", "duration of one group-commit round"
        )
        self.quota_throttled = Counter(
            "sluice_quota_throttled_requests_total",
            "requests refused (429) and WebSocket pushes delayed over a byte-rate quota",
            ("principal", "kind"),
        )
        self.quota_throttle_seconds = Counter(
            "sluice_quota_throttle_seconds_total",
            "throttle time given to requests and pushes over a byte-rate quota",
            ("principal", "kind"),
        )
        self.quota_bytes = Counter(
            "sluice_quota_bytes_total",
            "bytes counted against byte-rate quotas (principals with a quota only)",
            ("principal", "kind"),
        )

    def render(self, extra: Sequence[Gauge] = ()) -> str:
        """Prometheus text of every instrument, then ``extra``."""
        own: list[Counter | Histogram] = [
            self.requests,
            self.latency,
            self.bytes_in,
            self.records_in,
            self.records_out,
            self.delivered,
            self.fsync_seconds,
            self.quota_throttled,
            self.quota_throttle_seconds,
            self.quota_bytes,
        ]
        lines: list[str] = []
        for m in [*own, *extra]:
            lines.extend(m.render())
        return "\n".join(lines) + "\n"
