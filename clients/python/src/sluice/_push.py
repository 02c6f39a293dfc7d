"""Push consumption over the WebSocket (``WS /v1/share-groups/{g}/consume``) for the share
consumers: ``Frames`` reads and writes the session's frames without I/O; ``SyncSocket`` and
``AsyncSocket`` carry them with the websockets library's sync and asyncio clients.

The socket is the session: the member lives while it is open, and when it closes the server
releases what it held. The server never has more records out than the credits; an
acknowledgement on the socket makes room for more. The key goes as the ``Authorization``
header of the handshake. Records come as binary frames of record batches (``"format":
"batches"``), or as JSON in ``records`` frames on the ``json`` wire; ``records_of`` makes the
user's records of either.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from sluice import _codec
from sluice._core import Settings, Wire
from sluice.errors import SluiceError, error_from

# the records of a ``records`` frame (its JSON records) or of a binary frame (its envelope)
RecordsOf = Callable[[Any], list[Any]]


class PushSessionEnded(ConnectionError):
    """The push session's socket closed under the consumer; the next poll opens a new one."""


class Frames:
    """What the session received, and the frames it sends; no I/O."""

    def __init__(self, records_of: RecordsOf) -> None:
        self.records_of = records_of
        self.records: list[Any] = []
        self.answers: dict[int, list[dict[str, Any]] | SluiceError] = {}
        self.failure: BaseException | None = None
        self.member_id: str | None = None
        self._next_id = 1

    @staticmethod
    def subscribe(topics: list[str], credits: int, auto_renew: bool, wire: Wire) -> str:
        frame: dict[str, Any] = {
            "type": "subscribe",
            "topics": topics,
            "member_id": None,
            "credits": credits,
            "auto_renew": auto_renew,
        }
        if wire == "batches":
            frame["format"] = "batches"
        else:
            frame["encoding"] = "base64"
        return json.dumps(frame)

    def ack(self, acks: list[dict[str, Any]], *, answered: bool) -> tuple[str, int | None]:
        """An ``ack`` frame; with ``answered`` it carries an id its ``ack_result`` echoes."""
        frame: dict[str, Any] = {"type": "ack", "acknowledgements": acks}
        ident = None
        if answered:
            ident = frame["id"] = self._next_id
            self._next_id += 1
        return json.dumps(frame), ident

    def received(self, data: str | bytes) -> None:
        if isinstance(data, bytes) and data[:4] == _codec.ENVELOPE_MAGIC[:4]:
            # a binary frame: records as batches, its head a ``records`` frame's
            self.records.extend(self.records_of(_codec.open_envelope(data)))
            return
        frame = json.loads(data)
        kind = frame.get("type")
        if kind == "subscribed":
            self.member_id = frame["member_id"]
        elif kind == "records":
            self.records.extend(self.records_of(frame["records"]))
        elif kind == "ack_result":
            if "id" in frame:
                self.answers[frame["id"]] = frame["results"]
        elif kind == "error":
            error = error_from(200, frame)
            if frame.get("id") is not None:
                self.answers[frame["id"]] = error
            else:
                self.failure = error

    def take_failure(self) -> None:
        """Raise what ended or troubled the session, once."""
        if self.failure is not None:
            failure, self.failure = self.failure, None
            raise failure

    def answer(self, ident: int) -> list[dict[str, Any]]:
        result = self.answers.pop(ident)
        if isinstance(result, SluiceError):
            raise result
        return result

    def take(self, n: int) -> list[Any]:
        taken, self.records = self.records[:n], self.records[n:]
        return taken


def _address(settings: Settings, path: str) -> tuple[str, dict[str, str]]:
    url = settings.url.replace("https://", "wss://", 1).replace("http://", "ws://", 1) + path
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    return url, headers


