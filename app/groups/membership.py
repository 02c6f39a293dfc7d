"""Planning a membership change on a ``Draft``: synchronous, no I/O.

The coordinator takes the group's lock, plans here, makes the draft durable, then installs
it. Every rule of a heartbeat lives here: join (with static-member replacement), leave,
temporary leave, epoch checks, the epoch bump with a new target assignment, and the member's
reconciliation step (``app.groups.state.reconcile``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from app.errors import Conflict, ErrorCode, InvalidRequest, NotFound, SluiceError
from app.groups.assignor import Subscriber, assign
from app.groups.group import Draft
from app.groups.state import (
    JOIN_EPOCH,
    LEAVE_EPOCH,
    STATIC_LEAVE_EPOCH,
    Member,
    TopicPartition,
    check_member_epoch,
    confirm_revocation,
    new_member,
    reconcile,
)

log = logging.getLogger("sluice.groups")

DEFAULT_REBALANCE_TIMEOUT_MS = 300_000

TopicLookup = Callable[[str], "tuple[int, int] | None"]
"""Topic name → (topic id, partition count), or None when it does not exist."""


@dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    member_id: str | None
    member_epoch: int
    instance_id: str | None
    subscribed: Sequence[str] | None
    rebalance_timeout_ms: int | None
    owned: frozenset[TopicPartition] | None


def owned_member(
    members: dict[str, Member], group_id: str, member_id: str | None, principal: str | None
) -> Member:
    """The member ``member_id`` of ``principal``: a member another principal joined is unknown
    to this one (docs/security.md#ownership)."""
    m = members.get(member_id) if member_id is not None else None
    if m is None or m.principal != principal:
        raise unknown_member(group_id, member_id)
    return m


def unknown_member(group_id: str, member_id: str | None) -> NotFound:
    return NotFound(
        ErrorCode.UNKNOWN_MEMBER_ID, f"member {member_id!r} is not a member of group {group_id!r}"
    )


def expire(draft: Draft, now_ms: int) -> None:
    """Remove members past their session or revocation deadline."""
    for mid in draft.group.expired(now_ms):
        log.info(
            "group %s: member %s removed (session or revocation timeout)", draft.group.group_id, mid
        )
        draft.remove(mid)


def maybe_bump(draft: Draft, lookup: TopicLookup) -> None:
    """A membership, subscription or topic change bumps the epoch and recomputes targets."""
    names = sorted({t for m in draft.members.values() for t in m.subscribed})
    topics = {name: meta for name in names if (meta := lookup(name)) is not None}
    if not draft.membership_changed and topics == draft.topics:
        return
    draft.epoch += 1
    draft.topics = topics
    targets = assign(
        [
            Subscriber(m.member_id, m.instance_id or m.member_id, frozenset(m.subscribed))
            for m in draft.members.values()
        ],
        {name: count for name, (_, count) in topics.items()},
    )
    for mid, target in targets.items():
        draft.set_target(mid, target)
    draft.target_epoch = draft.epoch
    draft.membership_changed = False


def plan_heartbeat(
    draft: Draft,
    req: HeartbeatRequest,
    *,
    principal: str | None,
    max_size: int,
    lookup: TopicLookup,
) -> str:
    """Apply one heartbeat of ``principal`` to ``draft``; answers the member id. Raises
    ``SluiceError`` (the draft is then discarded by the caller)."""
    if req.member_epoch == JOIN_EPOCH:
        mid = _join(draft, req, principal, max_size)
    else:
        assert req.member_id is not None
        mid = req.member_id
        member = owned_member(draft.members, draft.group.group_id, mid, principal)
        if req.instance_id is not None and member.instance_id != req.instance_id:
            raise Conflict(
                ErrorCode.FENCED_INSTANCE_ID, f"member {mid!r} is not instance {req.instance_id!r}"
            )
        if req.member_epoch == LEAVE_EPOCH:
            draft.remove(mid)
        elif req.member_epoch == STATIC_LEAVE_EPOCH:
            if member.instance_id is None:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST, "member_epoch -2 is for static members only"
                )
            if not member.left_temporarily:
                # it stopped working on everything: what it was revoking is released; it
                # keeps its assignment until it rejoins or its session ends
                draft.put(
                    replace(
                        confirm_revocation(member),
                        epoch=STATIC_LEAVE_EPOCH,
                        previous_epoch=member.epoch,
                    )
                )
        else:
            check_member_epoch(member, req.member_epoch, req.owned)
            draft.put(_update_subscription(draft, member, req))
    maybe_bump(draft, lookup)
    if req.member_epoch not in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
        _reconcile(draft, mid, req.owned)
    return mid


