"""Consumer-group state machines (KIP-848 style): pure rules, no I/O.

Three things live here:

- ``GroupState`` and its table of legal previous states. The state is derived from membership
  (``derive_group_state``) and every change goes through ``app.states.validate_transition``.
- ``check_member_epoch``: the heartbeat's epoch rule (KIP-848 ``throwIfMemberEpochIsInvalid``).
- ``reconcile``: one member's step towards its target assignment. A partition is never owned by
  two members at once from the server's point of view: a partition taken from a member is first
  *revoking* (still owned: the member was told to stop working on it), and is released only when
  that member heartbeats again (which confirms it saw the answer), leaves or is removed. Only
  then may the new owner receive it. ``MemberState`` names where a member stands.

A member's epoch moves to the group's target epoch only once it owns nothing outside its target
(Kafka's rule): while it still has partitions to give up it keeps its old epoch.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from app.errors import Conflict, ErrorCode

TopicPartition = tuple[str, int]

LEAVE_EPOCH = -1
"""Member epoch of a leave request."""
STATIC_LEAVE_EPOCH = -2
"""Member epoch of a static member's temporary leave (it keeps its partitions until timeout)."""
JOIN_EPOCH = 0


class GroupState(enum.Enum):
    """States as Kafka spells them. ``Assigning`` exists in Kafka when the target assignment
    lags the group epoch; Sluice computes the target synchronously with every epoch bump, so
    a group passes through it only within one synchronous step and it is never observed."""

    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


_LIVE = frozenset(
    {GroupState.EMPTY, GroupState.ASSIGNING, GroupState.RECONCILING, GroupState.STABLE}
)

# target state → the states it may be reached from (a live state may also stay as it is)
VALID_PREVIOUS: dict[GroupState, frozenset[GroupState]] = {
    # the last member leaves or is removed
    GroupState.EMPTY: _LIVE,
    # a membership, subscription or metadata change starts a new round
    GroupState.ASSIGNING: _LIVE,
    # members move to their targets (the first member may join straight into it)
    GroupState.RECONCILING: _LIVE,
    # every member owns its target (the first member may at once own its whole target)
    GroupState.STABLE: _LIVE,
    # the group is deleted, only when empty; terminal: a deleted group never comes back (a new
    # group of the same name is a new object)
    GroupState.DEAD: frozenset({GroupState.EMPTY}),
}


class MemberState(enum.Enum):
    STABLE = "stable"
    """Owns exactly its target at the group's target epoch."""
    UNREVOKED_PARTITIONS = "unrevoked_partitions"
    """Was told to give up partitions; they stay its own until its next heartbeat."""
    UNRELEASED_PARTITIONS = "unreleased_partitions"
    """At the target epoch, waiting for partitions other members still own or revoke."""


@dataclass(frozen=True, slots=True)
class Member:
    member_id: str
    instance_id: str | None
    epoch: int
    previous_epoch: int
    state: MemberState
    subscribed: tuple[str, ...]
    rebalance_timeout_ms: int
    assigned: frozenset[TopicPartition]
    """What the member may work on: answered in every heartbeat."""
    revoking: frozenset[TopicPartition]
    """Taken away but not yet confirmed: still owned, never given to another member."""
    principal: str | None
    """Who joined it (None: a server without keys); nobody else may act as the member."""

    @property
    def owned(self) -> frozenset[TopicPartition]:
        return self.assigned | self.revoking

    @property
    def left_temporarily(self) -> bool:
        return self.epoch == STATIC_LEAVE_EPOCH


def new_member(
    member_id: str,
    instance_id: str | None,
    subscribed: Iterable[str],
    rebalance_timeout_ms: int,
    principal: str | None,
) -> Member:
    return Member(
        member_id,
        instance_id,
        JOIN_EPOCH,
        JOIN_EPOCH,
        MemberState.STABLE,
        tuple(sorted(set(subscribed))),
        rebalance_timeout_ms,
        frozenset(),
        frozenset(),
        principal,
    )


def check_member_epoch(
    member: Member, received: int, owned: frozenset[TopicPartition] | None = None
) -> None:
    """The epoch a heartbeat (epoch > 0) carries against the member's (KIP-848).

    Equal: fine. The previous epoch: fine (the member missed the answer that moved it on; it
    is answered again), unless the member says it owns partitions outside its assignment.
    Anything else, ahead or older: ``FENCED_MEMBER_EPOCH``: the member must drop its
    partitions and rejoin with epoch 0.
    """
    if received == member.epoch:
        return
    if (
        received == member.previous_epoch
        and received < member.epoch
        and (owned is None or owned <= member.assigned)
    ):
        return
    raise Conflict(
        ErrorCode.FENCED_MEMBER_EPOCH,
        f"member epoch {received} is fenced: the member's epoch is {member.epoch}; "
        "rejoin with member_epoch 0",
    )


def derive_group_state(
    members: Mapping[str, Member], group_epoch: int, target_epoch: int
) -> GroupState:
    if not members:
        return GroupState.EMPTY
    if target_epoch < group_epoch:
        return GroupState.ASSIGNING
    for m in members.values():
        if m.left_temporarily:
            continue
        if m.state is not MemberState.STABLE or m.epoch != target_epoch:
            return GroupState.RECONCILING
    return GroupState.STABLE


def reconcile(
    member: Member,
    target: frozenset[TopicPartition],
    target_epoch: int,
    owned_by_others: frozenset[TopicPartition],
) -> Member:
    """One heartbeat's step of ``member`` towards ``target`` (computed at ``target_epoch``).

    The caller has already released what the member confirmed (see ``confirm_revocation``).
    ``owned_by_others`` is every partition another member owns or is revoking.
    """
    to_revoke = member.assigned - target
    if to_revoke or member.revoking:
        # keep the epoch until the member confirms it stopped working on these
        return replace(
            member,
            assigned=member.assigned & target,
            revoking=member.revoking | to_revoke,
            state=MemberState.UNREVOKED_PARTITIONS,
        )
    grant = (target - member.assigned) - owned_by_others
    assigned = member.assigned | grant
    previous = member.previous_epoch if member.epoch == target_epoch else member.epoch
    state = MemberState.STABLE if assigned == target else MemberState.UNRELEASED_PARTITIONS
    return replace(
        member, epoch=target_epoch, previous_epoch=previous, assigned=assigned, state=state
    )


def confirm_revocation(member: Member) -> Member:
    """The member heartbeated after being told to revoke: what it gave up is released."""
    if not member.revoking:
        return member
    return replace(member, revoking=frozenset())
