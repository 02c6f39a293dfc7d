"""Who am I, and WebSocket tokens (docs/security.md): ``GET /v1/auth/whoami`` tells a client
(and the dashboard) its principal and whether the server requires keys; ``POST
/v1/auth/ws-token`` hands an authenticated client a short-lived token that opens one WebSocket
(``?token=``), for browsers, which cannot set headers on a WebSocket."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response
from app.security import ANONYMOUS, principal_of
from app.security.keys import KEY_ID, Identity

router = APIRouter(prefix="/v1/auth", tags=["authentication"])


@router.get(
    "/whoami",
    summary="The principal of the request and whether keys are required",
    responses={200: {"model": schemas.WhoAmI}},
)
async def whoami(request: Request) -> Response:
    return json_response(
        {"principal": principal_of(request), "keys_required": deps.engine_of(request).keys.required}
    )


@router.post(
    "/ws-token",
    summary="A short-lived token that opens one WebSocket (?token=)",
    responses={200: {"model": schemas.WsToken}},
)
async def ws_token(request: Request) -> Response:
    b = deps.broker_of(request)
    identity = Identity(request.scope.get(KEY_ID) or "", principal_of(request) or ANONYMOUS)
    token, expires_ms = b.ws_tokens.issue(identity)
    return json_response({"token": token, "expires_ms": expires_ms})
