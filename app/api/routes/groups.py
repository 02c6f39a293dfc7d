"""Consumer groups: heartbeat membership, offset commit and fetch, admin.

Handlers read the body, parse it with ``app.api.wire.groups``, call one method of the seam's
``Groups`` (``deps.engine_of(request).groups``, docs/engine.md) and shape the answer.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import groups as wire
from app.security import permissions, principal_of
from app.security.acls import Operation, ResourceType

router = APIRouter(prefix="/v1/groups", tags=["consumer groups"])

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorBody} for code in (400, 404, 409, 429, 503)
}


@router.post(
    "/{group_id}/heartbeat",
    summary="Join, heartbeat or leave a consumer group",
    openapi_extra=schemas.documented_body(wire.GroupHeartbeatRequest),
    responses={200: {"model": schemas.GroupHeartbeatResponse}, **ERRORS},
)
async def heartbeat(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    s = deps.broker_of(request).settings
    req = wire.parse_heartbeat(await read_body(request, s.max_request_bytes), s)
    permissions.require_all(request, Operation.READ, ResourceType.TOPIC, req.subscribed or ())
    answer = await deps.engine_of(request).groups.heartbeat(
        group_id,
        req.member_id,
        req.member_epoch,
        req.instance_id,
        req.subscribed,
        req.rebalance_timeout_ms,
        req.owned,
        principal_of(request),
    )
    return json_response(wire.show_heartbeat(answer))


@router.post(
    "/{group_id}/offsets",
    summary="Commit offsets (per-partition errors)",
    openapi_extra=schemas.documented_body(wire.OffsetCommitRequest),
    responses={200: {"model": schemas.OffsetCommitResponse}, **ERRORS},
)
async def commit_offsets(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    s = deps.broker_of(request).settings
    req = wire.parse_commit(await read_body(request, s.max_request_bytes), s)
    permissions.require_all(
        request, Operation.READ, ResourceType.TOPIC, (o.topic for o in req.offsets)
    )
    errors = await deps.engine_of(request).groups.commit_offsets(
        group_id, req.member_id, req.member_epoch, req.offsets, principal_of(request)
    )
    return json_response(wire.show_commit(req.offsets, errors))


@router.get(
    "/{group_id}/offsets",
    summary="Fetch committed offsets",
    responses={200: {"model": schemas.OffsetFetchResponse}, **ERRORS},
)
async def fetch_offsets(
    group_id: str,
    request: Request,
    topic: str | None = Query(None),
    require_stable: bool = Query(False),
) -> Response:
    permissions.require_group(request, Operation.DESCRIBE, group_id)
    topic = wire.topic_filter(topic)
    if topic is not None:
        permissions.require(request, Operation.DESCRIBE, ResourceType.TOPIC, topic)
    visible = permissions.visible(request, ResourceType.TOPIC)
    views = await deps.engine_of(request).groups.fetch_offsets(group_id, topic, require_stable)
    return json_response(
        {
            "offsets": [
                {
                    "topic": v.topic,
                    "partition": v.partition,
                    "offset": v.offset,
                    "metadata": v.metadata,
                    "error": None if v.error is None else v.error.to_dict(),
                }
                for v in views
                if visible(v.topic)
            ]
        }
    )


@router.delete(
    "/{group_id}/offsets",
    status_code=204,
    summary="Delete a group's offsets (all, or of one topic); empty groups only",
    responses=ERRORS,
)
async def delete_offsets(
    group_id: str, request: Request, topic: str | None = Query(None)
) -> Response:
    permissions.require_group(request, Operation.DELETE, group_id)
    topic = wire.topic_filter(topic)
    # OffsetDelete needs READ on every topic whose offsets go: without a topic, on each
    # topic the group has offsets of, which the engine alone knows
    await deps.engine_of(request).groups.delete_offsets(
        group_id,
        topic,
        partial(permissions.require_all, request, Operation.READ, ResourceType.TOPIC),
    )
    return Response(status_code=204)


@router.get("", summary="List consumer groups", responses={200: {"model": schemas.GroupList}})
async def list_groups(request: Request) -> Response:
    visible = permissions.visible(request, ResourceType.GROUP)
    return json_response(
        {
            "groups": [
                wire.show_group_summary(g)
                for g in await deps.engine_of(request).groups.all()
                if visible(g.group_id)
            ]
        }
    )


@router.get(
    "/{group_id}",
    summary="Describe a consumer group",
    responses={200: {"model": schemas.GroupDescription}, **ERRORS},
)
async def describe_group(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.DESCRIBE, group_id)
    topics = permissions.visible(request, ResourceType.TOPIC)
    group, lags = await deps.engine_of(request).groups.describe(group_id)
    return json_response(wire.show_group(group, lags, topics))


@router.delete(
    "/{group_id}", status_code=204, summary="Delete an empty consumer group", responses=ERRORS
)
async def delete_group(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.DELETE, group_id)
    await deps.engine_of(request).groups.delete_group(group_id)
    return Response(status_code=204)
