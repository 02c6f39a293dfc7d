"""Topics: create, list, describe, patch, delete, and delete-records.

Handlers read the body, parse it with ``app.api.wire.topics``, call one method of the seam's
``Topics`` (``deps.engine_of(request).topics``, docs/engine.md) and shape the answer.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import topics as wire
from app.security import permissions
from app.security.acls import Operation, ResourceType

router = APIRouter(prefix="/v1/topics", tags=["topics"])


@router.post(
    "",
    status_code=201,
    summary="Create a topic",
    openapi_extra=schemas.documented_body(wire.TopicCreate),
    responses={201: {"model": schemas.TopicDescription}, **schemas.ERRORS},
)
async def create_topic(request: Request) -> Response:
    permissions.require_some_topic_creation(request)
    s = deps.broker_of(request).settings
    new = wire.parse_create(await read_body(request, s.max_request_bytes), s)
    permissions.require_topic_creation(request, new.name)
    topic = await deps.engine_of(request).topics.create(new.name, new.partitions, new.config)
    return json_response(wire.show_topic(topic), 201)


@router.get("", summary="List topics", responses={200: {"model": schemas.TopicList}})
async def list_topics(request: Request) -> Response:
    visible = permissions.visible(request, ResourceType.TOPIC)
    listed = await deps.engine_of(request).topics.list()
    return json_response(
        {
            "topics": [
                {"name": t.name, "partitions": t.partitions} for t in listed if visible(t.name)
            ]
        }
    )


@router.get(
    "/{topic}",
    summary="Describe a topic",
    responses={200: {"model": schemas.TopicDescription}, **schemas.ERRORS},
)
async def describe_topic(topic: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.DESCRIBE, topic)
    return json_response(wire.show_topic(await deps.engine_of(request).topics.get(topic)))


@router.patch(
    "/{topic}",
    summary="Add partitions or change the config",
    openapi_extra=schemas.documented_body(wire.TopicPatch),
    responses={200: {"model": schemas.TopicDescription}, **schemas.ERRORS},
)
async def update_topic(topic: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.ALTER, topic)
    s = deps.broker_of(request).settings
    topics = deps.engine_of(request).topics
    raw = await read_body(request, s.max_request_bytes)
    # an unknown topic is a 404 whatever its body says: looked up before the body is judged
    await topics.get(topic)
    change = wire.parse_patch(raw, s)
    updated = await topics.update(topic, change.partitions, change.config)
    return json_response(wire.show_topic(updated))


@router.delete(
    "/{topic}", status_code=204, summary="Delete a topic and its data", responses=schemas.ERRORS
)
async def delete_topic(topic: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.DELETE, topic)
    await deps.engine_of(request).topics.delete(topic)
    return Response(status_code=204)


@router.post(
    "/{topic}/delete-records",
    summary="Move log start offsets forward",
    openapi_extra=schemas.documented_body(wire.DeleteRecordsRequest),
    responses={200: {"model": schemas.DeleteRecordsResponse}, **schemas.ERRORS},
)
async def delete_records(topic: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.DELETE, topic)
    s = deps.broker_of(request).settings
    wanted = wire.parse_delete_records(await read_body(request, s.max_request_bytes), s)
    done = await deps.engine_of(request).topics.delete_records(topic, wanted)
    return json_response(
        {"partitions": [{"partition": p, "log_start_offset": start} for p, start in done]}
    )
