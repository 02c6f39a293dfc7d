"""Short-lived WebSocket tokens: a browser cannot set ``Authorization`` on a WebSocket, so an
authenticated ``POST /v1/auth/ws-token`` hands out a token that opens one socket, within
``ws_token_ttl_ms``, as the key that asked for it (``?token=`` on the socket's URL). A token is
good for one handshake; a long-lived key is never taken from a URL."""

from __future__ import annotations

import secrets
from collections import OrderedDict

from app.clock import Clock
from app.security.keys import Identity

PREFIX = "wst_"


class WsTokens:
    def __init__(self, clock: Clock, ttl_ms: int) -> None:
        self.clock = clock
        self.ttl_ms = ttl_ms
        # issue order (OrderedDict: taking from the front stays cheap after many deletions)
        self._tokens: OrderedDict[str, tuple[Identity, int]] = OrderedDict()

    def issue(self, identity: Identity) -> tuple[str, int]:
        """A new token for ``identity`` and the time it expires (ms)."""
        now = self.clock.now_ms()
        self._forget_expired(now)
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

    def _forget_expired(self, now: int) -> None:
        """Tokens are kept in the order issued, which is the order they expire (one
        lifetime): the expired ones are at the front."""
        tokens = self._tokens
        while tokens:
            token = next(iter(tokens))
            if tokens[token][1] > now:
                return
            del tokens[token]

    def __len__(self) -> int:
        return len(self._tokens)
