"""Random operation sequences on a SharePartition over a real log: the invariants hold after
every step, and the durable view reloads to the same state (seeds are fixed: reproducible)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from app.errors import SluiceError
from app.share.partition import AckBatch, AckType, Limits, Lock, SharePartition, Staged
from app.share.record_state import RecordState
from tests.unit.share.test_partition import Harness

S = RecordState
MEMBERS = ("a", "b", "c")


def advance_log_start(h: Harness, rng: random.Random) -> None:
    """Retention or a delete-records request: the log start moves to a random offset."""
    lg = h.log
    if lg.log_end_offset > lg.log_start_offset:
        lg.advance_log_start(rng.randint(lg.log_start_offset, lg.log_end_offset))


def expire_due_locks(h: Harness, rng: random.Random, in_flight: list[Staged]) -> None:
    """Time passes; the locks it runs out stage their expiry (kept in ``in_flight``)."""
    h.now += rng.choice([1000, 5000, 11_000])
    for item in h.heap.pop_due(h.now):
        if isinstance(item, Lock):
            staged = item.partition.expire_lock(item, h.now, h.limits)
            if staged is not None:
                in_flight.append(staged)


def check_invariants(h: Harness, acked: set[int]) -> None:
    sp = h.sp
    assert sp.start_offset <= sp.end_offset
    # runs below the start are leftovers of a log-start move (acquired ones wait for their
    # release or expiry); from the start on, the runs cover the window without holes
    runs = [r for r in sp.runs if r.last >= sp.start_offset]
    if runs:
        assert runs[0].first <= sp.start_offset
        assert runs[-1].last + 1 == sp.end_offset
    else:
        assert sp.start_offset == sp.end_offset
    for prev, run in itertools.pairwise(sp.runs):
        assert prev.last < run.first, (prev, run)
        assert prev.rare is None or prev.rare is not run.rare, (prev, run)
    for prev, run in itertools.pairwise(runs):
        assert prev.last + 1 == run.first, (prev, run)
    runs = sp.runs
    pending = {id(s) for s in sp.staged}
    for run in runs:
        assert run.first <= run.last
        assert 0 <= run.delivery_count <= h.limits.delivery_limit
        if run.state is S.ACQUIRED:
            assert run.member is not None and run.lock is not None
        else:
            assert run.member is None and run.lock is None
        if run.pending is not None:
            assert id(run.pending) in pending and run.target is not None
        else:
            assert run.target is None
        # a run carries its rare fields only while one is set, and shares them with no other
        assert run.rare is None or not run.rare.empty, run
        if run.first == run.last and run.first > 256:  # beyond the interpreter's cached ints
            assert run.first is run.last, run
        if run.state is S.ACQUIRED:
            assert not acked & set(range(run.first, run.last + 1))
    counts = sp.counts()
    assert sum(counts.values()) == sp.end_offset - sp.start_offset


def check_reload(h: Harness) -> None:
    start, batches = h.sp.snapshot()
    again = SharePartition.load("g", "t", 0, 1, start, list(batches), h.heap, state_epoch=0)
    durable = {}
    for v in h.sp.record_views(start, h.sp.end_offset):
        if v.state is S.ACQUIRED:
            durable[v.offset] = (S.AVAILABLE, v.delivery_count - 1)
        else:
            durable[v.offset] = (v.state, v.delivery_count)
    for v in again.record_views(start, h.sp.end_offset):
        state, dc = durable[v.offset]
        if state is S.AVAILABLE and dc == 0:
            assert (v.state, v.delivery_count) == (S.AVAILABLE, 0)
        else:
            assert (v.state, v.delivery_count) == (state, dc), v.offset
    assert again.start_offset == start


@pytest.mark.parametrize("seed", range(100))
def test_random_operations_keep_the_invariants(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    h = Harness(
        tmp_path,
        limits=Limits(
            lock_ms=10_000, delivery_limit=rng.choice([2, 3, 5]), max_locks=rng.choice([100, 200])
        ),
    )
    acked: set[int] = set()
    in_flight: list[Staged] = []
    for _ in range(120):
        op = rng.random()
        if op < 0.15:
            h.produce(rng.randint(1, 12))
            if rng.random() < 0.2:
                h.marker()
        elif op < 0.40:
            got = h.fetch(
                rng.choice(MEMBERS),
                rng.randint(1, 30),
                record_limit=rng.random() < 0.5,
                max_bytes=rng.choice([1 << 30, 30]),
            )
            offs = [r.offset for r, _ in got.records]
            assert offs == sorted(offs) and not acked & set(offs)
        elif op < 0.70 and h.sp.end_offset > h.sp.start_offset:
            lo = rng.randrange(h.sp.start_offset, h.sp.end_offset)
            hi = min(lo + rng.randint(0, 6), h.sp.end_offset - 1)
            kinds = list(AckType)
            types = (
                [rng.choice(kinds)]
                if rng.random() < 0.5
                else [rng.choice(kinds) for _ in range(hi - lo + 1)]
            )
            batch = AckBatch(lo, hi, types, delay_ms=0)
            before = [(r.first, r.last, r.state, r.delivery_count) for r in h.sp.runs]
            try:
                staged = h.sp.acknowledge(rng.choice(MEMBERS), [batch], now=h.now, limits=h.limits)
            except SluiceError:
                # all or nothing: a refused acknowledgement changes nothing, cuts nothing
                assert [(r.first, r.last, r.state, r.delivery_count) for r in h.sp.runs] == before
                continue
            if staged is not None:
                in_flight.append(staged)
        elif op < 0.85 and in_flight:
            staged = in_flight.pop(rng.randrange(len(in_flight)))
            if rng.random() < 0.85:
                for run in staged.runs:
                    if run.target is not None and run.target.state is S.ACKNOWLEDGED:
                        acked.update(range(run.first, run.last + 1))
                h.sp.complete(staged, h.now, h.limits)
            else:
                again = h.sp.rollback(staged, h.now, h.limits)
                if again is not None:
                    in_flight.append(again)
        elif op < 0.88:
            advance_log_start(h, rng)
        elif op < 0.95:
            expire_due_locks(h, rng, in_flight)
        else:
            staged = h.sp.release_member(rng.choice(MEMBERS))
            if staged is not None:
                in_flight.append(staged)
        check_invariants(h, acked)
        check_reload(h)
