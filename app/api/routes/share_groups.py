from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import batches
from app.api.wire import share as wire
from app.api.wire.body import MAX_INT64
from app.security import permissions, principal_of
from app.security.acls import Operation, ResourceType
from app.topics import validate_name

router = APIRouter(prefix="/v1/share-groups", tags=["share groups"])


@router.post(
    "/{group_id}/heartbeat",
    summary="Join (epoch 0), heartbeat, or leave (epoch -1)",
    openapi_extra=schemas.documented_body(wire.ShareHeartbeatRequest),
    responses={200: {"model": schemas.ShareHeartbeatResponse}, **schemas.ERRORS},
)
async def heartbeat(group_id: str, request: Request) -> Response:
    b = deps.broker_of(request)
    validate_name(group_id, "group")
    permissions.require_group(request, Operation.READ, group_id)
    s = b.settings
    req = wire.parse_heartbeat(await read_body(request, s.max_request_bytes), s)
    permissions.require_all(
        request, Operation.READ, ResourceType.TOPIC, req.subscribed_topics or ()
    )
    member, _ = await b.engine.share.membership.heartbeat(
        group_id, req.member_id, req.member_epoch, req.subscribed_topics, principal_of(request)
    )
    return json_response(
        {
            "member_id": member.member_id,
            "member_epoch": member.member_epoch,
            "heartbeat_interval_ms": s.share_heartbeat_interval_ms,
            "assignment": wire.show_assignment(member),
        }
    )


