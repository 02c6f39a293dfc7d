from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas, share_wire
from app.api.deps import json_response, read_json, read_object
from app.api.wire import encoding_of
from app.errors import InvalidRequest
from app.share.membership import Member, ShareGroup
from app.topics import validate_name

router = APIRouter(prefix="/v1/share-groups", tags=["share groups"])


def _assignment(member: Member) -> list[dict[str, Any]]:
    return [{"topic": t, "partitions": ps} for t, ps in member.assignment]


def _describe(request: Request, group: ShareGroup) -> dict[str, Any]:
    return {
        "group_id": group.group_id,
        "state": group.state.value,
        "group_epoch": group.group_epoch,
        "config": group.config.to_dict(),
        "members": [
            {
                "member_id": m.member_id,
                "member_epoch": m.member_epoch,
                "subscribed_topics": m.subscribed_topics,
                "assignment": _assignment(m),
                "last_seen_ms": m.last_seen_ms,
            }
            for m in group.members.values()
        ],
        "partitions": [
            share_wire.show_partition(v)
            for v in deps.share_admin(request).describe_partitions(group)
        ],
    }


@router.post(
    "/{group_id}/heartbeat",
    summary="Join (epoch 0), heartbeat, or leave (epoch -1)",
    openapi_extra=schemas.documented_body(schemas.ShareHeartbeatRequest),
    responses={200: {"model": schemas.ShareHeartbeatResponse}, **schemas.ERRORS},
)
async def heartbeat(group_id: str, request: Request) -> Response:
    validate_name(group_id, "group")
    body = await read_object(request, deps.settings(request).max_request_bytes)
    epoch = body.get("member_epoch", 0)
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        raise InvalidRequest("member_epoch: expected an integer")
    member, _ = await deps.share(request).membership.heartbeat(
        group_id,
        share_wire.member_id_of(body, required=False),
        epoch,
        share_wire.check_topics(body.get("subscribed_topics")),
    )
    return json_response(
        {
            "member_id": member.member_id,
            "member_epoch": member.member_epoch,
            "heartbeat_interval_ms": deps.settings(request).share_heartbeat_interval_ms,
            "assignment": _assignment(member),
        }
    )


@router.delete(
    "/{group_id}/members/{member_id}",
    status_code=204,
    summary="Leave: release the member's acquired records",
    responses=schemas.ERRORS,
)
async def leave(group_id: str, member_id: str, request: Request) -> Response:
    await deps.share(request).membership.leave(group_id, member_id)
    return Response(status_code=204)


@router.post(
    "/{group_id}/fetch",
    summary="Acquire records (long poll), with piggy-backed acks",
    openapi_extra=schemas.documented_body(schemas.ShareFetchRequest),
    responses={200: {"model": schemas.ShareFetchResponse}, **schemas.ERRORS},
)
async def fetch(group_id: str, request: Request) -> Response:
    validate_name(group_id, "group")
    s = deps.settings(request)
    body = await read_object(request, deps.settings(request).max_request_bytes)
    mode = body.get("acquire_mode", "batch_optimized")
    if mode not in ("batch_optimized", "record_limit"):
        raise InvalidRequest("acquire_mode: expected batch_optimized or record_limit")
    encoding = encoding_of(body.get("encoding"))
    answer = await deps.share(request).fetch(
        group_id,
        share_wire.member_id_of(body, required=False),
        share_wire.check_topics(body.get("subscribed_topics")),
        max_records=share_wire.int_field(
            body, "max_records", 500, 1, s.max_read_records, clamp=True
        ),
        max_wait_ms=share_wire.int_field(body, "max_wait_ms", 0, 0, s.max_wait_ms, clamp=True),
        record_limit=mode == "record_limit",
        max_bytes=share_wire.int_field(body, "max_bytes", 8 * 1024 * 1024, 1, 64 * 1024 * 1024),
        acks=share_wire.parse_acks(body.get("acknowledgements"), s.share_max_release_delay_ms),
    )
    return json_response(share_wire.show_fetch(answer, encoding))


