"""The seam's share groups (``app.engine.share.ShareGroups`` and ``ShareMembership``) on a
gateway: what the HTTP routes ask of share-group members, over ``KafkaShareGroups``.

What this adds to Kafka's protocol (docs/kafka.md#share-groups):

- **Members belong to a principal.** On a server with keys, the member ids the gateway
  chooses start with a digest of the principal that joined them, as consumer groups' do
  (``app.kafka.groups.owned_by``); another principal's member is answered
  ``UNKNOWN_MEMBER_ID``, as on the embedded engine.
- **A fetch keeps its member alive.** Kafka counts heartbeats only; an HTTP member may fetch
  without heartbeating. Before a fetch, the gateway heartbeats for the member when the
  coordinator's heartbeat interval has passed since the last one, which also brings the
  member's assignment up to date.
- **A long poll keeps its member alive too.** While a fetch waits longer than the member's
  heartbeat interval, the gateway heartbeats for the member at that interval, so that a poll
  longer than the group's session timeout does not lose it.
- **A fetch may join.** A fetch without a member id joins with its subscription first. The
  coordinator may answer a join before it has assigned partitions; the gateway heartbeats
  again (within the fetch's wait) until the member has some. So does a fetch of a member that
  has none yet, rather than answer at once.

Members live in the gateway that joined them (their share sessions are bound to its
connections), and the member ids it chooses name it: after the principal's digest, the
gateway's id and a dash (``app.kafka.gateways``). A request for a member that another gateway
holds is forwarded there before it reaches this module (``app.kafka.forward``); one that
reaches it for a member this gateway does not hold is answered ``UNKNOWN_MEMBER_ID``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import secrets
import uuid
from collections import Counter
from typing import TYPE_CHECKING

from app.clock import Clock
from app.errors import ErrorCode, InvalidRequest, NotFound, SluiceError
from app.kafka.groups import owned_by, principal_digest
from app.kafka.protocol.errors import ProtocolError
from app.kafka.share import KafkaMember, KafkaShareGroups, check_delays
from app.share.coordinator import AckRequest, FetchAnswer, PartitionKey
from app.share.membership import Member, ShareGroup
from app.topics import validate_name

if TYPE_CHECKING:
    from app.kafka.push import KafkaPushSession

log = logging.getLogger("sluice.kafka.share_members")

JOIN_EPOCH = 0
LEAVE_EPOCH = -1
# how often a join that has no partitions yet asks again, within the fetch's wait
ASSIGNMENT_POLL_S = 0.05
MIN_BEAT_MS = 100  # heartbeats during a wait, at most this often (Kafka allows 100 ms at least)
REAP_EVERY_S = 5.0  # how often members whose client went away are looked for
MAX_MEMBER_ID = 36  # characters: Kafka's bound on a share-group member id


ANONYMOUS_MEMBER_ID = 32  # characters of a member id the gateway chooses without keys
# the part of a member id after its principal's digest that names the gateway holding it
_GATEWAY_PART = re.compile(r"([0-9a-f]{6})-[0-9a-f]+")


def new_member_id(principal: str | None, gateway_id: str | None = None) -> str:
    """A member id for a join: 32 hex digits, or the principal's digest, a dot and 19 hex
    digits (Kafka refuses share-group member ids longer than 36 characters). With
    ``gateway_id``, the random digits start with it and a dash: the member's requests that
    reach another gateway are forwarded to this one."""
    if principal is None and gateway_id is None:
        return uuid.uuid4().hex
    prefix = "" if principal is None else principal_digest(principal) + "."
    if gateway_id is not None:
        prefix += gateway_id + "-"
    size = MAX_MEMBER_ID if principal is not None else ANONYMOUS_MEMBER_ID
    return prefix + secrets.token_hex(size)[: size - len(prefix)]


def gateway_of(member_id: str) -> str | None:
    """The id of the gateway that chose ``member_id``, or None for an id that names none (a
    client's own, or one chosen before gateways named themselves in it)."""
    m = _GATEWAY_PART.fullmatch(member_id.rpartition(".")[2])
    return None if m is None else m.group(1)


def unknown_member(group_id: str, member_id: str) -> NotFound:
    return NotFound(
        ErrorCode.UNKNOWN_MEMBER_ID,
        f"share group {group_id!r} has no member {member_id!r} on this gateway",
    )


def as_member(m: KafkaMember, principal: str | None, now_ms: int) -> Member:
    """The contract's view of a member the gateway holds."""
    return Member(
        m.member_id,
        m.member_epoch,
        list(m.subscribed),
        now_ms,
        principal,
        assignment=sorted((t, list(ps)) for t, ps in m.assignment.items()),
    )


class GatewayShareMembership:
    """``ShareMembership`` on the gateway."""

    def __init__(
        self, kafka: KafkaShareGroups, clock: Clock, gateway_id: str | None = None
    ) -> None:
        self.kafka = kafka
        self.clock = clock
        # named in the member ids chosen here (set once the gateway has announced itself)
        self.gateway_id = gateway_id
        # (group, member) → when the coordinator last answered a heartbeat for it
        self.beats: dict[tuple[str, str], int] = {}
        # (group, member) → when its client last heartbeated, fetched or acknowledged
        self.active: dict[tuple[str, str], int] = {}

    def touch(self, member: KafkaMember) -> None:
        self.active[(member.group_id, member.member_id)] = self.clock.now_ms()

    async def reap(self, idle_ms: int, keep: set[tuple[str, str]]) -> list[tuple[str, str]]:
        """Members (but those of ``keep``) whose client has not heartbeated, fetched or
        acknowledged for ``idle_ms`` leave: Kafka releases what they held, and the gateway
        forgets them and closes their connections. Answers who left."""
        now = self.clock.now_ms()
        idle = [
            key
            for key in list(self.kafka.members)
            if key not in keep and now - self.active.get(key, now) >= idle_ms
        ]
        for group_id, member_id in idle:
            self.active.pop((group_id, member_id), None)
            self.beats.pop((group_id, member_id), None)
            with contextlib.suppress(SluiceError, ProtocolError):
                await self.kafka.leave(group_id, member_id)
        return idle

    def owned(self, group_id: str, member_id: str, principal: str | None) -> KafkaMember:
        member = self.kafka.members.get((group_id, member_id))
        if member is None or not owned_by(member_id, principal):
            raise unknown_member(group_id, member_id)
        return member

    async def heartbeat(
        self,
        group_id: str,
        member_id: str | None,
        member_epoch: int,
        subscribed: list[str] | None,
        principal: str | None,
    ) -> tuple[Member, ShareGroup | None]:
        validate_name(group_id, "group")
        if member_epoch == LEAVE_EPOCH:
            if member_id is None:
                raise InvalidRequest(ErrorCode.INVALID_REQUEST, "leaving needs a member id")
            left = self.owned(group_id, member_id, principal)
            await self.leave(group_id, member_id, principal)
            return as_member(left, principal, self.clock.now_ms()), None
        if member_id is not None and (
            not owned_by(member_id, principal)
            or (member_epoch != JOIN_EPOCH and (group_id, member_id) not in self.kafka.members)
        ):
            raise unknown_member(group_id, member_id)
        if member_epoch == JOIN_EPOCH and member_id is None:
            member_id = new_member_id(principal, self.gateway_id)
        try:
            member = await self.kafka.heartbeat(group_id, member_id, member_epoch, subscribed)
        except SluiceError:
            if member_id is not None:
                self.beats.pop((group_id, member_id), None)
            raise
        self.beats[(group_id, member.member_id)] = self.clock.now_ms()
        self.touch(member)
        return as_member(member, principal, self.clock.now_ms()), None

    async def leave(self, group_id: str, member_id: str, principal: str | None) -> None:
        self.owned(group_id, member_id, principal)
        self.beats.pop((group_id, member_id), None)
        self.active.pop((group_id, member_id), None)
        await self.kafka.leave(group_id, member_id)

    async def subscription(self, group_id: str, member_id: str, principal: str | None) -> list[str]:
        member = self.kafka.members.get((group_id, member_id))
        if member is None or not owned_by(member_id, principal):
            return []
        return list(member.subscribed)

    async def keep_alive(self, member: KafkaMember) -> None:
        """Heartbeat for ``member`` when its interval has passed since the last answer."""
        key = (member.group_id, member.member_id)
        last = self.beats.get(key)
        if last is not None and self.clock.now_ms() - last < member.heartbeat_interval_ms:
            return
        await self.kafka.heartbeat(member.group_id, member.member_id, member.member_epoch, None)
        self.beats[key] = self.clock.now_ms()

    async def beat_while_waiting(self, member: KafkaMember) -> None:
        """Heartbeat for ``member`` at its interval until cancelled (by the end of the fetch
        that waits). A heartbeat that fails ends the beating: the fetch answers what it finds,
        and the member's next request meets the error."""
        while True:
            await asyncio.sleep(max(member.heartbeat_interval_ms, MIN_BEAT_MS) / 1000)
            try:
                await self.keep_alive(member)
            except (SluiceError, ProtocolError):
                log.warning(
                    "heartbeat for %s of %s during a fetch failed",
                    member.member_id,
                    member.group_id,
                    exc_info=True,
                )
                return

    async def join_assigned(
        self, group_id: str, subscribed: list[str], principal: str | None, wait_ms: int
    ) -> KafkaMember:
        """Join with ``subscribed``, then heartbeat until the coordinator has assigned the
        member some partitions or ``wait_ms`` has passed."""
        member, _ = await self.heartbeat(group_id, None, JOIN_EPOCH, subscribed, principal)
        joined = self.kafka.members[(group_id, member.member_id)]
        await self.assigned(joined, wait_ms)
        return joined

    async def assigned(self, member: KafkaMember, wait_ms: int) -> None:
        """Heartbeat until the coordinator has assigned ``member`` some partitions or
        ``wait_ms`` has passed: a fetch of a member without partitions would answer at once,
        and its client would ask again and again."""
        deadline = self.clock.now_ms() + wait_ms
        while not member.assignment and self.clock.now_ms() < deadline:
            await asyncio.sleep(ASSIGNMENT_POLL_S)
            await self.kafka.heartbeat(member.group_id, member.member_id, member.member_epoch, None)
            self.beats[(member.group_id, member.member_id)] = self.clock.now_ms()


class GatewayShareGroups:
    """``ShareGroups`` on the gateway: fetch and acknowledge as a member it holds."""

    def __init__(
        self, kafka: KafkaShareGroups, clock: Clock, consumed: Counter[str] | None = None
    ) -> None:
        self.kafka = kafka
        self.clock = clock
        # records delivered, by topic: the event feed's consume rate
        self.consumed: Counter[str] = Counter() if consumed is None else consumed
        self._membership = GatewayShareMembership(kafka, clock)
        self._stopped = asyncio.Event()
        # (group, member) of the members a push socket consumes: no second socket takes them
        self.pushed: set[tuple[str, str]] = set()

    @property
    def membership(self) -> GatewayShareMembership:
        return self._membership

    @property
    def stopping(self) -> bool:
        return self._stopped.is_set()

    @property
    def stopped(self) -> asyncio.Event:
        return self._stopped

    def open_push(self, group_id: str, max_credits: int, principal: str | None) -> KafkaPushSession:
        """The session of a push socket: a member this gateway runs while the socket lives."""
        from app.kafka.push import KafkaPushSession  # it builds on this module

        return KafkaPushSession(self, group_id, self.clock, max_credits, principal)

    async def fetch(
        self,
        group_id: str,
        member_id: str | None,
        subscribed: list[str] | None,
        *,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        acks: AckRequest,
        principal: str | None,
        max_bytes: int = 50 * 1024 * 1024,
        batches: bool = False,
    ) -> FetchAnswer:
        validate_name(group_id, "group")
        if self.stopping:
            return FetchAnswer(member_id, [], [], 0, [])
        check_delays(acks)  # refused before a join, so that nothing of the request is applied
        membership = self._membership
        if member_id is None:
            if not subscribed:
                raise InvalidRequest(ErrorCode.INVALID_REQUEST, "joining needs subscribed topics")
            # the join's wait for partitions counts toward the fetch's
            started = self.clock.now_ms()
            member = await membership.join_assigned(group_id, subscribed, principal, max_wait_ms)
            max_wait_ms = max(0, max_wait_ms - (self.clock.now_ms() - started))
            try:
                return await self._fetch(
                    member, max_records, max_wait_ms, record_limit, acks, max_bytes, batches
                )
            except BaseException:
                # the client never learns the id of a member joined by a fetch that failed
                with contextlib.suppress(Exception):
                    await membership.leave(group_id, member.member_id, principal)
                raise
        else:
            member = membership.owned(group_id, member_id, principal)
            if subscribed is not None and sorted(subscribed) != sorted(member.subscribed):
                await self.kafka.heartbeat(group_id, member_id, member.member_epoch, subscribed)
            else:
                await membership.keep_alive(member)
            if not member.assignment and max_wait_ms > 0:
                # no partitions yet (just joined, or the assignor gave them all to others): the
                # wait for some counts toward the fetch's
                started = self.clock.now_ms()
                await membership.assigned(member, max_wait_ms)
                max_wait_ms = max(0, max_wait_ms - (self.clock.now_ms() - started))
        return await self._fetch(
            member, max_records, max_wait_ms, record_limit, acks, max_bytes, batches
        )

    async def _fetch(
        self,
        member: KafkaMember,
        max_records: int,
        max_wait_ms: int,
        record_limit: bool,
        acks: AckRequest,
        max_bytes: int,
        batches: bool,
    ) -> FetchAnswer:
        self._membership.touch(member)
        # Kafka counts heartbeats only: a wait longer than the interval heartbeats meanwhile
        beating = (
            asyncio.create_task(self._membership.beat_while_waiting(member))
            if max_wait_ms > member.heartbeat_interval_ms
            else None
        )
        try:
            got = await self.kafka.fetch(
                member.group_id,
                member.member_id,
                max_records=max_records,
                max_wait_ms=max_wait_ms,
                max_bytes=max_bytes,
                record_limit=record_limit,
                acks=acks,
                decode=not batches,
            )
        finally:
            if beating is not None:
                beating.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beating
        self._membership.touch(member)
        self.count(got.answer)
        if not batches:
            return got.answer
        return dataclasses.replace(got.answer, batches=got.batches)

    def count(self, answer: FetchAnswer) -> None:
        """Count the records ``answer`` delivers (a fetch's or a push's): those of its acquired
        ranges (an answer of batches decodes none)."""
        for a in answer.acquired:
            self.consumed[a.topic] += a.last - a.first + 1

    async def acknowledge(
        self, group_id: str, member_id: str, acks: AckRequest, principal: str | None
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        validate_name(group_id, "group")
        self._membership.touch(self._membership.owned(group_id, member_id, principal))
        return await self.kafka.acknowledge(group_id, member_id, acks)

    async def run_reaper(self, idle_ms: int, every_s: float = REAP_EVERY_S) -> None:
        """Forever: members whose client went away (``idle_ms`` without a request) leave,
        but those a push socket consumes (the socket heartbeats for them, and its end makes
        them leave)."""
        while True:
            await asyncio.sleep(every_s)
            left = await self._membership.reap(idle_ms, self.pushed)
            if left:
                log.info("%d share-group members left after %d ms idle", len(left), idle_ms)

    async def close(self) -> None:
        """The gateway stopping: long polls answer empty; every member it holds leaves, so
        Kafka releases their records at once rather than when their sessions time out."""
        self._stopped.set()
        await self.kafka.close()