def _join(draft: Draft, req: HeartbeatRequest, principal: str | None, max_size: int) -> str:
    member_id, instance_id = req.member_id, req.instance_id
    if instance_id is not None:
        holder = next((m for m in draft.members.values() if m.instance_id == instance_id), None)
        if holder is not None and holder.principal != principal:
            # a static member is never taken over by another principal, even while away
            raise Conflict(
                ErrorCode.UNRELEASED_INSTANCE_ID,
                f"instance {instance_id!r} is held by another principal's member",
            )
        if holder is not None and holder.member_id != member_id:
            if not holder.left_temporarily:
                raise Conflict(
                    ErrorCode.UNRELEASED_INSTANCE_ID,
                    f"instance {instance_id!r} is held by live member {holder.member_id!r}",
                )
            # a static member coming back: a new member id takes over its epoch and
            # partitions (no rebalance unless its subscription changed)
            new_id = member_id or uuid.uuid4().hex
            if new_id in draft.members:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST, f"member id {new_id!r} is already in use"
                )
            changed = draft.membership_changed
            draft.remove(holder.member_id)
            draft.membership_changed = changed
            target = draft.group.targets.get(holder.member_id, frozenset())
            successor = replace(holder, member_id=new_id, epoch=holder.previous_epoch)
            draft.put(_update_subscription(draft, successor, req))
            draft.set_target(new_id, target)
            return new_id
    existing = draft.members.get(member_id) if member_id is not None else None
    if existing is not None and existing.principal != principal:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"member_id {member_id!r} is in use in group {draft.group.group_id!r}; choose another",
        )
    if existing is not None:
        if existing.instance_id != instance_id:
            raise Conflict(
                ErrorCode.FENCED_INSTANCE_ID,
                f"member {member_id!r} is bound to instance {existing.instance_id!r}",
            )
        # a rejoin: the member lost its state; it starts over at epoch 0 with nothing
        rejoined = replace(
            existing,
            epoch=JOIN_EPOCH,
            previous_epoch=JOIN_EPOCH,
            assigned=frozenset(),
            revoking=frozenset(),
        )
        draft.put(_update_subscription(draft, rejoined, req))
        return existing.member_id
    if len(draft.members) >= max_size:
        raise SluiceError(
            ErrorCode.GROUP_MAX_SIZE_REACHED,
            f"group {draft.group.group_id!r} has reached its limit of {max_size} members",
        )
    mid = member_id or uuid.uuid4().hex
    timeout = (
        DEFAULT_REBALANCE_TIMEOUT_MS
        if req.rebalance_timeout_ms is None
        else req.rebalance_timeout_ms
    )
    draft.put(new_member(mid, instance_id, req.subscribed or (), timeout, principal))
    draft.membership_changed = True
    return mid


def _update_subscription(draft: Draft, member: Member, req: HeartbeatRequest) -> Member:
    if req.rebalance_timeout_ms is not None:
        member = replace(member, rebalance_timeout_ms=req.rebalance_timeout_ms)
    if req.subscribed is not None:
        topics = tuple(sorted(set(req.subscribed)))
        if topics != member.subscribed:
            member = replace(member, subscribed=topics)
            draft.membership_changed = True
    return member


def _reconcile(draft: Draft, member_id: str, owned: frozenset[TopicPartition] | None) -> None:
    m = draft.members[member_id]
    if m.revoking and (owned is None or not owned & m.revoking):
        m = confirm_revocation(m)
    target = draft.targets.get(member_id, frozenset())
    draft.put(reconcile(m, target, draft.target_epoch, draft.owned_by_others(member_id)))
