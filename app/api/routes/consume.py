"""WebSocket ``/v1/share-groups/{group_id}/consume``: push consumption with a credit window.

The socket carries one ``PushSession`` (``app.engine.push``), which the engine's share groups
open (``open_push``). Three loops share it: this
handler reads client frames (``subscribe``, ``ack``, ``credit``) and answers them in order; once
subscribed, a push loop sends ``records`` frames whenever the window has room and records come;
a timer loop renews the session's locks (``auto_renew``) or notices the ones that expired.
Frames go out one at a time (``Outbox``), and a send waits while the client does not read, so a
session that stops reading gets no more records and holds no more than its window.

Over the principal's fetch quota, the push loop waits before acquiring more records, until
the rate is back within the quota (Kafka delays a throttled fetch's answer rather than failing
it); the frames sent count against the quota.

Whatever ends the socket (a close, a dropped connection, the server stopping) ends the session:
its member leaves and its records are released (on the embedded engine with the delivery
count lowered by one; Kafka raises it by one).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, WebSocket

from app.api import deps
from app.api.wire import frames
from app.engine import PushSession
from app.engine.push import BatchesUnread
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.security import ANONYMOUS, permissions, principal_of
from app.security.acls import Operation, ResourceType
from app.security.open_sockets import Revocation
from app.security.quotas import Meters
from app.share.session_state import FRAMES, SessionState
from app.topics import validate_name

router = APIRouter(tags=["share groups"])

CLOSE_TOO_BIG = 1009
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_ERROR = 1011
# A throttled push looks at its quota again this often (a quota raised or removed meanwhile
# takes effect within it).
THROTTLE_CHECK_S = 0.1

log = logging.getLogger("sluice.push")


class Outbox:
    """Sends frames one at a time; after the socket is gone, sends nothing."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._lock = asyncio.Lock()
        self.closed = False

    async def send(self, frame: str | bytes) -> bool:
        """A text frame, or a binary one (record batches)."""
        async with self._lock:
            if self.closed:
                return False
            try:
                if isinstance(frame, bytes):
                    await self.websocket.send_bytes(frame)
                else:
                    await self.websocket.send_text(frame)
            except Exception:  # the socket is gone (disconnect or transport error)
                self.closed = True
                return False
            return True

    async def close(self, code: int, reason: str = "") -> None:
        async with self._lock:
            if not self.closed:
                self.closed = True
                with contextlib.suppress(Exception):
                    await self.websocket.close(code, reason)


@router.websocket("/v1/share-groups/{group_id}/consume")
async def consume(websocket: WebSocket, group_id: str) -> None:
    b = deps.broker_of(websocket)
    e = b.engine
    await websocket.accept()  # before ready, RequestGate has closed the socket (1013)
    outbox = Outbox(websocket)
    s = b.settings
    session = e.share.open_push(group_id, s.ws_max_credits, principal_of(websocket))
    loops: list[asyncio.Task[None]] = []
    closing: list[asyncio.Task[None]] = []  # a close after a loop failed

    topics: list[str] = []  # those subscribed

    def refused() -> SluiceError | None:
        """Whether the principal may no longer consume (the ACLs changed); cached checks."""
        try:
            permissions.require_reads(websocket, group_id, topics)
        except SluiceError as exc:
            return exc
        return None

    def start(coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro, name=f"push-session {group_id}")
        task.add_done_callback(failed)
        loops.append(task)

    def failed(task: asyncio.Task[None]) -> None:
        """A loop that ends by an unexpected error ends the socket (1011): the session is
        over, and its records are released, instead of going quiet."""
        if task.cancelled() or task.exception() is None:
            return
        log.error("push session of %r failed", group_id, exc_info=task.exception())
        closing.append(asyncio.create_task(outbox.close(CLOSE_ERROR, "internal error")))

    async def stop_loops() -> None:
        for task in loops:
            task.cancel()
        await asyncio.gather(*loops, return_exceptions=True)
        loops.clear()

    # the server stopping ends every push socket with 1001, the key it was opened with
    # revoked with 1008 (either way the session ends as for a close)
    watcher = asyncio.create_task(_close_at_shutdown(e.share.stopped, outbox))
    principal = principal_of(websocket) or ANONYMOUS
    revocation = b.keys.sockets.add(websocket.scope)
    revoked = asyncio.create_task(_close_when_revoked(revocation, outbox))
    try:
        try:
            validate_name(group_id, "group")
        except SluiceError as exc:
            await outbox.send(frames.error(exc))
            await outbox.close(CLOSE_POLICY, "invalid group id")
            return
        if (error := refused()) is not None:  # READ on the group (no topics yet)
            await outbox.send(frames.error(error))
            await outbox.close(CLOSE_POLICY, error.code.name)
            return
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data: str | bytes = (
                message["text"] if message.get("text") is not None else message.get("bytes", b"")
            )
            if _size(data) > s.ws_max_frame_bytes:
                await outbox.close(CLOSE_TOO_BIG, "frame too large")
                break
            try:
                kind, body = frames.frame_type(data, s.max_json_values, s.max_json_depth)
                if kind not in FRAMES[session.state]:
                    raise InvalidRequest(
                        ErrorCode.INVALID_REQUEST,
                        f"{kind!r} frames are not taken while the session is {session.state.value}"
                        + (": subscribe first" if session.state is SessionState.CONNECTED else ""),
                    )
                frame = frames.parse_frame(
                    kind, body, s.ws_max_credits, s.share_max_release_delay_ms
                )
                if isinstance(frame, frames.Subscribe):
                    permissions.require_all(
                        websocket, Operation.READ, ResourceType.TOPIC, frame.topics
                    )
                    await stop_loops()  # those of a session lost before
                    topics[:] = frame.topics
                    member = await session.subscribe(
                        frame.topics, frame.member_id, frame.credits, frame.auto_renew
                    )
                    await outbox.send(
                        frames.subscribed(
                            member.member_id, member.member_epoch, session.credits, frame.auto_renew
                        )
                    )
                    start(_push(session, outbox, frame, refused, b.quotas.fetch, principal))
                    start(_timers(session))
                elif isinstance(frame, frames.Ack):
                    try:
                        permissions.require_all(
                            websocket,
                            Operation.READ,
                            ResourceType.TOPIC,
                            (t for t, _ in frame.acks),
                        )
                        results = await session.acknowledge(frame.acks)
                    except SluiceError as exc:  # the whole ack failed: answered with its id
                        if exc.code is ErrorCode.UNKNOWN_MEMBER_ID:
                            session.lost()
                        await outbox.send(frames.error(exc, frame.id))
                        continue
                    await outbox.send(frames.ack_result(results, frame.id))
                else:
                    session.grant(frame.n)
            except SluiceError as exc:
                if exc.code is ErrorCode.UNKNOWN_MEMBER_ID:
                    session.lost()
                await outbox.send(frames.error(exc))
    finally:
        watcher.cancel()
        revoked.cancel()
        b.keys.sockets.discard(revocation)
        await stop_loops()
        outbox.closed = True
        # released even when this handler is cancelled (the server stopping)
        await asyncio.shield(session.close())


