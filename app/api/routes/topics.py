from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from app.api import schemas
from app.api.deps import broker, json_response, read_json, read_object
from app.errors import InvalidRequest
from app.runtime import Broker
from app.topics import Topic, effective_config

router = APIRouter(prefix="/v1/topics", tags=["topics"])


def describe(topic: Topic) -> dict[str, Any]:
    return {
        "name": topic.name,
        "config": effective_config(topic.config),
        "partitions": [
            {"partition": p, "log_start_offset": lg.log_start_offset,
             "high_watermark": lg.high_watermark, "last_stable_offset": lg.last_stable_offset}
            for p, lg in enumerate(topic.logs)
        ],
    }


@router.post("", status_code=201, summary="Create a topic",
             openapi_extra=schemas.documented_body(schemas.TopicCreate),
             responses={201: {"model": schemas.TopicDescription}, **schemas.ERRORS})
async def create_topic(request: Request, b: Broker = Depends(broker)) -> Response:
    body = await read_object(request, b.settings.max_request_bytes)
    partitions = body.get("partitions", b.settings.default_partitions)
    topic = await b.topics.create(body.get("name"), partitions, body.get("config"),
                                  b.clock.now_ms())
    return json_response(describe(topic), 201)


@router.get("", summary="List topics", responses={200: {"model": schemas.TopicList}})
async def list_topics(b: Broker = Depends(broker)) -> Response:
    return json_response({"topics": [
        {"name": t.name, "partitions": t.partitions}
        for t in sorted(b.topics.topics.values(), key=lambda t: t.name) if not t.deleting
    ]})


@router.get("/{topic}", summary="Describe a topic",
            responses={200: {"model": schemas.TopicDescription}, **schemas.ERRORS})
async def describe_topic(topic: str, b: Broker = Depends(broker)) -> Response:
    return json_response(describe(b.topics.get(topic)))


@router.patch("/{topic}", summary="Add partitions or change the config",
              openapi_extra=schemas.documented_body(schemas.TopicPatch),
              responses={200: {"model": schemas.TopicDescription}, **schemas.ERRORS})
async def update_topic(topic: str, request: Request, b: Broker = Depends(broker)) -> Response:
    body = await read_object(request, b.settings.max_request_bytes)
    updated = await b.topics.update(topic, body.get("partitions"), body.get("config"),
                                    b.clock.now_ms())
    return json_response(describe(updated))


@router.delete("/{topic}", status_code=204, summary="Delete a topic and its data",
               responses=schemas.ERRORS)
async def delete_topic(topic: str, b: Broker = Depends(broker)) -> Response:
    await b.topics.delete(topic)
    return Response(status_code=204)


@router.post("/{topic}/delete-records", summary="Move log start offsets forward",
             openapi_extra=schemas.documented_body(schemas.DeleteRecordsRequest),
             responses={200: {"model": schemas.DeleteRecordsResponse}, **schemas.ERRORS})
async def delete_records(topic: str, request: Request, b: Broker = Depends(broker)) -> Response:
    body, _ = await read_json(request, b.settings.max_request_bytes)
    parts = body.get("partitions") if isinstance(body, dict) else None
    if not isinstance(parts, list) or not parts:
        raise InvalidRequest("partitions: expected a non-empty list")
    wanted: list[tuple[int, int]] = []
    for i, item in enumerate(parts):
        p = item.get("partition") if isinstance(item, dict) else None
        before = item.get("before_offset") if isinstance(item, dict) else None
        for name, v, lo in (("partition", p, 0), ("before_offset", before, -1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise InvalidRequest(f"partitions[{i}].{name}: expected an integer ≥ {lo}")
        assert isinstance(p, int) and isinstance(before, int)
        wanted.append((p, before))
    done = await b.retention.delete_records(topic, wanted)
    return json_response({"partitions": [
        {"partition": p, "log_start_offset": start} for p, start in done]})