@router.post(
    "/{group_id}/acknowledge",
    summary="Accept, release, reject or renew records",
    openapi_extra=schemas.documented_body(schemas.ShareAcknowledgeRequest),
    responses={200: {"model": schemas.ShareAcknowledgeResponse}, **schemas.ERRORS},
)
async def acknowledge(group_id: str, request: Request) -> Response:
    body = await read_object(request, deps.settings(request).max_request_bytes)
    member_id = share_wire.member_id_of(body, required=True)
    assert member_id is not None
    acks = share_wire.parse_acks(
        body.get("acknowledgements"), deps.settings(request).share_max_release_delay_ms
    )
    results = await deps.share(request).acknowledge(group_id, member_id, acks)
    return json_response({"results": share_wire.show_results(results)})


@router.patch(
    "/{group_id}/config",
    summary="Change the group's config (creates the group)",
    openapi_extra=schemas.documented_body(schemas.ShareGroupConfig),
    responses={200: {"model": schemas.ShareGroupConfig}, **schemas.ERRORS},
)
async def configure(group_id: str, request: Request) -> Response:
    body, _ = await read_json(request, deps.settings(request).max_request_bytes)
    group = await deps.share_admin(request).configure(group_id, share_wire.config_changes(body))
    return json_response(group.config.to_dict())


@router.get("", summary="List share groups", responses={200: {"model": schemas.ShareGroupList}})
async def list_groups(request: Request) -> Response:
    return json_response(
        {
            "share_groups": [
                {"group_id": g.group_id, "state": g.state.value, "members": len(g.members)}
                for g in sorted(deps.share(request).groups.values(), key=lambda g: g.group_id)
            ]
        }
    )


@router.get(
    "/{group_id}",
    summary="Describe a share group",
    responses={200: {"model": schemas.ShareGroupDescription}, **schemas.ERRORS},
)
async def describe(group_id: str, request: Request) -> Response:
    return json_response(_describe(request, deps.share(request).membership.group(group_id)))


@router.get(
    "/{group_id}/partitions/{topic}/{partition}/records",
    summary="Per-record state of a share partition (no side effects)",
    responses={200: {"model": schemas.ShareRecordsView}, **schemas.ERRORS},
)
async def records(
    group_id: str,
    topic: str,
    partition: int,
    request: Request,
    from_: int | None = Query(None, alias="from", ge=0),
    to: int | None = Query(None, ge=0),
) -> Response:
    if from_ is not None and to is not None and to - from_ > 100_000:
        raise InvalidRequest("from/to: at most 100000 offsets per request")
    start, end, views = deps.share_admin(request).record_views(
        group_id, topic, partition, from_, to
    )
    if from_ is None and to is None and len(views) > 100_000:
        views = views[:100_000]
    return json_response(
        {
            "start_offset": start,
            "end_offset": end,
            "records": [
                {
                    "offset": v.offset,
                    "state": v.state.label,
                    "delivery_count": v.delivery_count,
                    "member_id": v.member_id,
                    "lock_expires_at": v.lock_expires_at,
                    "available_at": v.available_at,
                }
                for v in views
            ],
        }
    )


@router.post(
    "/{group_id}/offsets",
    summary="Reset start offsets (empty group only)",
    openapi_extra=schemas.documented_body(schemas.ShareOffsetsReset),
    responses={200: {"model": schemas.ShareOffsetsResetResponse}, **schemas.ERRORS},
)
async def reset_offsets(group_id: str, request: Request) -> Response:
    body = await read_object(request, deps.settings(request).max_request_bytes)
    targets, dry_run = share_wire.parse_reset(body)
    done = await deps.share_admin(request).reset_offsets(group_id, targets, dry_run)
    return json_response(
        {
            "dry_run": dry_run,
            "topics": [
                {"topic": t, "partitions": [{"partition": p, "start_offset": o} for p, o in moved]}
                for t, moved in done
            ],
        }
    )


@router.delete(
    "/{group_id}/offsets",
    status_code=204,
    summary="Forget the start offsets of a topic (empty group only)",
    responses=schemas.ERRORS,
)
async def delete_offsets(group_id: str, request: Request, topic: str = Query(...)) -> Response:
    await deps.share_admin(request).delete_offsets(group_id, topic)
    return Response(status_code=204)


@router.delete(
    "/{group_id}",
    status_code=204,
    summary="Delete a share group (empty only)",
    responses=schemas.ERRORS,
)
async def delete_group(group_id: str, request: Request) -> Response:
    await deps.share_admin(request).delete_group(group_id)
    return Response(status_code=204)
