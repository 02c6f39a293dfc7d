"""API keys, administered over HTTP (docs/security.md): create (the only time a key's secret
is shown), list (never a secret), revoke. Like every endpoint but the public ones, these need a
valid key once any key exists, and DESCRIBE (list) or ALTER (create, revoke) on the cluster."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.schemas import ERRORS
from app.api.wire import keys as wire
from app.security import permissions
from app.security.acls import Operation

router = APIRouter(prefix="/v1/admin/keys", tags=["admin"])


@router.post(
    "",
    status_code=201,
    summary="Create an API key",
    openapi_extra=schemas.documented_body(wire.KeyCreate),
    responses={201: {"model": schemas.KeyCreated}, **ERRORS},
)
async def create_key(request: Request) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    b = deps.broker_of(request)
    principal, description = wire.parse_create(
        await read_body(request, b.settings.max_request_bytes), b.settings
    )
    row, key = await b.engine.keys.create(principal, description)
    return json_response(
        {
            "key": key,
            "key_id": row.key_id,
            "principal": row.principal,
            "created_ms": row.created_ms,
        },
        201,
    )


@router.get(
    "", summary="List API keys (never their secrets)", responses={200: {"model": schemas.KeyList}}
)
async def list_keys(request: Request) -> Response:
    permissions.require_cluster(request, Operation.DESCRIBE)
    return json_response({"keys": [r.public() for r in deps.engine_of(request).keys.list()]})


@router.delete("/{key_id}", status_code=204, summary="Revoke an API key", responses=ERRORS)
async def revoke_key(key_id: str, request: Request) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    await deps.engine_of(request).keys.revoke(key_id)
    return Response(status_code=204)
