"""Short-lived WebSocket tokens: a browser cannot set ``Authorization`` on a WebSocket, so an
authenticated ``POST /v1/auth/ws-token`` hands out a token that opens one socket, within
``ws_token_ttl_ms``, as the key that asked for it (``?token=`` on the socket's URL). A token is
good for one handshake; a long-lived key is never taken from a URL."""

from __future__ import annotations

import secrets

from app.clock import Clock
from app.security.keys import Identity

PREFIX = "wst_"


class WsTokens:
    def __init__(self, clock: Clock, ttl_ms: int) -> None:
        self.clock = clock
        self.ttl_ms = ttl_ms
        self._tokens: dict[str, tuple[Identity, int]] = {}

    def issue(self, identity: Identity) -> tuple[str, int]:
        """A new token for ``identity`` and the time it expires (ms)."""
        now = self.clock.now_ms()
        self._tokens = {t: v for t, v in self._tokens.items() if v[1] > now}
        token = PREFIX + secrets.token_urlsafe(32)
        expires = now + self.ttl_ms
        self._tokens[token] = (identity, expires)
        return token, expires

    def redeem(self, token: str) -> Identity | None:
        """Who ``token`` was issued to, once, while it is valid; None otherwise."""
        found = self._tokens.pop(token, None)
        if found is None or found[1] <= self.clock.now_ms():
            return None
        return found[0]

    def __len__(self) -> int:
        return len(self._tokens)
