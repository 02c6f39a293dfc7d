"""The WebSockets open right now, by the key they were opened with, so that revoking a key
closes them (``KeyStore`` calls ``revoke``; the socket handlers ``watch``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager

from starlette.types import Scope

KEY_ID = "sluice.key_id"  # the ASGI scope entry of the key a request came with
REVOKED = "key revoked"
REQUIRED = "an API key is required"


class Revocation:
    """Set when the socket's key is revoked (or, for a socket opened without a key, when keys
    become required); ``reason`` is the close reason."""

    __slots__ = ("event", "key_id", "reason")

    def __init__(self, key_id: str | None) -> None:
        self.key_id = key_id
        self.event = asyncio.Event()
        self.reason = REVOKED

    def set(self, reason: str) -> None:
        self.reason = reason
        self.event.set()

    async def wait(self) -> str:
        await self.event.wait()
        return self.reason


class OpenSockets:
    def __init__(self, closed: Callable[[str | None], str | None] = lambda _: None) -> None:
        """``closed(key_id)``: the close reason of a socket opened with that key now (None:
        none), asked as each socket is added."""
        self._by_key: dict[str | None, set[Revocation]] = {}
        self._closed = closed

    def add(self, scope: Scope) -> Revocation:
        """A socket opened (with the key of ``scope``, if any): its ``Revocation``, already set
        when the key was revoked after the handshake was authenticated and before this."""
        revocation = Revocation(scope.get(KEY_ID))
        self._by_key.setdefault(revocation.key_id, set()).add(revocation)
        reason = self._closed(revocation.key_id)
        if reason is not None:
            revocation.set(reason)
        return revocation

    def discard(self, revocation: Revocation) -> None:
        """The socket is gone."""
        sockets = self._by_key.get(revocation.key_id)
        if sockets is not None:
            sockets.discard(revocation)
            if not sockets:
                del self._by_key[revocation.key_id]

    @contextmanager
    def watch(self, scope: Scope) -> Iterator[Revocation]:
        """For the life of a socket: its ``Revocation``."""
        revocation = self.add(scope)
        try:
            yield revocation
        finally:
            self.discard(revocation)

    def revoke(self, key_ids: Collection[str], *, anonymous: bool = False) -> None:
        """Close the sockets of ``key_ids`` (and, when ``anonymous``, those opened without a
        key)."""
        for key_id in key_ids:
            for revocation in self._by_key.get(key_id, ()):
                revocation.set(REVOKED)
        if anonymous:
            for revocation in self._by_key.get(None, ()):
                revocation.set(REQUIRED)

    def __len__(self) -> int:
        return sum(len(s) for s in self._by_key.values())
