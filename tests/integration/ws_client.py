"""A WebSocket client that speaks ASGI to an app in this process (no network): the socket
tests run the real endpoint, in the coverage run, on the app's own event loop."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from types import TracebackType
from typing import Any

import orjson
from fastapi import FastAPI


def websocket_scope(
    app: FastAPI,
    path: str,
    origin: str | None = None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> dict[str, Any]:
    """The ASGI scope of a WebSocket handshake for ``path`` (from ``origin``, when given; with
    ``headers`` besides)."""
    headers = (
        [(b"host", b"localhost")]
        + ([(b"origin", origin.encode())] if origin else [])
        + list(headers or [])
    )
    return {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("localhost", 80),
        "subprotocols": [],
        "state": {},
        "app": app,
    }


class Closed(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"closed with {code}")
        self.code = code


class AsgiSocket:
    def __init__(
        self,
        app: FastAPI,
        path: str,
        origin: str | None = None,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        self.app = app
        self.path = path
        self.origin = origin
        self.headers = headers
        self._in: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self._out: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> AsgiSocket:
        scope = websocket_scope(self.app, self.path, self.origin, self.headers)
        self._in.put_nowait({"type": "websocket.connect"})
        self._task = asyncio.create_task(self.app(scope, self._in.get, self._out.put))
        accepted = await asyncio.wait_for(self._out.get(), 5)
        if accepted["type"] == "websocket.close":  # refused before the handshake completed
            raise Closed(accepted.get("code", 1000))
        assert accepted["type"] == "websocket.accept", accepted
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def send(self, frame: dict[str, Any] | str) -> None:
        text = frame if isinstance(frame, str) else orjson.dumps(frame).decode()
        await self._in.put({"type": "websocket.receive", "text": text})

    async def receive(self, timeout: float = 5) -> dict[str, Any]:
        message = await asyncio.wait_for(self._out.get(), timeout)
        if message["type"] == "websocket.close":
            raise Closed(message.get("code", 1000))
        frame = orjson.loads(message["text"])
        assert isinstance(frame, dict)
        return frame

    async def receive_bytes(self, timeout: float = 5) -> bytes:
        """The next frame, which must be binary."""
        message = await asyncio.wait_for(self._out.get(), timeout)
        if message["type"] == "websocket.close":
            raise Closed(message.get("code", 1000))
        data = message.get("bytes")
        assert isinstance(data, bytes), message
        return data

    async def nothing(self, within: float = 0.2) -> None:
        """Nothing comes within ``within`` seconds."""
        try:
            message = await asyncio.wait_for(self._out.get(), within)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected {message}")

    async def close(self, code: int = 1000) -> None:
        """The client goes (a close, or a dropped connection: the same to the app); waits
        until the endpoint has finished."""
        if self._task is None:
            return
        await self._in.put({"type": "websocket.disconnect", "code": code})
        await asyncio.wait_for(self._task, 10)
        self._task = None
