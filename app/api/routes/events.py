"""The event feed's WebSocket, ``/v1/events`` (docs/api.md#events): one subscription of the
feed per socket, a sender that sends what the subscription has pending whenever the socket
takes it, and a receiver that answers any message of the client with an error frame (the
client is not expected to send anything). Readiness is checked by ``app.main.RequestGate``.
"""

from __future__ import annotations

import anyio
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.api import deps
from app.errors import ErrorCode, InvalidRequest
from app.feed import Subscription, View
from app.security import permissions
from app.security.open_sockets import Revocation

router = APIRouter(tags=["events"])

POLICY_VIOLATION = 1008  # the key the socket was opened with was revoked

_NO_MESSAGES = InvalidRequest(
    ErrorCode.INVALID_REQUEST, "this socket takes no messages: the server only sends"
)


@router.websocket("/v1/events")
async def events(websocket: WebSocket) -> None:
    feed = deps.feed(websocket)
    await websocket.accept()
    view = permissions.feed_view(websocket)  # a principal sees what it may describe
    sub = await feed.subscribe(None if view is None else View(*view))
    try:
        with deps.broker_of(websocket).keys.sockets.watch(websocket.scope) as revocation:
            async with anyio.create_task_group() as tg:

                async def receive() -> None:
                    await _receive(websocket, sub)
                    tg.cancel_scope.cancel()  # the client went: the sender stops

                watching = anyio.CancelScope()

                async def revoked() -> None:
                    with watching:  # the key revoked: the sender closes the socket (1008)
                        await revocation.wait()
                        sub.close(POLICY_VIOLATION)

                tg.start_soon(receive)
                tg.start_soon(revoked)
                await _send(websocket, sub, revocation)  # then the receiver waits for the answer
                watching.cancel()
    finally:
        feed.unsubscribe(sub)


async def _send(websocket: WebSocket, sub: Subscription, revocation: Revocation) -> None:
    """Frames as the subscription has them; at its end (shutdown, the key revoked), the
    close."""
    try:
        while (frame := await sub.next_frame()) is not None:
            await websocket.send_text(frame.decode())
        code = sub.close_code or 1000
        await websocket.close(code, revocation.reason if code == POLICY_VIOLATION else None)
    except (WebSocketDisconnect, OSError):
        pass  # the client went away: the receiver sees it too
    finally:
        # nothing more is sent: a receiver waiting for its answer to be taken stops waiting
        sub.close(sub.close_code or 1000)


async def _receive(websocket: WebSocket, sub: Subscription) -> None:
    """Until the client disconnects; each of its messages is answered with an error."""
    while (await websocket.receive())["type"] != "websocket.disconnect":
        await sub.reject(_NO_MESSAGES)
