"""``/v1/admin/quotas``: per-principal byte-rate quotas (docs/security.md#quotas)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import quotas as wire
from app.security import permissions
from app.security.acls import Operation
from app.security.keys import check_principal

router = APIRouter(prefix="/v1/admin/quotas", tags=["admin"])


@router.get(
    "",
    summary="The default quotas and every principal's own",
    responses={200: {"model": schemas.QuotaList}, **schemas.ERRORS},
)
async def list_quotas(request: Request) -> Response:
    permissions.require_cluster(request, Operation.DESCRIBE)
    quota_admin = deps.engine_of(request).quota_admin
    return json_response(wire.show_quotas(quota_admin.defaults(), quota_admin.list()))


@router.put(
    "/{principal}",
    summary="Set a principal's own quotas (a kind left out takes the default)",
    openapi_extra=schemas.documented_body(wire.QuotaSet),
    responses={200: {"model": schemas.PrincipalQuota}, **schemas.ERRORS},
)
async def set_quota(principal: str, request: Request) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    check_principal(principal)
    b = deps.broker_of(request)
    override = wire.parse_set(await read_body(request, b.settings.max_request_bytes), b.settings)
    return json_response(wire.show_quota(await b.engine.quota_admin.set(principal, override)))


@router.delete(
    "/{principal}",
    status_code=204,
    summary="Remove a principal's own quotas (back to the defaults)",
    responses=schemas.ERRORS,
)
async def remove_quota(principal: str, request: Request) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    await deps.engine_of(request).quota_admin.remove(check_principal(principal))
    return Response(status_code=204)
