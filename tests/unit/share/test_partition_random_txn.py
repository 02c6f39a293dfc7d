"""Random operation sequences on a SharePartition over a real log that also holds transactions
(committed, aborted and open for a while, their markers written as the engine writes them) while
the group switches between read_uncommitted and read_committed. Each step is checked against a
model of the log: what a fetch may deliver under each isolation level (never a marker, under
read_committed nothing aborted nor at or past the LSO), which moves of a record's state each
operation may make (terminal states stay; a fetch archives gaps only), that a fetch which takes
nothing leaves nothing to take, and that nothing raises but a client's error from an
acknowledgement. At the end, with every transaction ended, a member that accepts all it gets
drains the partition to its end (seeds are fixed: reproducible)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.errors import Conflict, InvalidRequest, SluiceError
from app.share.partition import AckBatch, AckType, Limits, Lock, Staged, StagedKind
from app.share.record_state import RecordState
from tests.unit.share.test_partition import T0
from tests.unit.share.test_partition_random import (
    MEMBERS,
    advance_log_start,
    check_invariants,
    check_reload,
    expire_due_locks,
)
from tests.unit.share.test_partition_reads import Counting

S = RecordState
PIDS = (7, 8, 9)

View = tuple[RecordState, int]  # state, delivery count
# the move a staged change makes once complete
MOVES = {
    StagedKind.ACK: "complete",
    StagedKind.EXPIRY: "expire",
    StagedKind.LEAVE: "leave",
    StagedKind.TXN: "complete",
    StagedKind.TXN_END: "complete",
}


@dataclass
class Model:
    """What the test knows of the log and of the records' history."""

    markers: set[int] = field(default_factory=set)  # control batches (transaction markers too)
    aborted: set[int] = field(default_factory=set)  # data of transactions aborted
    open: dict[int, list[int]] = field(default_factory=dict)  # producer id → its open offsets
    delivered: set[int] = field(default_factory=set)  # offsets a fetch ever returned
    acked: set[int] = field(default_factory=set)  # offsets made ACKNOWLEDGED


def views(h: Counting) -> dict[int, View]:
    return {
        v.offset: (v.state, v.delivery_count)
        for v in h.sp.record_views(h.sp.start_offset, h.sp.end_offset)
    }


def check_fetched(h: Counting, m: Model, offs: list[int], bound: int) -> None:
    """What a fetch may deliver: no marker, no acknowledged record, nothing at or past the
    partition end; under read_committed nothing of an aborted transaction, nor past the LSO."""
    assert offs == sorted(offs) and len(set(offs)) == len(offs)
    assert not m.markers & set(offs)
    assert not m.acked & set(offs)
    assert all(o < bound for o in offs), (offs, bound)
    if h.committed:
        assert not m.aborted & set(offs), sorted(m.aborted & set(offs))
        assert bound == h.log.last_stable_offset
        assert all(o < h.log.last_stable_offset for o in offs)


def gap(h: Counting, m: Model, o: int, op: str) -> bool:
    """Whether ``o`` may be archived without having been delivered: a marker, data of an
    aborted transaction a fetch under read_committed passes, or an offset below the log
    start."""
    return (
        o in m.markers
        or (op == "fetch" and h.committed and o in m.aborted)
        or o < h.log.log_start_offset
    )


def archived(h: Counting, m: Model, op: str, o: int, old: RecordState) -> None:
    """``o`` was archived from ``old`` by ``op``: a fetch archives gaps only (a record it
    delivered before is a gap only as aborted data under read_committed); an acquired record
    is archived when its change (rejected, at the delivery limit, below the log start)
    completes, its lock expires or its member leaves."""
    if op == "fetch" or old is S.AVAILABLE:
        assert op == "fetch" and gap(h, m, o, op), (op, o, old)
    else:
        assert old is S.ACQUIRED and op in ("complete", "expire", "leave"), (op, o, old)
        assert o in m.delivered


