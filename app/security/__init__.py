"""Who is asking, and what they may do: API keys, ACLs and quotas.

The contract every part of the server relies on: ``app.main.RequestGate`` authenticates each
HTTP request and WebSocket handshake before any router runs and stores the result in the ASGI
scope under ``PRINCIPAL``; ``principal_of`` reads it back.

- ``None``: the server runs without keys (anonymous access, loopback only unless allowed):
  authorization is off and every request may do everything.
- a string: the principal a valid key names (for example ``"alice"``); ACLs decide.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

PRINCIPAL = "sluice.principal"
ANONYMOUS = "ANONYMOUS"  # the principal that quotas and metrics use for key-less requests


def principal_of(conn: HTTPConnection) -> str | None:
    """The authenticated principal of a request or WebSocket, None when keys are off."""
    value = conn.scope.get(PRINCIPAL)
    return value if isinstance(value, str) else None
