"""The consumer-group state machines: transition table, epoch rule, reconciliation."""

from __future__ import annotations

import itertools
import random

import pytest

from app.errors import ErrorCode, SluiceError
from app.groups.state import (
    VALID_PREVIOUS,
    GroupState,
    Member,
    MemberState,
    TopicPartition,
    check_member_epoch,
    confirm_revocation,
    derive_group_state,
    new_member,
    reconcile,
)
from app.states import IllegalTransition, validate_transition

S = GroupState

EXPECTED_EDGES = {
    (S.EMPTY, S.ASSIGNING),
    (S.EMPTY, S.RECONCILING),
    (S.EMPTY, S.STABLE),
    (S.EMPTY, S.DEAD),
    (S.ASSIGNING, S.EMPTY),
    (S.ASSIGNING, S.RECONCILING),
    (S.ASSIGNING, S.STABLE),
    (S.RECONCILING, S.EMPTY),
    (S.RECONCILING, S.ASSIGNING),
    (S.RECONCILING, S.STABLE),
    (S.STABLE, S.EMPTY),
    (S.STABLE, S.ASSIGNING),
    (S.STABLE, S.RECONCILING),
}


@pytest.mark.parametrize(("current", "target"), list(itertools.product(S, S)))
def test_every_pair_of_group_states(current: GroupState, target: GroupState) -> None:
    legal = (current, target) in EXPECTED_EDGES or (current is target and current is not S.DEAD)
    if legal:
        assert validate_transition(VALID_PREVIOUS, current, target) is target
    else:
        with pytest.raises(IllegalTransition):
            validate_transition(VALID_PREVIOUS, current, target)


def test_the_table_has_exactly_the_expected_edges() -> None:
    edges = {(prev, target) for target, prevs in VALID_PREVIOUS.items() for prev in prevs}
    staying = {(s, s) for s in S if s is not S.DEAD}  # a live state may stay as it is
    assert edges == EXPECTED_EDGES | staying
    assert set(VALID_PREVIOUS) == set(S)


def test_states_are_spelled_as_kafka_spells_them() -> None:
    assert [s.value for s in S] == ["Empty", "Assigning", "Reconciling", "Stable", "Dead"]


def member(
    epoch: int = 5,
    previous: int = 4,
    assigned: frozenset[TopicPartition] = frozenset(),
    revoking: frozenset[TopicPartition] = frozenset(),
    state: MemberState = MemberState.STABLE,
) -> Member:
    return Member("m", None, epoch, previous, state, ("t",), 1000, assigned, revoking, None)


@pytest.mark.parametrize("received", range(-1, 9))
def test_member_epoch_rule(received: int) -> None:
    m = member(epoch=5, previous=3)
    if received in (5, 3):
        check_member_epoch(m, received)
    else:
        with pytest.raises(SluiceError) as info:
            check_member_epoch(m, received)
        assert info.value.code is ErrorCode.FENCED_MEMBER_EPOCH


def test_the_previous_epoch_is_fenced_when_it_owns_more_than_its_assignment() -> None:
    m = member(epoch=5, previous=3, assigned=tps(0, 1))
    check_member_epoch(m, 3, tps(0))
    check_member_epoch(m, 3, tps(0, 1))
    check_member_epoch(m, 5, tps(0, 1, 2))  # the current epoch: reconciliation handles it
    with pytest.raises(SluiceError) as info:
        check_member_epoch(m, 3, tps(0, 2))
    assert info.value.code is ErrorCode.FENCED_MEMBER_EPOCH


def test_a_temporarily_left_static_member_is_fenced_at_every_positive_epoch() -> None:
    m = member(epoch=-2, previous=7)
    for received in (1, 6, 7, 8):
        with pytest.raises(SluiceError):
            check_member_epoch(m, received)


def tps(*ps: int, topic: str = "t") -> frozenset[TopicPartition]:
    return frozenset((topic, p) for p in ps)