def check_moves(
    h: Counting, m: Model, op: str, before: dict[int, View], after: dict[int, View], got: set[int]
) -> None:
    """Each record's move in one step is one the operation ``op`` may make."""
    for o, (state, dc) in after.items():
        old = before.get(o)
        if old is None:  # new in the window: only a fetch takes new offsets in
            assert op == "fetch", (op, o, state)
            if state is S.ACQUIRED:
                assert o in got and dc == 1, (o, dc)
            else:
                assert state is S.ARCHIVED and gap(h, m, o, op), (o, state, dc)
                assert dc == (1 if o in m.aborted and o not in m.markers else 0), (o, dc)
            continue
        old_state, old_dc = old
        if old_state.terminal:  # sticky: nothing moves a record out of a terminal state
            assert (state, dc) == old, (op, o, old, state, dc)
            continue
        if state is old_state and state is not S.ACQUIRED:
            assert dc == old_dc, (op, o, old, dc)
            continue
        if state is S.ACQUIRED and old_state is S.AVAILABLE:
            assert op == "fetch" and o in got and dc == old_dc + 1, (op, o, old, dc)
        elif state is S.ACQUIRED:  # still acquired: renewed or held, the count unchanged
            assert dc == old_dc and o not in got, (op, o, old, dc)
        elif state is S.ACKNOWLEDGED:
            assert op == "complete" and old_state is S.ACQUIRED and dc == old_dc, (op, o, old)
            assert o in m.delivered
        elif state is S.AVAILABLE:
            assert old_state is S.ACQUIRED and op in ("complete", "expire", "leave"), (op, o)
            assert dc == (old_dc - 1 if op == "leave" else old_dc), (op, o, old, dc)
        else:  # archived
            assert state is S.ARCHIVED
            archived(h, m, op, o, old_state)
    for o, (old_state, _) in before.items():
        if o not in after and not old_state.terminal:  # archived, then the start passed it
            archived(h, m, op, o, old_state)
    for o in got:
        assert after[o][0] is S.ACQUIRED, (o, after.get(o))


def accept(offsets: set[int]) -> list[AckBatch]:
    """Accept ``offsets``: one range for each run of consecutive ones."""
    out: list[AckBatch] = []
    for o in sorted(offsets):
        if out and out[-1].last == o - 1:
            out[-1].last = o
        else:
            out.append(AckBatch(o, o, [AckType.ACCEPT]))
    return out