def _size(data: str | bytes) -> int:
    if isinstance(data, bytes) or len(data) * 4 < 1024:
        return len(data)
    return len(data.encode())


async def _push(
    session: PushSession,
    outbox: Outbox,
    subscribed: frames.Subscribe,
    refused: Callable[[], SluiceError | None],
    quotas: Meters,
    principal: str,
) -> None:
    """Send records whenever the window has room and records come, while the principal may
    read them (else the socket closes with 1008 and the session releases them) and is within
    its fetch quota."""
    share = session.share
    while session.state is SessionState.SUBSCRIBED:
        await _within_quota(quotas, principal)
        try:
            answer = await session.next_batch(subscribed.batches)
        except SluiceError as exc:
            await outbox.send(frames.error(exc))
            if exc.code is ErrorCode.UNKNOWN_MEMBER_ID:  # the member is gone from under it
                session.lost()
                return
            await session.pause()  # a passing failure (storage): the session goes on
            continue
        except BatchesUnread:
            # the records are out but their batches could not be read: as when this loop read
            # them after its checks, a principal that may no longer read is refused first,
            # and otherwise the loop fails (1011)
            if not share.stopping and (error := refused()) is not None:
                await outbox.send(frames.error(error))
                await outbox.close(CLOSE_POLICY, error.code.name)
                return
            raise
        if share.stopping:
            return  # _close_at_shutdown closes the socket
        if answer is not None and (error := refused()) is not None:
            await outbox.send(frames.error(error))
            await outbox.close(CLOSE_POLICY, error.code.name)
            return
        if answer is not None:
            data: str | bytes
            if subscribed.batches:
                data = frames.records_batches(answer, answer.batches)
            else:
                data = frames.records(answer, subscribed.encoding)
            if not await outbox.send(data):
                return
            quota = quotas[principal]
            if quota is not None:
                quota.record(_size(data))


async def _within_quota(quotas: Meters, principal: str) -> None:
    """Return once ``principal`` is within its fetch quota (at once when it has none): a
    throttled push is counted once and waits out its throttle time."""
    quota = quotas[principal]
    if quota is None or not quota.delay_ms():
        return
    while (quota := quotas[principal]) is not None and (ms := quota.throttle_ms()):
        await asyncio.sleep(min(ms / 1000, THROTTLE_CHECK_S))


async def _close_at_shutdown(stopped: asyncio.Event, outbox: Outbox) -> None:
    await stopped.wait()
    await outbox.close(CLOSE_GOING_AWAY, "server stopping")


async def _close_when_revoked(revocation: Revocation, outbox: Outbox) -> None:
    reason = await revocation.wait()
    await outbox.close(CLOSE_POLICY, reason)


async def _timers(session: PushSession) -> None:
    """Renew the session's locks before they expire (auto_renew), or notice expired ones."""
    while session.state is SessionState.SUBSCRIBED:
        await session.wait_due()
        due = session.next_due()
        if due is None or due > session.clock.now_ms():
            continue
        try:
            if session.auto_renew:
                await session.renew()
            else:
                session.check()
        except SluiceError:  # the member is gone: the push loop tells the client
            return
