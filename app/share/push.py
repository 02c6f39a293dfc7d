"""PushSession: a share-group member fed over one WebSocket, with a credit window.

The session is the member's connection (docs/semantics.md#push-sessions): it joins (or takes
over an existing member) on ``subscribe`` and leaves when the socket ends, however it ends;
leaving releases what the member still holds with the delivery count lowered by one. While
the socket lives the member is alive (the session sweep never removes it).

Credits are a window, not a count of sends: the session never has more records out than
``credits`` that the client has not acknowledged (accept, release or reject; a renew keeps a
record out). Acknowledging on the socket reopens the window at once; a ``credit`` frame widens
it. A record whose lock expired, or that was acknowledged over HTTP or in a transaction, is no
longer out: the session finds out when it looks at its records at their lock deadline
(``check``), and the window reopens then.

With ``auto_renew`` the session renews everything it holds, in one acknowledgement, once half
of the earliest lock has run: locks never expire while the socket lives, and a renew is one
call per half lock (applied in memory, nothing written), not one per record. A renew that a
partition refuses is not tried again before a tenth of the lock has passed.

Everything here changes state synchronously; ``next_batch`` awaits new records (a long poll)
and ``acknowledge``/``renew`` await durability, as the HTTP requests do.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
from collections.abc import Iterator

from app.clock import Clock
from app.engine.push import BatchesUnread
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.share.coordinator import AckRequest, FetchAnswer, ShareGroupCoordinator
from app.share.membership import Member
from app.share.partition import AckBatch, AckType
from app.share.record_state import RecordState
from app.share.session_state import VALID_PREVIOUS, SessionState
from app.share.timers import wait_set
from app.states import validate_transition

PartitionKey = tuple[str, int]

# How long one long poll of the push loop waits before it polls again (it is woken by new
# records long before that; the bound only keeps a poll from outliving a change of the window).
POLL_MS = 30_000
# How often a session whose subscribed topics do not exist looks for them again.
IDLE_MS = 1000
# A record is checked this long after its lock deadline: the lock's expiry has been processed.
EXPIRY_GRACE_MS = 50


class PushSession:
    """One WebSocket share session (see the module docstring)."""

    def __init__(
        self,
        coordinator: ShareGroupCoordinator,
        group_id: str,
        clock: Clock,
        max_credits: int,
        principal: str | None,
    ) -> None:
        self.share = coordinator
        self.group_id = group_id
        self.principal = principal  # the socket's: its member is this principal's
        self.clock = clock
        self.max_credits = max_credits
        self.state = SessionState.CONNECTED
        self.member: Member | None = None
        self.credits = 0
        self.auto_renew = False
        # the records out to the client: per partition, offset → delivery count
        self.held: dict[PartitionKey, dict[int, int]] = {}
        self.lock_ms = 0
        self._renew_after = 0  # after a failed renew: not again before this (ms)
        self.deadline: int | None = None  # earliest lock deadline of the held records (ms)
        self._room = asyncio.Event()  # the window has room
        self._changed = asyncio.Event()  # the deadline moved earlier, or the session ended

    # -- state --------------------------------------------------------------------------------

    def _move(self, target: SessionState) -> None:
        self.state = validate_transition(VALID_PREVIOUS, self.state, target)
        self._changed.set()

    @property
    def member_id(self) -> str:
        if self.member is None:
            raise InvalidRequest(ErrorCode.INVALID_REQUEST, "subscribe first")
        return self.member.member_id

    @property
    def out(self) -> int:
        """Records out to the client: what it holds and has not acknowledged."""
        return sum(len(h) for h in self.held.values())

    @property
    def free(self) -> int:
        return self.credits - self.out

    def _update_room(self) -> None:
        if self.free > 0 and self.state is SessionState.SUBSCRIBED:
            self._room.set()
        else:
            self._room.clear()

    # -- subscribe, credit, close -------------------------------------------------------------

    async def subscribe(
        self, topics: list[str], member_id: str | None, credits: int, auto_renew: bool
    ) -> Member:
        """Join the group with ``topics``, or take over the member ``member_id`` (which must
        exist, be the socket's principal's and not belong to another session)."""
        membership = self.share.membership
        group = self.share.groups.get(self.group_id)
        if auto_renew and group is not None and not group.config.renew_enabled:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST,
                f"auto_renew: renew is disabled for share group {self.group_id!r}",
            )
        if member_id is None:
            member, _ = await membership.join(self.group_id, None, topics, self.principal)
        else:
            group, member = membership.member(self.group_id, member_id, self.principal)
            if member.pushed:
                raise InvalidRequest(
                    ErrorCode.INVALID_REQUEST,
                    f"member {member_id!r} is consumed by another WebSocket session",
                )
            membership.refresh(group, member, topics)
        member.pushed = True
        member.fetching += 1  # alive while the socket lives
        self.member = member
        self.credits = min(credits, self.max_credits)
        self.auto_renew = auto_renew
        self._move(SessionState.SUBSCRIBED)
        self._update_room()
        return member

    def grant(self, n: int) -> None:
        """Widen the window by ``n`` (up to the server's most credits)."""
        self.credits = min(self.credits + n, self.max_credits)
        self._update_room()

    def _unbind(self) -> Member | None:
        member, self.member = self.member, None
        if member is not None:
            member.pushed = False
            member.fetching -= 1
        self.held.clear()
        self.deadline = None
        return member

    def lost(self) -> None:
        """The member is gone from under the session: back to CONNECTED."""
        if self.state is SessionState.SUBSCRIBED:
            self._unbind()
            self._move(SessionState.CONNECTED)
            self._update_room()

    async def close(self) -> None:
        """The socket ended: the member leaves, releasing what it holds (delivery count
        lowered by one); answered once that is durable."""
        if self.state is SessionState.CLOSED:
            return
        member = self._unbind()
        self._move(SessionState.CLOSED)
        self._update_room()
        group = self.share.groups.get(self.group_id)
        if (
            member is not None
            and group is not None
            and group.members.get(member.member_id) is member
        ):
            await self.share.membership.leave(self.group_id, member.member_id, self.principal)

    # -- push ---------------------------------------------------------------------------------

    async def pause(self) -> None:
        """Wait a while (after a failed poll), or until the session changes state."""
        await self._wait_changed(IDLE_MS / 1000)

    async def next_batch(self, batches: bool = False) -> FetchAnswer | None:
        """Wait for room in the window, then for records (a long poll); the records acquired,
        now out to the client, or None when the poll ended with nothing. With ``batches``,
        the answer carries the stored batches that hold them, read last, once they are in
        the window (a failed read is ``BatchesUnread``, which ends the socket's push loop as
        an unexpected error: a ``SluiceError`` of the poll is a passing failure there)."""
        await self._room.wait()
        answer = await self.share.fetch(
            self.group_id,
            self.member_id,
            None,
            max_records=min(self.free, self.share.settings.max_read_records),
            max_wait_ms=POLL_MS,
            record_limit=True,
            acks={},
            principal=self.principal,
        )
        if not answer.records or self.state is not SessionState.SUBSCRIBED:
            if not self._pollable():
                # nothing to wait on (no subscribed topic exists yet): a long poll would end at
                # once; look again in a while instead of spinning
                await self._wait_changed(IDLE_MS / 1000)
            return None
        self.lock_ms = answer.lock_timeout_ms
        for part in answer.records:
            held = self.held.setdefault((part.topic, part.partition), {})
            for record, delivery_count in part.records:
                held[record.offset] = delivery_count  # again, after its lock expired: once
        deadline = self.clock.now_ms() + answer.lock_timeout_ms
        if self.deadline is None or deadline < self.deadline:
            self.deadline = deadline
            self._changed.set()
        self._update_room()
        if not batches or self.share.stopping:  # stopping: the socket sends nothing more
            return answer
        try:
            parts = self.share.acquired_batches(self.group_id, answer.acquired)
        except SluiceError as exc:
            raise BatchesUnread(str(exc)) from exc
        return dataclasses.replace(answer, batches=parts)

    # -- acknowledge --------------------------------------------------------------------------

    def _take(self, acks: AckRequest) -> dict[PartitionKey, dict[int, int]]:
        """Take the records that ``acks`` accept, release or reject out of the window."""
        taken: dict[PartitionKey, dict[int, int]] = {}
        for key, batches in acks.items():
            held = self.held.get(key)
            if held is None or isinstance(batches, SluiceError):
                continue
            got = taken.setdefault(key, {})
            for batch in batches:
                for off in _offsets(batch, held):
                    got[off] = held.pop(off)
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
        self, taken: dict[PartitionKey, dict[int, int]], failed: set[PartitionKey] | None
    ) -> None:
        if self.state is not SessionState.SUBSCRIBED:
            return
        back = False
        for key, records in taken.items():
            if (failed is None or key in failed) and records:
                self.held.setdefault(key, {}).update(records)
                back = True
        if back:  # their locks: looked at now (the deadline was found without them)
            self.deadline = self.clock.now_ms()
            self._changed.set()
        self._update_room()

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
        # at least a few ms: a lock past its deadline may wait for the expiry sweep a moment
        await self._wait_changed(None if due is None else max(due - self.clock.now_ms(), 5) / 1000)

    async def _wait_changed(self, timeout: float | None) -> None:
        """Wait ``timeout`` seconds (None: no limit), or until the deadline moves earlier or
        the session changes state."""
        await wait_set(self._changed, timeout)

    def _pollable(self) -> bool:
        """Whether the member has a partition to wait on."""
        topics = self.share.topics.topics
        member = self.member
        return member is not None and any(
            (topic := topics.get(name)) is not None and not topic.deleting and ps
            for name, ps in member.assignment
        )

    def check(self) -> None:
        """Drop from the window the records this member no longer holds (lock expired,
        acknowledged elsewhere), and find the earliest lock deadline of the rest."""
        group = self.share.groups.get(self.group_id)
        member_id = self.member.member_id if self.member is not None else None
        now = self.clock.now_ms()
        deadline: int | None = None
        for key, held in list(self.held.items()):
            sp = group.partitions.get(key) if group is not None else None
            mine: dict[int, int] = {}
            if sp is not None and held:
                offsets = sorted(held)
                # the window's runs, not a view per record: a run is as many records as it spans
                for v in sp.run_views(len(sp.runs) + 1)[0]:
                    # still out: acquired by this member, the same delivery, under a lock that
                    # has not run out (a record without a lock is held by a transaction: the
                    # client acknowledged it there)
                    if (
                        v.state is not RecordState.ACQUIRED
                        or v.member_id != member_id
                        or v.lock_expires_at is None
                        or v.lock_expires_at <= now
                    ):
                        continue
                    lo = bisect.bisect_left(offsets, v.first)
                    hi = bisect.bisect_right(offsets, v.last)
                    for off in offsets[lo:hi]:
                        if held[off] == v.delivery_count:
                            mine[off] = v.lock_expires_at
            for off in [o for o in held if o not in mine]:
                del held[off]
            if not held:
                del self.held[key]
            for expires in mine.values():
                if deadline is None or expires < deadline:
                    deadline = expires
        self.deadline = deadline
        self._update_room()

    async def renew(self) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Renew every record out, one range per run of offsets; a partition that fails is
        checked (records no longer held leave the window) and renewed once more."""
        self.check()
        results = await self._renew(list(self.held))
        failed = [key for key, err in results if err is not None]
        if failed and self.state is SessionState.SUBSCRIBED:
            self.check()
            again = dict(await self._renew([k for k in failed if k in self.held]))
            results = [(key, again.get(key, err)) for key, err in results]
        if any(err is not None for _, err in results):
            # not again before a tenth of the lock: a partition that refuses is not retried
            # in a loop (its records expire at their deadline if it keeps refusing)
            self._renew_after = self.clock.now_ms() + max(self.lock_ms // 10, 100)
        self.check()
        return results

    async def _renew(
        self, keys: list[PartitionKey]
    ) -> list[tuple[PartitionKey, SluiceError | None]]:
        acks: AckRequest = {
            key: [AckBatch(a, b, [AckType.RENEW]) for a, b in _runs(self.held[key])]
            for key in keys
            if self.held.get(key)
        }
        if not acks or self.member is None:
            return []
        return await self.share.acknowledge(
            self.group_id, self.member.member_id, acks, self.principal
        )


def _offsets(batch: AckBatch, held: dict[int, int]) -> Iterator[int]:
    """The held offsets that ``batch`` ends (accept, release or reject), iterating over the
    smaller of the range and the held records."""
    single = batch.types[0] if len(batch.types) == 1 else None
    if single is AckType.RENEW:
        return
    if batch.last - batch.first + 1 <= len(held):
        candidates: Iterator[int] | list[int] = iter(range(batch.first, batch.last + 1))
    else:
        candidates = sorted(o for o in held if batch.first <= o <= batch.last)
    for off in candidates:
        if off in held and (
            single is not None or batch.types[off - batch.first] is not AckType.RENEW
        ):
            yield off


def _runs(offsets: dict[int, int]) -> Iterator[tuple[int, int]]:
    """Runs of consecutive offsets, ascending."""
    first = last = -2
    for off in sorted(offsets):
        if off != last + 1:
            if first >= 0:
                yield first, last
            first = off
        last = off
    if first >= 0:
        yield first, last