def test_derive_group_state() -> None:
    assert derive_group_state({}, 3, 3) is S.EMPTY
    stable = member(epoch=3, previous=2)
    assert derive_group_state({"m": stable}, 3, 3) is S.STABLE
    assert derive_group_state({"m": stable}, 4, 3) is S.ASSIGNING
    assert derive_group_state({"m": member(epoch=2)}, 3, 3) is S.RECONCILING
    waiting = member(epoch=3, state=MemberState.UNRELEASED_PARTITIONS)
    assert derive_group_state({"m": waiting}, 3, 3) is S.RECONCILING
    away = member(epoch=-2, previous=1)
    assert derive_group_state({"m": stable, "s": away}, 3, 3) is S.STABLE


def test_a_new_member_gets_its_whole_target_at_the_target_epoch() -> None:
    m = new_member("m", None, ["t", "t"], 1000, None)
    assert m.subscribed == ("t",)
    out = reconcile(m, tps(0, 1), 4, frozenset())
    assert (out.epoch, out.previous_epoch, out.assigned, out.state) == (
        4,
        0,
        tps(0, 1),
        MemberState.STABLE,
    )


def test_partitions_owned_by_others_wait() -> None:
    out = reconcile(new_member("m", None, ["t"], 1000, None), tps(0, 1), 4, tps(1))
    assert out.assigned == tps(0)
    assert out.epoch == 4
    assert out.state is MemberState.UNRELEASED_PARTITIONS
    later = reconcile(out, tps(0, 1), 4, frozenset())
    assert later.assigned == tps(0, 1) and later.state is MemberState.STABLE
    assert later.previous_epoch == 0  # the epoch did not move again


def test_revocation_keeps_the_epoch_until_confirmed() -> None:
    m = member(epoch=4, previous=3, assigned=tps(0, 1, 2))
    out = reconcile(m, tps(0), 5, frozenset())
    assert out.assigned == tps(0)
    assert out.revoking == tps(1, 2)
    assert out.owned == tps(0, 1, 2)
    assert out.epoch == 4 and out.state is MemberState.UNREVOKED_PARTITIONS
    # heartbeating again without confirming keeps it there
    assert reconcile(out, tps(0), 5, frozenset()) == out
    done = reconcile(confirm_revocation(out), tps(0), 5, frozenset())
    assert (done.epoch, done.previous_epoch, done.assigned, done.revoking, done.state) == (
        5,
        4,
        tps(0),
        frozenset(),
        MemberState.STABLE,
    )


def test_confirm_without_revocation_is_the_same_member() -> None:
    m = member(assigned=tps(0))
    assert confirm_revocation(m) is m


def test_no_partition_is_ever_owned_twice_under_random_schedules() -> None:
    """Random targets and heartbeat orders: owned sets stay disjoint; everyone converges."""
    rng = random.Random(7)
    for _ in range(200):
        ids = [f"m{i}" for i in range(rng.randint(1, 4))]
        members = {i: new_member(i, None, ["t"], 1000, None) for i in ids}
        epoch = 0
        for _round in range(rng.randint(1, 5)):
            epoch += 1
            parts = list(range(rng.randint(0, 8)))
            rng.shuffle(parts)
            targets: dict[str, frozenset[TopicPartition]] = {i: frozenset() for i in ids}
            for k, p in enumerate(parts):
                targets[ids[k % len(ids)]] |= tps(p)
            for _step in range(rng.randint(0, 6)):
                i = rng.choice(ids)
                m = members[i]
                if rng.random() < 0.5:
                    m = confirm_revocation(m)
                others = frozenset().union(*(o.owned for j, o in members.items() if j != i))
                members[i] = reconcile(m, targets[i], epoch, others)
                owned = [o.owned for o in members.values()]
                assert sum(len(o) for o in owned) == len(frozenset().union(*owned))
        for _ in range(3):  # everyone heartbeats and confirms: all converge
            for i in ids:
                others = frozenset().union(*(o.owned for j, o in members.items() if j != i))
                members[i] = reconcile(confirm_revocation(members[i]), targets[i], epoch, others)
        for i in ids:
            assert members[i].assigned == targets[i]
            assert members[i].epoch == epoch
        assert derive_group_state(members, epoch, epoch) is S.STABLE
