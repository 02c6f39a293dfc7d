"""ACL bindings: add one, list and remove by filter (Kafka's CreateAcls, DescribeAcls,
DeleteAcls). Reading needs DESCRIBE on the cluster, changing ALTER on the cluster
(``app.security.permissions``)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.schemas import acls as acl_schemas
from app.api.wire import acls as wire
from app.security import acls, permissions
from app.security.acls import Operation

router = APIRouter(prefix="/v1/admin/acls", tags=["admin"])

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorBody} for code in (400, 401, 403, 503)
}

_PRINCIPAL = Query(None, pattern=acls.PRINCIPAL_PATTERN)
_NAME = Query(None, pattern=acls.NAME_PATTERN)
_PATTERN = Query(
    None,
    description="LITERAL, PREFIXED, ANY (default) or MATCH: the bindings that apply to "
    "resource_name",
)


def _filter(
    principal: str | None,
    resource_type: acl_schemas.ResourceTypeName | None,
    resource_name: str | None,
    pattern_type: acl_schemas.FilterPatternName | None,
    operation: acl_schemas.OperationName | None,
    permission: acl_schemas.PermissionName | None,
) -> acls.AclFilter:
    return acls.acl_filter(
        principal, resource_type, resource_name, pattern_type, operation, permission
    )


@router.post(
    "",
    status_code=201,
    summary="Add an ACL binding (201; 200 when it was there already)",
    openapi_extra=schemas.documented_body(wire.AclBindingRequest),
    responses={
        201: {"model": acl_schemas.AclBinding},
        200: {"model": acl_schemas.AclBinding},
        **ERRORS,
    },
)
async def add(request: Request) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    b = deps.broker_of(request)
    binding = wire.parse_binding(await read_body(request, b.settings.max_request_bytes), b.settings)
    created = await b.engine.acls.add(binding)
    return json_response(binding.to_dict(), 201 if created else 200)


@router.get(
    "",
    summary="List the ACL bindings that match the filter",
    responses={200: {"model": acl_schemas.AclList}, **ERRORS},
)
async def list_acls(
    request: Request,
    principal: str | None = _PRINCIPAL,
    resource_type: acl_schemas.ResourceTypeName | None = None,
    resource_name: str | None = _NAME,
    pattern_type: acl_schemas.FilterPatternName | None = _PATTERN,
    operation: acl_schemas.OperationName | None = None,
    permission: acl_schemas.PermissionName | None = None,
) -> Response:
    permissions.require_cluster(request, Operation.DESCRIBE)
    f = _filter(principal, resource_type, resource_name, pattern_type, operation, permission)
    return json_response({"acls": wire.show(deps.engine_of(request).acls.matching(f))})


@router.delete(
    "",
    summary="Remove the ACL bindings that match the filter",
    responses={200: {"model": acl_schemas.AclsRemoved}, **ERRORS},
)
async def remove(
    request: Request,
    # required, so that a DELETE without a filter cannot remove every binding (a deny among
    # them would stop protecting anything): ANY says "every resource type" explicitly
    resource_type: acl_schemas.ResourceTypeName | Literal["ANY"] = Query(
        description="the resource type, or ANY for every type"
    ),
    principal: str | None = _PRINCIPAL,
    resource_name: str | None = _NAME,
    pattern_type: acl_schemas.FilterPatternName | None = _PATTERN,
    operation: acl_schemas.OperationName | None = None,
    permission: acl_schemas.PermissionName | None = None,
) -> Response:
    permissions.require_cluster(request, Operation.ALTER)
    any_type = None if resource_type == "ANY" else resource_type
    f = _filter(principal, any_type, resource_name, pattern_type, operation, permission)
    gone = await deps.engine_of(request).acls.remove(f)
    return json_response({"removed": wire.show(gone)})