def run_sequence(tmp_path: Path, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    h = Counting(tmp_path)
    h.limits = Limits(
        lock_ms=10_000, delivery_limit=rng.choice([2, 3, 5]), max_locks=rng.choice([60, 200])
    )
    h.committed = rng.random() < 0.5
    m = Model()
    in_flight: list[Staged] = []

    def produce(n: int) -> None:
        at = h.log.log_end_offset
        h.produce(n)
        assert h.log.log_end_offset == at + n

    def txn(pid: int, n: int) -> None:
        at = h.log.log_end_offset
        h.txn(pid, n)
        m.open.setdefault(pid, []).extend(range(at, at + n))

    def end(pid: int, commit: bool) -> None:
        # as the engine ends a transaction on a partition: one marker of the producer
        at = h.log.log_end_offset
        h.log.append_marker(pid, 0, commit, now_ms=T0)
        m.markers.add(at)
        offs = m.open.pop(pid)
        if not commit:
            m.aborted.update(offs)

    def complete(staged: Staged) -> str:
        """Make ``staged`` durable; the name of the move it makes."""
        for run in staged.runs:
            if run.target is not None and run.target.state is S.ACKNOWLEDGED:
                m.acked.update(range(run.first, run.last + 1))
        h.sp.complete(staged, h.now, h.limits)
        return MOVES[staged.kind]

    def fetch(member: str, n: int, record_limit: bool, max_bytes: int) -> set[int]:
        bound = h.bound()
        idle = (
            not h.sp.has_work(h.now, bound, h.limits.max_locks)
            and h.log.log_start_offset <= h.sp.start_offset
        )
        got = h.fetch(member, n, record_limit=record_limit, max_bytes=max_bytes)
        offs = [r.offset for r, _ in got.records]
        check_fetched(h, m, offs, bound)
        # a fetch that finds work where has_work saw none would never have been woken
        assert not (idle and offs), offs
        # a fetch that takes nothing parks until woken: nothing may be left for it to take
        assert offs or not h.sp.has_work(h.now, bound, h.limits.max_locks)
        after = views(h)
        for r, dc in got.records:
            assert after[r.offset] == (S.ACQUIRED, dc), (r.offset, dc, after[r.offset])
        m.delivered.update(offs)
        return set(offs)

    for _ in range(steps):
        before = views(h)
        got: set[int] = set()
        op = rng.random()
        name = "other"
        if op < 0.10:
            produce(rng.randint(1, 8))
        elif op < 0.22:
            txn(rng.choice(PIDS), rng.randint(1, 6))
        elif op < 0.30 and m.open:
            end(rng.choice(sorted(m.open)), rng.random() < 0.5)
        elif op < 0.32:
            at = h.log.log_end_offset
            h.marker()
            m.markers.add(at)
        elif op < 0.37:
            h.committed = not h.committed  # the group's isolation level, applied from now on
        elif op < 0.60:
            name = "fetch"
            got = fetch(
                rng.choice(MEMBERS),
                rng.randint(1, 20),
                rng.random() < 0.5,
                rng.choice([1 << 30, 1 << 30, 30]),
            )
        elif op < 0.78 and h.sp.end_offset > h.sp.start_offset:
            held = [
                r
                for r in h.sp.runs
                if r.state is S.ACQUIRED and r.pending is None and r.last >= h.sp.start_offset
            ]
            member = rng.choice(MEMBERS)
            if held and rng.random() < 0.7:  # mostly what a member holds, as clients do
                run = rng.choice(held)
                member = run.member or member
                lo = rng.randint(max(run.first, h.sp.start_offset), run.last)
                hi = min(lo + rng.randint(0, 8), run.last)
            else:
                lo = rng.randrange(h.sp.start_offset, h.sp.end_offset)
                hi = min(lo + rng.randint(0, 6), h.sp.end_offset - 1)
            kinds = list(AckType)
            types = (
                [rng.choice(kinds)]
                if rng.random() < 0.5
                else [rng.choice(kinds) for _ in range(hi - lo + 1)]
            )
            runs = [(r.first, r.last, r.state, r.delivery_count) for r in h.sp.runs]
            try:
                staged = h.sp.acknowledge(
                    member,
                    [AckBatch(lo, hi, types, delay_ms=rng.choice([0, 0, 3000]))],
                    now=h.now,
                    limits=h.limits,
                )
            except SluiceError as e:
                # a client's error (4xx), and all or nothing: a refused acknowledgement
                # changes nothing, cuts nothing
                assert isinstance(e, Conflict | InvalidRequest), e
                assert [(r.first, r.last, r.state, r.delivery_count) for r in h.sp.runs] == runs
                staged = None
            if staged is not None:
                in_flight.append(staged)
        elif op < 0.88 and in_flight:
            staged = in_flight.pop(rng.randrange(len(in_flight)))
            if rng.random() < 0.85:
                name = complete(staged)
            else:
                again = h.sp.rollback(staged, h.now, h.limits)
                if again is not None:
                    in_flight.append(again)
        elif op < 0.90:
            advance_log_start(h, rng)
        elif op < 0.96:
            expire_due_locks(h, rng, in_flight)
        else:
            staged = h.sp.release_member(rng.choice(MEMBERS))
            if staged is not None:
                in_flight.append(staged)
        # staged changes show as before until completed; expiries and leaving complete there
        check_moves(h, m, name, before, views(h), got)
        check_invariants(h, m.acked)
        check_reload(h)

    # every transaction ends, every change is made durable and every lock expires: a member
    # that accepts all it gets then drains the partition to its end, under either level
    for pid in sorted(m.open):
        end(pid, rng.random() < 0.5)
    for staged in in_flight:
        before = views(h)
        name = complete(staged)
        check_moves(h, m, name, before, views(h), set())
    h.now += 10 * h.limits.lock_ms
    for item in h.heap.pop_due(h.now):
        if isinstance(item, Lock):
            staged = item.partition.expire_lock(item, h.now, h.limits)
            if staged is not None:
                before = views(h)
                name = complete(staged)
                check_moves(h, m, name, before, views(h), set())
    for _ in range(1000):
        before = views(h)
        window = (h.sp.start_offset, h.sp.end_offset)
        got = fetch("a", 50, False, 1 << 30)
        check_moves(h, m, "fetch", before, views(h), got)
        if not got:
            if window == (h.sp.start_offset, h.sp.end_offset):
                break
            continue  # only gaps passed: the window moved on past them
        before = views(h)
        staged = h.sp.acknowledge("a", accept(got), now=h.now, limits=h.limits)
        assert staged is not None
        complete(staged)
        check_moves(h, m, "complete", before, views(h), set())
        check_invariants(h, m.acked)
    assert h.sp.start_offset == h.sp.end_offset == h.log.log_end_offset
    assert h.sp.runs == []


@pytest.mark.parametrize("seed", range(100))
def test_random_operations_with_transactions_and_isolation_switches(
    tmp_path: Path, seed: int
) -> None:
    run_sequence(tmp_path, seed, 200)
