"""The partition's view of acquisitions by id (the runs one lock still holds) and the index of
one group's acquisitions, over a real partition log; time moves only when told."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.share.acquisitions import AcquisitionBook, is_acquisition, owner_of
from app.share.group_config import GroupConfig
from app.share.membership import ShareGroup
from app.share.partition import AckType, Lock
from tests.unit.share.test_partition import Harness

A, R = AckType.ACCEPT, AckType.RELEASE


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def book() -> AcquisitionBook:
    return AcquisitionBook(ShareGroup("g", {}, GroupConfig.effective({}, Settings()), 0))


def lock_of(h: Harness, owner: str, n: int) -> Lock:
    got = h.fetch(owner, n, record_limit=True)
    assert got.lock is not None and got.lock.member == owner
    return got.lock


def test_owners_are_never_member_ids_and_name_their_principal() -> None:
    assert owner_of(None, "run1:0:0") == "acquisition:/run1:0:0"
    assert owner_of("alice", "run1:0:0") == "acquisition:alice/run1:0:0"
    assert owner_of("alice", "x") != owner_of("bob", "x") != owner_of(None, "x")
    assert is_acquisition(owner_of("alice", "x")) and not is_acquisition("0f3a9c")


def test_a_fetch_answers_its_lock_and_none_without_records(h: Harness) -> None:
    assert h.fetch("m").lock is None
    h.produce(3)
    lock = lock_of(h, "m", 3)
    assert (lock.first, lock.last, lock.deadline) == (0, 2, h.now + 30_000)


def test_held_under_follows_acknowledgements_cuts_and_expiry(h: Harness) -> None:
    h.produce(5)
    lock = lock_of(h, owner_of(None, "a"), 5)
    assert h.sp.held_under(lock, h.now) == [(0, 4, 1)]
    h.ack_durable(owner_of(None, "a"), 1, 1, A)
    assert h.sp.held_under(lock, h.now) == [(0, 0, 1), (2, 4, 1)]
    staged = h.ack(owner_of(None, "a"), 3, 3, R)  # a change in progress is no longer held
    assert h.sp.held_under(lock, h.now) == [(0, 0, 1), (2, 2, 1), (4, 4, 1)]
    assert h.sp.under_lock(lock)
    assert staged is not None
    h.sp.complete(staged, h.now, h.limits)
    assert h.sp.acquired_by(is_acquisition, h.now) == 3
    assert h.sp.acquired_by(lambda m: m == "someone", h.now) == 0
    h.now += 29_999
    assert h.sp.held_under(lock, h.now) == [(0, 0, 1), (2, 2, 1), (4, 4, 1)]
    h.now += 1  # the deadline: nothing is held any more, though the expiry is not written yet
    assert h.sp.held_under(lock, h.now) == [] and h.sp.acquired_by(is_acquisition, h.now) == 0
    assert h.sp.under_lock(lock)
    h.advance(0)
    assert not h.sp.under_lock(lock)


def test_the_book_finds_holdings_through_locks_and_forgets_what_holds_nothing(
    h: Harness,
) -> None:
    h.produce(6)
    b = book()
    for name in ("run1:0:0", "run1:0:1", "run2:0:0"):
        b.add(owner_of("al", name), [lock_of(h, owner_of("al", name), 2)])
    assert b.ids("al", None, "run1:") == ["run1:0:0", "run1:0:1"]
    assert b.ids("al", None, None) == ["run1:0:0", "run1:0:1", "run2:0:0"]
    assert b.ids("al", ["run2:0:0", "nope", "run2:0:0"], None) == ["run2:0:0"]
    # another principal sees none of them, by id or by prefix (a principal whose name starts
    # with another's included)
    for other in ("alice", None, "a"):
        assert b.ids(other, None, None) == []
        assert b.ids(other, ["run1:0:0"], None) == []
    [held] = b.holdings(owner_of("al", "run1:0:1"), h.now)
    assert (held.partition, held.runs, held.records) == (h.sp, [(2, 3, 1)], 2)
    h.ack_durable(owner_of("al", "run1:0:1"), 2, 3, A)
    assert b.holdings(owner_of("al", "run1:0:1"), h.now) == []
    assert owner_of("al", "run1:0:1") not in b.entries  # dropped at the lookup
    h.now += 30_000
    b.prune(h.now)  # every deadline passed: dropped without a lookup
    assert b.entries == {}
    assert b.holdings(owner_of("al", "run1:0:0"), h.now) == []
