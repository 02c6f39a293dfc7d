"""The quota arithmetic on a clock that moves only when told: the measured rate, the exact
throttle time, overrides and defaults, the counters."""

from __future__ import annotations

import copy
import random

import pytest

from app.clock import FakeClock
from app.errors import ErrorCode, Throttled
from app.metrics import Counter, Metrics
from app.security import ANONYMOUS
from app.security.quotas import FETCH, PRODUCE, Meter, Override, QuotaCounters, Quotas


def counters() -> tuple[Metrics, QuotaCounters]:
    m = Metrics()
    return m, QuotaCounters(m.quota_throttled, m.quota_throttle_seconds, m.quota_bytes)


def values(counter: Counter) -> dict[tuple[str, ...], float]:
    """A counter's value per label set."""
    return {
        tuple(s.labels.values()): s.value
        for family in counter.collect()
        for s in family.samples
        if s.name.endswith("_total")
    }


def at_window_start(clock: FakeClock, window_ms: int = 1000) -> None:
    """Move the clock to the start of a window (the meters align windows to the clock)."""
    now = int(clock.monotonic() * 1000)
    clock.advance(-now % window_ms)


def test_the_rate_spans_at_least_windows_minus_one_windows() -> None:
    clock = FakeClock()
    at_window_start(clock)
    meter = Meter(1000, clock)  # 11 windows of 1 s, as Kafka
    meter.record(10_000)
    # 10,000 bytes at once: the span counts 10 whole windows, not the instant that passed
    assert meter.measured() == 1000.0
    assert meter.throttle_ms() == 0  # exactly at the quota is within it
    meter.record(1)
    assert meter.measured() > 1000
    clock.advance(500)
    assert meter.measured() == pytest.approx(10_001 / 10.5)


def test_throttle_time_is_the_time_back_to_the_quota() -> None:
    clock = FakeClock()
    at_window_start(clock)
    meter = Meter(1000, clock)
    meter.record(15_000)  # the rate: 15,000 / 10 s = 1,500 bytes/s
    # within this window the span grows to 15 s only after 5 s, but the window ends after
    # 1 s; at each boundary the span falls back to 10 s while no window has yet left the set
    # (they are empty but for the current one), so the rate stays over the quota until the
    # window holding the bytes leaves: 11 windows from now
    assert meter.throttle_ms() == 11_000
    clock.advance(10_999)
    assert meter.throttle_ms() == 1
    clock.advance(1)
    assert meter.throttle_ms() == 0
    assert meter.measured() == 0


def test_throttle_within_the_current_window_when_bytes_are_spread() -> None:
    clock = FakeClock()
    at_window_start(clock)
    meter = Meter(1000, clock)
    for _ in range(10):
        meter.record(1000)
        clock.advance(1000)
    meter.record(600)  # 10,600 bytes over 10 s of span: 1,060 bytes/s
    # the oldest window (1,000 bytes) leaves at the next boundary; until then the span must
    # grow to 10.6 s: 600 ms
    assert meter.throttle_ms() == 600
    clock.advance(599)
    assert meter.throttle_ms() == 1
    clock.advance(1)
    assert meter.throttle_ms() == 0


@pytest.mark.parametrize("seed", range(40))
def test_the_throttle_time_is_exact_and_final(seed: int) -> None:
    """Over random traffic: at now + throttle_ms the rate is within the quota and stays
    there without more traffic; one millisecond earlier it was not."""
    rng = random.Random(seed)
    clock = FakeClock()
    windows, window_ms = rng.randint(2, 6), rng.choice((7, 10, 50))
    rate = rng.randint(1, 50)
    meter = Meter(rate, clock, windows=windows, window_ms=window_ms)
    for _ in range(rng.randint(1, 30)):
        clock.advance(rng.randint(0, window_ms * 2))
        meter.record(rng.randint(0, rate * window_ms // 100 + 5))
    wait = meter.throttle_ms()
    now = int(clock.monotonic() * 1000)
    if wait:
        probe = copy.deepcopy(meter)
        assert probe.throttle_ms(now + wait - 1) > 0
    probe = copy.deepcopy(meter)
    for t in range(now + wait, now + wait + (windows + 2) * window_ms):
        assert probe.throttle_ms(t) == 0, (wait, t - now)
    assert wait <= (windows + 1) * window_ms


def test_admit_raises_throttled_and_counts_it() -> None:
    clock = FakeClock()
    at_window_start(clock)
    metrics, c = counters()
    meter = Meter(100, clock, principal="alice", kind=FETCH, counters=c)
    meter.admit()  # nothing measured yet
    meter.record(2500)
    assert values(metrics.quota_bytes) == {("alice", "fetch"): 2500}
    with pytest.raises(Throttled) as caught:
        meter.admit()
    err = caught.value
    assert err.code is ErrorCode.THROTTLING_QUOTA_EXCEEDED
    assert err.throttle_ms == 11_000 and err.retry_after_s == 11
    assert err.to_dict()["throttle_time_ms"] == 11_000
    assert "alice" in err.message and "fetch" in err.message
    assert values(metrics.quota_throttled) == {("alice", "fetch"): 1}
    assert values(metrics.quota_throttle_seconds) == {("alice", "fetch"): 11.0}


def test_retry_after_rounds_up_to_whole_seconds() -> None:
    assert Throttled(1).retry_after_s == 1
    assert Throttled(1000).retry_after_s == 1
    assert Throttled(1001).retry_after_s == 2


def test_a_meter_needs_a_quota() -> None:
    with pytest.raises(ValueError):
        Meter(0, FakeClock())


def test_principals_without_a_quota_have_no_meter() -> None:
    quotas = Quotas(FakeClock())
    assert quotas.produce.admit(None) is None
    assert quotas.fetch.admit("bob") is None
    assert dict(quotas.produce) == {ANONYMOUS: None}


def test_defaults_and_overrides() -> None:
    clock = FakeClock()
    quotas = Quotas(clock, producer_byte_rate=1000)
    meter = quotas.produce.admit("alice")
    assert meter is not None and meter.rate == 1000
    assert quotas.fetch["alice"] is None  # no default fetch quota
    quotas.configure({"alice": Override(consumer_byte_rate=50), "bob": Override(10, None)})
    assert quotas.produce["alice"] is meter and meter.rate == 1000  # default kept
    fetch = quotas.fetch["alice"]
    assert fetch is not None and fetch.rate == 50  # a meter for the new quota
    assert quotas.limit("bob", PRODUCE) == 10 and quotas.limit("bob", FETCH) == 0


def test_a_changed_quota_keeps_the_measured_rate() -> None:
    clock = FakeClock()
    at_window_start(clock)
    quotas = Quotas(clock)
    quotas.configure({"alice": Override(100, None)})
    meter = quotas.produce["alice"]
    assert meter is not None
    meter.record(5000)
    with pytest.raises(Throttled):
        quotas.produce.admit("alice")
    quotas.configure({"alice": Override(1000, None)})  # raised: within it now
    assert quotas.produce.admit("alice") is meter
    quotas.configure({"alice": Override(100, None)})  # lowered again: the bytes still count
    with pytest.raises(Throttled):
        quotas.produce.admit("alice")
    quotas.configure({})  # removed: no meter, nothing to check
    assert quotas.produce.admit("alice") is None


def test_a_long_idle_gap_empties_every_window() -> None:
    clock = FakeClock()
    meter = Meter(10, clock, windows=3, window_ms=100)
    meter.record(10_000)
    clock.advance(10_000)
    assert meter.measured() == 0 and meter.throttle_ms() == 0
