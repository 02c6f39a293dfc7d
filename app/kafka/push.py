"""The push session on a gateway (``app.engine.push.PushSession``): one WebSocket on
``/v1/share-groups/{g}/consume`` is a share-group member run by the gateway that accepted it
(docs/kafka.md#push, "Push over WebSocket").

- **Alive while the socket lives.** The session heartbeats for its member (ShareGroupHeartbeat)
  in a task of its own, at the coordinator's heartbeat interval, and every 50 ms while a new
  member has no partitions yet (the first answers to a join usually carry none); the task is
  cancelled when the session ends. A heartbeat answered with an error means the member is gone:
  the next ``next_batch`` raises ``UNKNOWN_MEMBER_ID`` and the socket goes back to subscribe.
- **The window.** Records are acquired with ShareFetch in ``record_limit`` mode, MaxRecords the
  room left in the window, so the session never has more records out than its credits. A poll
  waits at most half a second: Kafka answers the requests of a share session one at a time, so
  an ``ack`` frame waits for the poll in flight, and the short poll bounds that wait.
- **Locks.** Kafka answers the lock's duration with the records; the session counts each
  record's deadline from when it came. Without ``auto_renew`` a record whose lock ran out
  leaves the window at its deadline (Kafka has released it); with ``auto_renew`` the session
  renews everything it holds, in one acknowledgement, once half of the earliest lock has run.
  A record acknowledged over HTTP for the same member leaves the window too.
- **Acknowledge** is the HTTP acknowledge of the member (``GatewayShareGroups.acknowledge``): a
  release with a delay is refused whole (``UNSUPPORTED_ON_KAFKA_BACKEND``, ``release_delay``),
  which the socket answers as an error frame and stays open.
- **The end.** Whatever ends the socket ends the session: its heartbeats stop and its member
  leaves the group (its share sessions closed first), and Kafka releases what it held, each
  record's delivery count one higher when it comes again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from app.clock import Clock
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.kafka.protocol.errors import ProtocolError
from app.kafka.share import KafkaMember
from app.kafka.share_members import (
    ASSIGNMENT_POLL_S,
    JOIN_EPOCH,
    as_member,
    unknown_member,
)
from app.share.coordinator import AckRequest, FetchAnswer, PartitionKey
from app.share.membership import Member
from app.share.partition import AckBatch, AckType
from app.share.push import _offsets, _runs
from app.share.session_state import VALID_PREVIOUS, SessionState
from app.share.timers import wait_set
from app.states import validate_transition

if TYPE_CHECKING:
    from app.kafka.share_members import GatewayShareGroups

# How long one poll of the push loop waits for records: an ack frame waits behind it.
POLL_MS = 500
# How long after a join the session heartbeats quickly while the member has no partitions.
ASSIGNMENT_WAIT_MS = 10_000
# How long the push loop waits before looking again when it has nothing to poll, or after a
# poll failed.
IDLE_S = 1.0
# A record leaves the window this long after its lock's deadline (Kafka has released it).
EXPIRY_GRACE_MS = 50

log = logging.getLogger("sluice.kafka.push")

# what a poll or a heartbeat may meet from the connection or the broker (a connection closed,
# a request timed out, a broker error): passing, tried again
TRANSIENT = (ProtocolError, OSError)


class KafkaPushSession:
    """One WebSocket share session on a gateway (see the module docstring)."""

    def __init__(
        self,
        share: GatewayShareGroups,
        group_id: str,
        clock: Clock,
        max_credits: int,
        principal: str | None,
    ) -> None:
        self.share = share
        self.group_id = group_id
        self.principal = principal  # the socket's: its member is this principal's
        self.clock = clock
        self.max_credits = max_credits
        self.state = SessionState.CONNECTED
        self.member: KafkaMember | None = None
        self.credits = 0
        self.auto_renew = False
        # the records out to the client: per partition, offset → delivery count
        self.held: dict[PartitionKey, dict[int, int]] = {}
        # and their lock deadlines: per partition, offset → ms since the epoch
        self.expires: dict[PartitionKey, dict[int, int]] = {}
        self.lock_ms = 0
        self._renew_after = 0  # after a failed renew: not again before this (ms)
        self.deadline: int | None = None  # earliest lock deadline of the held records (ms)
        self._room = asyncio.Event()  # the window has room
        self._changed = asyncio.Event()  # the deadline moved earlier, or the session changed
        self._beat = asyncio.Event()  # a heartbeat was answered
        self._heartbeats: asyncio.Task[None] | None = None

    # -- state --------------------------------------------------------------------------------

    def _move(self, to: SessionState) -> None:
        self.state = validate_transition(VALID_PREVIOUS, self.state, to)
        self._changed.set()
        self._beat.set()

    @property
    def member_id(self) -> str:
        if self.member is None:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "subscribe first")
        return self.member.member_id

    @property
    def out(self) -> int:
        return sum(len(h) for h in self.held.values())

    @property
    def free(self) -> int:
        return self.credits - self.out

    def _update_room(self) -> None:
        if self.free > 0 and self.state is SessionState.SUBSCRIBED:
            self._room.set()
        else:
            self._room.clear()

    def _alive(self) -> KafkaMember:
        """The session's member, still in the group; else ``UNKNOWN_MEMBER_ID``."""
        member = self.member
        if member is None:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "subscribe first")
        if self.share.kafka.members.get((self.group_id, member.member_id)) is not member:
            raise unknown_member(self.group_id, member.member_id)
        return member

    # -- subscribe, credit, close -------------------------------------------------------------

    async def subscribe(
        self, topics: list[str], member_id: str | None, credits: int, auto_renew: bool
    ) -> Member:
        """Join the group with ``topics``, or take over the member ``member_id`` (which this
        gateway must hold for the socket's principal, and no other socket consume)."""
        membership = self.share.membership
        if member_id is None:
            joined, _ = await membership.heartbeat(
                self.group_id, None, JOIN_EPOCH, topics, self.principal
            )
            member = membership.owned(self.group_id, joined.member_id, self.principal)
        else:
            member = membership.owned(self.group_id, member_id, self.principal)
            if (self.group_id, member_id) in self.share.pushed:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"member {member_id!r} is consumed by another WebSocket session",
                )
            if sorted(topics) != sorted(member.subscribed):
                await membership.heartbeat(
                    self.group_id, member_id, member.member_epoch, topics, self.principal
                )
        self.share.pushed.add((self.group_id, member.member_id))
        self.member = member
        self.credits = min(credits, self.max_credits)
        self.auto_renew = auto_renew
        self._move(SessionState.SUBSCRIBED)
        self._update_room()
        self._heartbeats = asyncio.create_task(
            self._heartbeat(member), name=f"push-heartbeat {self.group_id}"
        )
        return as_member(member, self.principal, self.clock.now_ms())

    def grant(self, n: int) -> None:
        """Widen the window by ``n`` (up to the server's most credits)."""
        self.credits = min(self.credits + n, self.max_credits)
        self._update_room()

    def _unbind(self) -> KafkaMember | None:
        member, self.member = self.member, None
        if member is not None:
            self.share.pushed.discard((self.group_id, member.member_id))
        if self._heartbeats is not None:
            self._heartbeats.cancel()
            self._heartbeats = None
        self.held.clear()
        self.expires.clear()
        self.deadline = None
        return member

    def lost(self) -> None:
        """The member is gone from under the session: back to CONNECTED."""
        if self.state is SessionState.SUBSCRIBED:
            self._unbind()
            self._move(SessionState.CONNECTED)
            self._update_room()

    async def close(self) -> None:
        """The socket ended: the member leaves the group, its share sessions closed first, so
        Kafka releases what it held."""
        if self.state is SessionState.CLOSED:
            return
        member = self._unbind()
        self._move(SessionState.CLOSED)
        self._update_room()
        if member is None:
            return
        if self.share.kafka.members.get((self.group_id, member.member_id)) is not member:
            return  # gone already (the gateway stopping has made every member leave)
        try:
            await self.share.membership.leave(self.group_id, member.member_id, self.principal)
        except (SluiceError, *TRANSIENT) as exc:
            # its sessions end with their connections, which are closed; the member leaves
            # the group when its session timeout passes without a heartbeat
            log.warning(
                "push member %s of %r did not leave: %s", member.member_id, self.group_id, exc
            )

    async def _heartbeat(self, member: KafkaMember) -> None:
        """Heartbeat for ``member`` while the session lives: every 50 ms while a new member
        has no partitions yet, else at the coordinator's interval. Ends when the member is gone
        (the coordinator answered an error, or it left by another request), opening the
        window so that the push loop finds out."""
        joined = self.clock.now_ms()
        beats = self.share.membership.beats
        key = (self.group_id, member.member_id)
        while True:
            if not member.assignment and self.clock.now_ms() - joined < ASSIGNMENT_WAIT_MS:
                wait = ASSIGNMENT_POLL_S
            else:
                wait = max(member.heartbeat_interval_ms, 50) / 1000
            await asyncio.sleep(wait)
            if self.share.kafka.members.get(key) is not member:
                break
            try:
                await self.share.kafka.heartbeat(
                    self.group_id, member.member_id, member.member_epoch, None
                )
            except SluiceError as exc:
                if self.share.kafka.members.get(key) is member:
                    # the coordinator answered an error that does not end the member (it is
                    # moving, say): tried again at the next interval
                    log.warning("heartbeat of push member %s failed: %s", member.member_id, exc)
                    continue
                log.info("push member %s of %r is gone: %s", member.member_id, self.group_id, exc)
                beats.pop(key, None)
                break
            except TRANSIENT as exc:  # tried again at the next interval
                log.warning("heartbeat of push member %s failed: %s", member.member_id, exc)
                continue
            beats[key] = self.clock.now_ms()
            self._beat.set()
        if self.member is member:
            # the member is gone (Kafka released what it held): the window opens, so that the
            # push loop polls at once, finds the member gone and tells the client
            self.held.clear()
            self.expires.clear()
            self.deadline = None
            self._changed.set()
            self._update_room()
        self._beat.set()

    # -- push ---------------------------------------------------------------------------------

    async def pause(self) -> None:
        """Wait a while (after a failed poll), or until the session changes state."""
        await wait_set(self._changed, IDLE_S)

    async def next_batch(self, batches: bool = False) -> FetchAnswer | None:
        """Wait for room in the window, then poll (ShareFetch, ``record_limit``, MaxRecords the
        room left) for at most half a second; the records acquired, now out to the client, or
        None when the poll gave nothing. ShareFetch answers the batches that hold the records,
        kept when ``batches``. Raises ``UNKNOWN_MEMBER_ID`` when the member is gone."""
        await self._room.wait()
        if self.share.stopping:
            return None
        member = self._alive()
        if not member.assignment:
            # nothing to poll: wait for the next heartbeat, which may bring partitions
            await wait_set(self._beat, IDLE_S)
            self._alive()
            return None
        try:
            got = await self.share.kafka.fetch(
                self.group_id,
                member.member_id,
                max_records=self.free,
                max_wait_ms=POLL_MS,
                max_bytes=50 * 1024 * 1024,
                record_limit=True,
            )
        except TRANSIENT as exc:
            log.warning("push poll of %r failed: %s", self.group_id, exc)
            await self.pause()
            return None
        answer = got.answer
        self.share.count(answer)
        if not answer.records or self.state is not SessionState.SUBSCRIBED:
            return None
        self.lock_ms = answer.lock_timeout_ms
        deadline = self.clock.now_ms() + answer.lock_timeout_ms
        for part in answer.records:
            key = (part.topic, part.partition)
            held = self.held.setdefault(key, {})
            expires = self.expires.setdefault(key, {})
            for rec, delivery_count in part.records:
                held[rec.offset] = delivery_count  # again, after its lock ran out: once
                expires[rec.offset] = deadline
        if self.deadline is None or deadline < self.deadline:
            self.deadline = deadline
            self._changed.set()
        self._update_room()
        if not batches:
            return answer
        return FetchAnswer(
            answer.member_id,
            answer.records,
            answer.acquired,
            answer.lock_timeout_ms,
            answer.ack_errors,
            batches=got.batches,
        )

    # -- acknowledge --------------------------------------------------------------------------

    def _take(self, acks: AckRequest) -> dict[PartitionKey, dict[int, tuple[int, int]]]:
        """Take the records that ``acks`` accept, release or reject out of the window, each
        with its delivery count and deadline."""
        taken: dict[PartitionKey, dict[int, tuple[int, int]]] = {}
        for key, ack_batches in acks.items():
            held = self.held.get(key)
            if held is None or isinstance(ack_batches, SluiceError):
                continue
            expires = self.expires.setdefault(key, {})
            got = taken.setdefault(key, {})
            for batch in ack_batches:
                for off in list(_offsets(batch, held)):
                    got[off] = (held.pop(off), expires.pop(off, 0))
        return taken

    async def acknowledge(self, acks: AckRequest) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Apply ``acks`` as the HTTP acknowledge does; the records they end leave the window
        at once (a partition whose acknowledgement fails gets its records back)."""
        member_id = self.member_id
        taken = self._take(acks)
        self._update_room()
        try:
            results = await self.share.acknowledge(self.group_id, member_id, acks, self.principal)
        except BaseException:
            self._give_back(taken, None)
            raise
        self._give_back(taken, {key for key, err in results if err is not None})
        return results

    def _give_back(
        self,
        taken: dict[PartitionKey, dict[int, tuple[int, int]]],
        failed: set[PartitionKey] | None,
    ) -> None:
        if self.state is not SessionState.SUBSCRIBED:
            return
        for key, records in taken.items():
            if (failed is None or key in failed) and records:
                held = self.held.setdefault(key, {})
                expires = self.expires.setdefault(key, {})
                for off, (count, deadline) in records.items():
                    held[off] = count
                    expires[off] = deadline
        self.check()

    # -- lock deadlines -----------------------------------------------------------------------

    def next_due(self) -> int | None:
        """When the session next has to look at its records (ms), or None."""
        if self.deadline is None or self.state is not SessionState.SUBSCRIBED:
            return None
        if self.auto_renew:
            return max(self.deadline - self.lock_ms // 2, self._renew_after)
        return self.deadline + EXPIRY_GRACE_MS

    async def wait_due(self) -> None:
        """Wait until ``next_due`` (or until it moves earlier)."""
        due = self.next_due()
        timeout = None if due is None else max(due - self.clock.now_ms(), 5) / 1000
        await wait_set(self._changed, timeout)

    def check(self) -> None:
        """Drop from the window the records the member no longer holds (their lock ran out,
        or they were acknowledged over HTTP), and find the earliest deadline of the rest."""
        member = self.member
        now = self.clock.now_ms()
        deadline: int | None = None
        for key, held in list(self.held.items()):
            counts = member.counts.get(key, {}) if member is not None else {}
            expires = self.expires.setdefault(key, {})
            for off, count in list(held.items()):
                at = expires.get(off, now)
                if counts.get(off) != count or at <= now:
                    del held[off]
                    expires.pop(off, None)
                elif deadline is None or at < deadline:
                    deadline = at
            if not held:
                del self.held[key]
                self.expires.pop(key, None)
        if deadline != self.deadline:
            self.deadline = deadline
            self._changed.set()
        self._update_room()

    async def renew(self) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Renew every record out, one range per run of offsets, in one acknowledgement; the
        renewed records' deadlines move a lock later."""
        self.check()
        member = self.member
        if member is None or not self.held:
            return []
        now = self.clock.now_ms()
        acks: AckRequest = {
            key: [AckBatch(a, b, [AckType.RENEW]) for a, b in _runs(held)]
            for key, held in self.held.items()
        }
        results = await self.share.acknowledge(
            self.group_id, member.member_id, acks, self.principal
        )
        for key, err in results:
            expires = self.expires.get(key)
            if err is None and expires is not None:
                for off in expires:
                    expires[off] = now + self.lock_ms
        if any(err is not None for _, err in results):
            # not again before a tenth of the lock: a partition that refuses is not retried
            # in a loop (its records leave the window at their deadline if it keeps refusing)
            self._renew_after = self.clock.now_ms() + max(self.lock_ms // 10, 100)
        self.check()
        return results
