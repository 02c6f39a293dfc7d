"""Authentication of every request and WebSocket handshake, for ``app.main.RequestGate``.

HTTP: ``Authorization: Bearer <key>``. WebSocket handshakes take that header too (programs),
or, from browsers, which cannot set headers on a WebSocket, the key as an offered subprotocol
``sluice.bearer.<key>`` next to ``sluice`` (the server selects ``sluice`` and never echoes the
key), or a short-lived token from ``POST /v1/auth/ws-token`` as ``?token=``. A long-lived key is
never taken from a URL.

When no key exists every request is anonymous (principal None). Once one does, every path but
``PUBLIC_PATHS`` and the dashboard's files needs a valid key; the hot path is a scan of the
request's few headers and one dictionary lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

from starlette.types import Message, Scope, Send

from app.security import PRINCIPAL
from app.security.keys import KEY_ID, Identity
from app.security.tokens import WsTokens

if TYPE_CHECKING:
    from app.engine.admin import Keys  # the seam imports app.security

PUBLIC_PATHS = frozenset(
    {"/healthz", "/readyz", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/"}
)
PUBLIC_PREFIX = "/dashboard/"  # the dashboard's static files (app/api/routes/dashboard.py)
SUBPROTOCOL = "sluice"
BEARER_SUBPROTOCOL = "sluice.bearer."


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIX)


class Authenticator:
    def __init__(self, keys: Keys, tokens: WsTokens) -> None:
        self.keys = keys
        self.tokens = tokens

    def http(self, scope: Scope) -> bool:
        """Whether the request may go on; its principal and key id are in the scope."""
        keys = self.keys
        if not keys.required:
            return True  # principal_of: None
        path = scope["path"]
        if path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIX):
            return True
        for name, value in scope["headers"]:
            if name == b"authorization":
                identity = keys.authenticate_header(value)
                if identity is None:
                    return False
                scope[PRINCIPAL] = identity.principal
                scope[KEY_ID] = identity.key_id
                return True
        return False

    def websocket(self, scope: Scope) -> bool:
        """Like ``http`` for a WebSocket handshake, which may also bring its key as a
        subprotocol or a token. The key's subprotocol is taken out of the scope."""
        offered = scope.get("subprotocols") or []
        key = next((p for p in offered if p.startswith(BEARER_SUBPROTOCOL)), None)
        if key is not None:
            scope["subprotocols"] = [p for p in offered if not p.startswith(BEARER_SUBPROTOCOL)]
            key = key[len(BEARER_SUBPROTOCOL) :]
        if not self.keys.required or is_public(scope["path"]):
            return True
        identity: Identity | None = None
        header = dict(scope["headers"]).get(b"authorization")
        if header is not None:
            identity = self.keys.authenticate_header(header)
        elif key is not None:
            identity = self.keys.authenticate(key)
        else:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            token = query.get("token")
            if token is not None:
                identity = self.tokens.redeem(token)
                if identity is not None and not self.keys.active(identity.key_id):
                    identity = None
        if identity is None:
            return False
        scope[PRINCIPAL] = identity.principal
        scope[KEY_ID] = identity.key_id
        return True


def selecting_subprotocol(scope: Scope, send: Send) -> Send:
    """``send`` that accepts a handshake with the ``sluice`` subprotocol when the client
    offered it (a browser that offers subprotocols fails a handshake that selects none)."""
    if SUBPROTOCOL not in (scope.get("subprotocols") or ()):
        return send

    async def accept_with_subprotocol(message: Message) -> None:
        if message["type"] == "websocket.accept" and message.get("subprotocol") is None:
            message = {**message, "subprotocol": SUBPROTOCOL}
        await send(message)

    return accept_with_subprotocol
