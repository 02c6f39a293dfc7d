"""Per-principal byte-rate quotas, Kafka's model (KIP-13, KIP-55, KIP-219): pure, no I/O.

Each principal has two quotas, in bytes per second: produce (``producer_byte_rate``) and fetch
(``consumer_byte_rate``, reads, share fetches and WebSocket pushes together). A ``Meter``
measures one principal's rate of one kind over a sliding set of sample windows (by default,
as Kafka, 11 windows of 1 s): the bytes of the windows still in the set divided by the time
they span, which counts at least ``windows - 1`` whole windows (so a principal that was idle
may send up to ten seconds' worth of its quota at once, as in Kafka).

A request is admitted while the measured rate is at most the quota (a produce before its body
is read); its bytes are recorded once it is done, whether it succeeded or not (a produce body
refused as invalid counts as much as one appended). Over the quota, the throttle time is how
long, with no more traffic, until the measured rate is back at or under the quota and stays
there: exact for this measurement (windows dropping out of the set are accounted for), at most
``windows + 1`` windows long.

The cost on the request path: a principal without a quota is one dict lookup (``Meters``
holds ``None`` for it); with a quota, a little integer arithmetic. Windows are aligned to
multiples of ``window_ms`` of the injected clock's monotonic time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.clock import Clock
from app.errors import Throttled
from app.metrics import Counter
from app.security import ANONYMOUS

PRODUCE = "produce"
FETCH = "fetch"
KINDS = (PRODUCE, FETCH)
MAX_BYTE_RATE = 2**40  # bytes/s: the largest quota accepted (1 TiB/s)


@dataclass(frozen=True, slots=True)
class QuotaCounters:
    """The instruments every meter counts into, labelled (principal, kind)."""

    throttled: Counter  # requests refused (or pushes delayed) over a quota
    throttle_seconds: Counter  # the throttle times they were given, summed
    bytes: Counter  # bytes counted against a quota (principals with a quota only)


@dataclass(frozen=True, slots=True)
class Override:
    """A principal's own quotas; None: the server's default for that kind."""

    producer_byte_rate: int | None = None
    consumer_byte_rate: int | None = None

    def rate(self, kind: str) -> int | None:
        return self.producer_byte_rate if kind == PRODUCE else self.consumer_byte_rate


class Meter:
    """The byte rate of one principal and kind, against its quota (see the module docstring).

    ``windows`` buckets in a ring, bucket ``i % windows`` holding the bytes of window ``i``;
    ``_total`` is their sum, kept as buckets fill and empty, so nothing is summed per request.
    """

    __slots__ = (
        "_buckets",
        "_clock",
        "_counters",
        "_labels",
        "_n",
        "_total",
        "_w",
        "_window",
        "kind",
        "principal",
        "rate",
    )

    def __init__(
        self,
        rate: int,
        clock: Clock,
        *,
        windows: int = 11,
        window_ms: int = 1000,
        principal: str = ANONYMOUS,
        kind: str = PRODUCE,
        counters: QuotaCounters | None = None,
    ) -> None:
        if rate <= 0 or windows < 2 or window_ms <= 0:
            raise ValueError("a meter needs a positive rate, 2 or more windows and a window")
        self.rate = rate
        self.principal = principal
        self.kind = kind
        self._clock = clock
        self._n = windows
        self._w = window_ms
        self._buckets = [0] * windows
        self._window = self._now() // window_ms
        self._total = 0
        self._counters = counters
        self._labels = (principal, kind)

    def _now(self) -> int:
        return int(self._clock.monotonic() * 1000)

    def _advance(self, now_ms: int) -> int:
        """Move the ring to the window of ``now_ms``, emptying the windows that left the set;
        returns the current window's index."""
        w = now_ms // self._w
        gap = w - self._window
        if gap > 0:
            b = self._buckets
            if gap >= self._n:
                b[:] = [0] * self._n
                self._total = 0
            else:
                for i in range(self._window + 1, w + 1):
                    slot = i % self._n
                    self._total -= b[slot]
                    b[slot] = 0
            self._window = w
        return self._window

    # -- measuring ----------------------------------------------------------------------------

    def measured(self, now_ms: int | None = None) -> float:
        """The measured rate in bytes/s."""
        now = self._now() if now_ms is None else now_ms
        w = self._advance(now)
        elapsed = (self._n - 1) * self._w + now - w * self._w
        return self._total * 1000 / elapsed

    def throttle_ms(self, now_ms: int | None = None) -> int:
        """0 while the measured rate is within the quota; else the milliseconds until it is
        back within it, with no more traffic, for good (exact for this measurement)."""
        now = self._now() if now_ms is None else now_ms
        w = self._advance(now)
        n, ww, rate = self._n, self._w, self.rate
        span = (n - 1) * ww + now - w * ww  # the time the windows in the set span (ms)
        total = self._total
        if total * 1000 <= rate * span:
            return 0
        # Going forward without traffic: between window boundaries the span grows and the rate
        # falls; at each boundary the oldest window leaves (its bytes with it) and the span
        # shrinks back to n - 1 windows, so the rate may rise again. The answer is the moment
        # of the last return under the quota, found segment by segment (at most n + 1).
        full = n * ww
        at = 0  # the start of the segment, from now (ms)
        answer = 0
        buckets = self._buckets
        for k in range(n + 1):
            if k:
                total -= buckets[(w + k) % n]
                span = (n - 1) * ww
            need = -(-total * 1000 // rate)  # the span that brings the rate to the quota
            if need > span:  # over the quota at this segment's start
                answer = at + min(need, full) - span
            at += full - span
            if total == 0:
                break
        return answer

    def record(self, nbytes: int, now_ms: int | None = None) -> None:
        """Count ``nbytes`` done now."""
        now = self._now() if now_ms is None else now_ms
        w = self._advance(now)
        self._buckets[w % self._n] += nbytes
        self._total += nbytes
        if self._counters is not None:
            self._counters.bytes.labels(*self._labels).inc(nbytes)

    # -- the request path ---------------------------------------------------------------------

    def delay_ms(self) -> int:
        """The throttle time now; a non-zero one is counted as a throttled request."""
        ms = self.throttle_ms()
        if ms and self._counters is not None:
            self._counters.throttled.labels(*self._labels).inc()
            self._counters.throttle_seconds.labels(*self._labels).inc(ms / 1000)
        return ms

    def admit(self) -> None:
        """Raise ``Throttled`` (429 THROTTLING_QUOTA_EXCEEDED) while over the quota."""
        ms = self.delay_ms()
        if ms:
            raise Throttled(
                ms,
                f"principal {self.principal!r} is over its {self.kind} quota of {self.rate} "
                f"bytes/s; retry in {ms} ms",
            )


class Meters(dict[str, Meter | None]):
    """One kind's meters by principal; ``None`` for a principal without a quota. A principal
    seen for the first time gets its meter (or ``None``) on the first lookup."""

    def __init__(self, quotas: Quotas, kind: str) -> None:
        super().__init__()
        self.quotas = quotas
        self.kind = kind

    def __missing__(self, principal: str) -> Meter | None:
        meter = self.quotas.new_meter(principal, self.kind)
        self[principal] = meter
        return meter

    def admit(self, principal: str | None) -> Meter | None:
        """The meter of ``principal`` (None: anonymous), after checking it: raises
        ``Throttled`` when over the quota; None when no quota applies."""
        meter = self[principal or ANONYMOUS]
        if meter is not None:
            meter.admit()
        return meter


class Quotas:
    """Every principal's produce and fetch meters, with the defaults and the overrides."""

    def __init__(
        self,
        clock: Clock,
        *,
        producer_byte_rate: int = 0,
        consumer_byte_rate: int = 0,
        windows: int = 11,
        window_ms: int = 1000,
        counters: QuotaCounters | None = None,
    ) -> None:
        self.clock = clock
        self.defaults = {PRODUCE: producer_byte_rate, FETCH: consumer_byte_rate}
        self.windows = windows
        self.window_ms = window_ms
        self.counters = counters
        self.overrides: dict[str, Override] = {}
        self.produce = Meters(self, PRODUCE)
        self.fetch = Meters(self, FETCH)

    def meters(self, kind: str) -> Meters:
        return self.produce if kind == PRODUCE else self.fetch

    def limit(self, principal: str, kind: str) -> int:
        """The quota of ``principal`` for ``kind`` in bytes/s; 0: unlimited."""
        override = self.overrides.get(principal)
        rate = None if override is None else override.rate(kind)
        return self.defaults[kind] if rate is None else rate

    def new_meter(self, principal: str, kind: str) -> Meter | None:
        rate = self.limit(principal, kind)
        if not rate:
            return None
        return Meter(
            rate,
            self.clock,
            windows=self.windows,
            window_ms=self.window_ms,
            principal=principal,
            kind=kind,
            counters=self.counters,
        )

    def configure(self, overrides: Mapping[str, Override]) -> None:
        """Take a new set of overrides. A principal whose quota changes keeps its measured
        rate under the new quota; one left without a quota loses its meter."""
        self.overrides = dict(overrides)
        for kind in KINDS:
            meters = self.meters(kind)
            for principal, meter in list(meters.items()):
                rate = self.limit(principal, kind)
                if not rate:
                    meters[principal] = None
                elif meter is None:
                    meters[principal] = self.new_meter(principal, kind)
                else:
                    meter.rate = rate