class SyncSocket:
    """A push session for ``ShareConsumer``: frames are read while the consumer waits."""

    def __init__(self, settings: Settings, path: str, records_of: RecordsOf) -> None:
        self.settings = settings
        self.path = path
        self.records_of = records_of
        self.frames = Frames(records_of)
        self._ws: ClientConnection | None = None

    @property
    def open(self) -> bool:
        return self._ws is not None

    def start(self, topics: list[str], credits: int, auto_renew: bool) -> str:
        url, headers = _address(self.settings, self.path)
        self.frames = Frames(self.records_of)
        # entered as a context manager: closed by ``close``, whatever happens before
        self._ws = connect(
            url,
            subprotocols=["sluice"],  # type: ignore[list-item]
            additional_headers=headers,
            open_timeout=self.settings.timeout,
        ).__enter__()
        self._ws.send(Frames.subscribe(topics, credits, auto_renew, self.settings.wire))
        while self.frames.member_id is None:
            self._read(self.settings.timeout)
            if self.frames.failure is not None:
                self.close()
                self.frames.take_failure()
        return self.frames.member_id

    def _read(self, timeout: float) -> bool:
        """One frame within ``timeout`` s; False when none came. A closed socket raises."""
        assert self._ws is not None
        try:
            text = self._ws.recv(timeout=timeout)
        except TimeoutError:
            return False
        except ConnectionClosed as closed:
            self._ws = None
            raise PushSessionEnded(f"the push session ended ({closed})") from closed
        self.frames.received(text)
        return True

    def wait_records(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.frames.records and self.frames.failure is None:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                return

    def send_acks(self, acks: list[dict[str, Any]]) -> None:
        assert self._ws is not None
        self._ws.send(self.frames.ack(acks, answered=False)[0])

    def acknowledge(self, acks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send ``acks`` and wait for their result (records pushed meanwhile are kept)."""
        assert self._ws is not None
        frame, ident = self.frames.ack(acks, answered=True)
        assert ident is not None
        self._ws.send(frame)
        deadline = time.monotonic() + self.settings.timeout
        while ident not in self.frames.answers:
            if not self._read(max(0.0, deadline - time.monotonic())):
                raise TimeoutError("no answer to the acknowledgements")
        return self.frames.answer(ident)

    def close(self) -> None:
        if self._ws is not None:
            ws, self._ws = self._ws, None
            ws.close()


class AsyncSocket:
    """A push session for ``AsyncShareConsumer``."""

    def __init__(self, settings: Settings, path: str, records_of: RecordsOf) -> None:
        self.settings = settings
        self.path = path
        self.records_of = records_of
        self.frames = Frames(records_of)
        self._ws: AsyncConnection | None = None

    @property
    def open(self) -> bool:
        return self._ws is not None

    async def start(self, topics: list[str], credits: int, auto_renew: bool) -> str:
        url, headers = _address(self.settings, self.path)
        self.frames = Frames(self.records_of)
        self._ws = await async_connect(
            url,
            subprotocols=["sluice"],  # type: ignore[list-item]
            additional_headers=headers,
            open_timeout=self.settings.timeout,
        )
        await self._ws.send(Frames.subscribe(topics, credits, auto_renew, self.settings.wire))
        while self.frames.member_id is None:
            await self._read(self.settings.timeout)
            if self.frames.failure is not None:
                await self.close()
                self.frames.take_failure()
        return self.frames.member_id

    async def _read(self, timeout: float) -> bool:
        assert self._ws is not None
        try:
            async with asyncio.timeout(timeout):
                text = await self._ws.recv()
        except TimeoutError:
            return False
        except ConnectionClosed as closed:
            self._ws = None
            raise PushSessionEnded(f"the push session ended ({closed})") from closed
        self.frames.received(text)
        return True

    async def wait_records(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.frames.records and self.frames.failure is None:
            left = deadline - time.monotonic()
            if left <= 0 or not await self._read(left):
                return

    async def send_acks(self, acks: list[dict[str, Any]]) -> None:
        assert self._ws is not None
        await self._ws.send(self.frames.ack(acks, answered=False)[0])

    async def acknowledge(self, acks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assert self._ws is not None
        frame, ident = self.frames.ack(acks, answered=True)
        assert ident is not None
        await self._ws.send(frame)
        deadline = time.monotonic() + self.settings.timeout
        while ident not in self.frames.answers:
            if not await self._read(max(0.0, deadline - time.monotonic())):
                raise TimeoutError("no answer to the acknowledgements")
        return self.frames.answer(ident)

    async def close(self) -> None:
        if self._ws is not None:
            ws, self._ws = self._ws, None
            await ws.close()
