"""The HTTP connection's answers: one write for an answer built whole, the same bytes as ever."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.server import ServerState

from app.api.connections import protocol_class
from app.config import Settings


class Transport:
    """The socket side of one connection: what the server wrote, and whether it closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "a write after close"
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def exchange(
    app: Any, request: bytes, settings: Settings, transport: Transport | None = None
) -> Transport:
    """``request`` sent on a new connection to ``app``; the transport once the answer is out."""
    config = Config(app=app, lifespan="off", log_level="warning")
    config.load()
    state = ServerState()
    protocol = protocol_class(settings)(config=config, server_state=state, app_state={})
    transport = transport or Transport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    protocol.data_received(request)
    while state.tasks:
        await asyncio.gather(*state.tasks, return_exceptions=True)
    await asyncio.sleep(0)  # the turn in which held headers would go out alone
    protocol.connection_lost(None)
    return transport


GET = b"GET /x HTTP/1.1\r\nhost: localhost\r\n\r\n"


async def whole(scope: Scope, receive: Receive, send: Send) -> None:
    await Response(b'{"a":1}', media_type="application/json")(scope, receive, send)


async def test_an_answer_built_whole_goes_out_in_one_write(
    settings_factory: Any,
) -> None:
    t = await exchange(whole, GET, settings_factory())
    assert len(t.writes) == 1
    head, body = t.writes[0].split(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"content-length: 7" in head
    assert body == b'{"a":1}'


async def test_a_head_request_is_answered_headers_only(settings_factory: Any) -> None:
    t = await exchange(whole, GET.replace(b"GET", b"HEAD"), settings_factory())
    assert len(t.writes) == 1
    assert t.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"content-length: 7\r\n" in t.writes[0]
    assert t.writes[0].endswith(b"\r\n\r\n")


async def test_headers_go_out_alone_when_the_body_is_late(settings_factory: Any) -> None:
    seen: list[int] = []
    transport = Transport()

    async def late(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", b"2")],
            }
        )
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen.append(len(transport.writes))
        await send({"type": "http.response.body", "body": b"ok"})

    await exchange(late, GET, settings_factory(), transport)
    assert seen == [1]  # the headers were out before the body came
    assert transport.writes[1] == b"ok"
    assert transport.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")


async def test_a_streamed_answer_is_written_as_before(settings_factory: Any) -> None:
    async def streamed(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ab", "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    t = await exchange(streamed, GET, settings_factory())
    assert t.writes[0].endswith(b"transfer-encoding: chunked\r\n\r\n")
    assert t.writes[1:] == [b"2\r\nab\r\n", b"0\r\n\r\n"]


@pytest.mark.parametrize("fail_after_start", [False, True])
async def test_an_error_in_the_app_still_answers_or_closes(
    settings_factory: Any, fail_after_start: bool
) -> None:
    async def failing(scope: Scope, receive: Receive, send: Send) -> None:
        if fail_after_start:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", b"2")],
                }
            )
        raise RuntimeError("boom")

    t = await exchange(failing, GET, settings_factory())
    assert t.closed
    if fail_after_start:  # the headers went out, then the connection was closed
        assert len(t.writes) == 1 and t.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    else:  # uvicorn's own 500, in one write
        assert len(t.writes) == 1 and t.writes[0].startswith(b"HTTP/1.1 500 ")
