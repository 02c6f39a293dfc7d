"""Membership planning on a Draft, without I/O: what a heartbeat changes and what it leaves."""

from __future__ import annotations

import pytest

from app.errors import ErrorCode, SluiceError
from app.groups.group import Draft, Group
from app.groups.membership import HeartbeatRequest, expire, plan_heartbeat
from app.groups.state import GroupState

TOPICS = {"t": (7, 4)}


def lookup(name: str) -> tuple[int, int] | None:
    return TOPICS.get(name)


def beat(
    g: Group,
    member: str | None,
    epoch: int,
    *,
    instance: str | None = None,
    topics: list[str] | None = None,
    max_size: int = 10,
) -> tuple[str, Draft]:
    draft = Draft(g)
    if epoch == 0 and topics is None:
        topics = ["t"]
    mid = plan_heartbeat(
        draft,
        HeartbeatRequest(member, epoch, instance, topics, None, None),
        principal=None,
        max_size=max_size,
        lookup=lookup,
    )
    return mid, draft


def install(g: Group, member: str | None, epoch: int) -> str:
    mid, draft = beat(g, member, epoch)
    g.persisted = True
    draft.install()
    return mid


def test_a_join_plans_the_member_the_epoch_and_the_target() -> None:
    g = Group("g", 0)
    mid, draft = beat(g, None, 0)
    assert len(mid) == 32
    assert g.members == {} and g.epoch == 0  # nothing installed yet
    change = draft.change()
    assert change is not None and change.group_epoch == 1 and not change.removals
    assert [r.member_id for r in change.upserts] == [mid]
    assert change.upserts[0].target == frozenset(("t", p) for p in range(4))
    draft.install()
    assert g.state is GroupState.STABLE


def test_a_steady_heartbeat_changes_nothing_to_persist() -> None:
    g = Group("g", 0)
    install(g, "a", 0)
    _, draft = beat(g, "a", 1)
    assert draft.change() is None


def test_a_refused_heartbeat_leaves_the_group_alone() -> None:
    g = Group("g", 0)
    install(g, "a", 0)
    before = (dict(g.members), g.epoch, dict(g.targets))
    for member, epoch, code in (
        ("a", 5, ErrorCode.FENCED_MEMBER_EPOCH),
        ("zz", 1, ErrorCode.UNKNOWN_MEMBER_ID),
    ):
        with pytest.raises(SluiceError) as info:
            beat(g, member, epoch)
        assert info.value.code is code
    with pytest.raises(SluiceError) as info:
        beat(g, None, 0, max_size=1)
    assert info.value.code is ErrorCode.GROUP_MAX_SIZE_REACHED
    assert (g.members, g.epoch, g.targets) == before


def test_expiry_removes_and_the_bump_reassigns() -> None:
    g = Group("g", 0)
    install(g, "a", 0)
    install(g, "b", 0)
    g.session_deadlines = {"a": 100, "b": 50}
    draft = Draft(g)
    expire(draft, 60)
    assert draft.removed == {"b"}
    assert draft.membership_changed