@router.delete(
    "/{group_id}/members/{member_id}",
    status_code=204,
    summary="Leave: release the member's acquired records",
    responses=schemas.ERRORS,
)
async def leave(group_id: str, member_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    await deps.engine_of(request).share.membership.leave(group_id, member_id, principal_of(request))
    return Response(status_code=204)


@router.post(
    "/{group_id}/fetch",
    summary="Acquire records (long poll), with piggy-backed acks",
    openapi_extra=schemas.documented_body(wire.ShareFetchRequest),
    responses={200: {"model": schemas.ShareFetchResponse}, **schemas.ERRORS},
)
async def fetch(group_id: str, request: Request) -> Response:
    b = deps.broker_of(request)
    validate_name(group_id, "group")
    permissions.require_group(request, Operation.READ, group_id)
    s = b.settings
    req = wire.parse_fetch(await read_body(request, s.max_request_bytes), s)
    e = b.engine
    principal = principal_of(request)
    fetched = req.subscribed_topics
    if fetched is None and req.member_id is not None:
        fetched = await e.share.membership.subscription(group_id, req.member_id, principal)
    permissions.require_all(request, Operation.READ, ResourceType.TOPIC, fetched or ())
    permissions.require_all(request, Operation.READ, ResourceType.TOPIC, (t for t, _ in req.acks))
    quota = b.quotas.fetch.admit(principal)
    if req.acquisition_id is not None:
        assert req.subscribed_topics is not None  # the parser requires them
        answer = await e.acquisitions.fetch(
            group_id,
            req.acquisition_id,
            req.subscribed_topics,
            principal,
            max_records=req.max_records,
            max_wait_ms=req.max_wait_ms,
            record_limit=req.record_limit,
            max_bytes=req.max_bytes,
            held_only=req.held_only,
            # READ on the topics of the records a replay answers, which the subscription
            # of this request need not name
            check_topics=partial(
                permissions.require_all, request, Operation.READ, ResourceType.TOPIC
            ),
            batches=req.batches,
        )
    else:
        answer = await e.share.fetch(
            group_id,
            req.member_id,
            req.subscribed_topics,
            max_records=req.max_records,
            max_wait_ms=req.max_wait_ms,
            record_limit=req.record_limit,
            max_bytes=req.max_bytes,
            acks=req.acks,
            principal=principal,
            batches=req.batches,
        )
    if req.batches:
        parts = answer.batches
        response = Response(
            batches.envelope(
                wire.show_fetch_head(answer, parts), [x for _, _, stored in parts for x in stored]
            ),
            media_type=batches.MEDIA_TYPE,
        )
    else:
        response = json_response(wire.show_fetch(answer, req.encoding))
    if quota is not None:
        quota.record(len(response.body))
    return response


@router.post(
    "/{group_id}/acknowledge",
    summary="Accept, release, reject or renew records",
    openapi_extra=schemas.documented_body(wire.ShareAcknowledgeRequest),
    responses={200: {"model": schemas.ShareAcknowledgeResponse}, **schemas.ERRORS},
)
async def acknowledge(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    b = deps.broker_of(request)
    s = b.settings
    req = wire.parse_acknowledge(await read_body(request, s.max_request_bytes), s)
    permissions.require_all(request, Operation.READ, ResourceType.TOPIC, (t for t, _ in req.acks))
    results = await b.engine.share.acknowledge(
        group_id, req.member_id, req.acks, principal_of(request)
    )
    return json_response({"results": wire.show_results(results)})


@router.post(
    "/{group_id}/acquisitions/acknowledge",
    summary="Acknowledge every record that acquisitions (by id or prefix) hold",
    openapi_extra=schemas.documented_body(wire.ShareAcquisitionsAcknowledgeRequest),
    responses={
        200: {"model": schemas.ShareAcquisitionsAcknowledgeResponse},
        **schemas.ERRORS,
    },
)
async def acknowledge_acquisitions(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    b = deps.broker_of(request)
    req = wire.parse_acquisitions_ack(
        await read_body(request, b.settings.max_request_bytes), b.settings
    )
    done = await b.engine.acquisitions.acknowledge(
        group_id,
        req.ids,
        req.prefix,
        req.kind,
        principal_of(request),
        # READ on the topics of the records acknowledged, as an acknowledgement needs
        check_topics=partial(permissions.require_all, request, Operation.READ, ResourceType.TOPIC),
    )
    return json_response(wire.show_acquisitions_acknowledged(done))


@router.get(
    "/{group_id}/acquisitions",
    summary="What acquisitions (all, or by id prefix) still hold",
    responses={200: {"model": schemas.ShareAcquisitionList}, **schemas.ERRORS},
)
async def acquisitions(
    group_id: str,
    request: Request,
    prefix: str | None = Query(None, max_length=wire.ACQUISITION_ID_MAX_CHARS),
) -> Response:
    permissions.require_group(request, Operation.DESCRIBE, group_id)
    topics = permissions.visible(request, ResourceType.TOPIC)
    views = await deps.engine_of(request).acquisitions.describe(
        group_id, prefix, principal_of(request), topics
    )
    return json_response(wire.show_acquisitions(views))


@router.patch(
    "/{group_id}/config",
    summary="Change the group's config (creates the group)",
    openapi_extra=schemas.documented_body(wire.ShareGroupConfig),
    responses={200: schemas.answered_by(wire.ShareGroupConfig), **schemas.ERRORS},
)
async def configure(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.ALTER, group_id)
    b = deps.broker_of(request)
    changes = wire.config_changes(
        await read_body(request, b.settings.max_request_bytes), b.settings
    )
    dead_letters = changes.get("dead_letter_topic")
    if isinstance(dead_letters, str) and dead_letters:
        # the group's records, of whatever topic its members consume now or later, will be
        # copied there: a principal that may not read them all must not choose where they
        # go, so this takes ALTER on the cluster, and WRITE on the topic
        permissions.require_cluster(request, Operation.ALTER)
        permissions.require(request, Operation.WRITE, ResourceType.TOPIC, dead_letters)
    group = await b.engine.share_admin.configure(group_id, changes)
    return json_response(group.config.to_dict())


@router.get("", summary="List share groups", responses={200: {"model": schemas.ShareGroupList}})
async def list_groups(request: Request) -> Response:
    visible = permissions.visible(request, ResourceType.GROUP)
    listed = await deps.engine_of(request).share_admin.list()
    return json_response(
        {
            "share_groups": [
                {"group_id": g.group_id, "state": g.state.value, "members": g.members}
                for g in listed
                if visible(g.group_id)
            ]
        }
    )


@router.get(
    "/{group_id}",
    summary="Describe a share group",
    responses={200: {"model": schemas.ShareGroupDescription}, **schemas.ERRORS},
)
async def describe(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.DESCRIBE, group_id)
    group, partitions = await deps.engine_of(request).share_admin.describe(group_id)
    topics = permissions.visible(request, ResourceType.TOPIC)
    return json_response(wire.show_group(group, partitions, topics))


MAX_RECORD_VIEWS = 100_000


@router.get(
    "/{group_id}/partitions/{topic}/{partition}/records",
    summary="Per-record state of a share partition (no side effects)",
    responses={200: {"model": schemas.ShareRecordsView}, **schemas.ERRORS},
)
async def records(
    group_id: str,
    topic: str,
    partition: schemas.Partition,
    request: Request,
    from_: int | None = Query(None, alias="from", ge=0, le=MAX_INT64),
    to: int | None = Query(None, ge=0, le=MAX_INT64),
) -> Response:
    permissions.require_group(request, Operation.DESCRIBE, group_id)
    permissions.require_topic(request, Operation.DESCRIBE, topic)
    # at most so many offsets (when both ends are given) and records an answer
    start, end, views = await deps.engine_of(request).share_admin.record_views(
        group_id, topic, partition, from_, to, MAX_RECORD_VIEWS
    )
    return json_response(wire.show_record_views(start, end, views))


@router.post(
    "/{group_id}/offsets",
    summary="Reset start offsets (empty group only)",
    openapi_extra=schemas.documented_body(wire.ShareOffsetsReset),
    responses={200: {"model": schemas.ShareOffsetsResetResponse}, **schemas.ERRORS},
)
async def reset_offsets(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.READ, group_id)
    b = deps.broker_of(request)
    targets, dry_run = wire.parse_reset(
        await read_body(request, b.settings.max_request_bytes), b.settings
    )
    permissions.require_all(request, Operation.READ, ResourceType.TOPIC, (t.topic for t in targets))
    done = await b.engine.share_admin.reset_offsets(group_id, targets, dry_run)
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
    permissions.require_group(request, Operation.DELETE, group_id)
    permissions.require_topic(request, Operation.READ, topic)
    await deps.engine_of(request).share_admin.delete_offsets(group_id, topic)
    return Response(status_code=204)


@router.delete(
    "/{group_id}",
    status_code=204,
    summary="Delete a share group (empty only)",
    responses=schemas.ERRORS,
)
async def delete_group(group_id: str, request: Request) -> Response:
    permissions.require_group(request, Operation.DELETE, group_id)
    await deps.engine_of(request).share_admin.delete_group(group_id)
    return Response(status_code=204)
