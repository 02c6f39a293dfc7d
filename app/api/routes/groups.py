"""Consumer groups: heartbeat membership, offset commit and fetch, admin.

Handlers parse the body by hand (``read_json``), call one ``broker.groups`` method and shape
the answer.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from app.api import schemas
from app.api.deps import broker, broker_of, json_response, read_object
from app.errors import InvalidRequest
from app.groups.coordinator import OFFSET_METADATA_MAX_CHARS, HeartbeatAnswer
from app.groups.state import TopicPartition
from app.runtime import Broker
from app.topics import NAME

router = APIRouter(prefix="/v1/groups", tags=["consumer groups"])

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorBody} for code in (400, 404, 409, 429, 503)
}
_MAX_INT32 = 2**31 - 1
_MAX_INT64 = 2**63 - 1
_MAX_TOPICS = 10_000


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidRequest(f"{where}: expected an integer from {lo} to {hi}")
    return value


def _optional_int(value: Any, where: str, lo: int, hi: int) -> int | None:
    return None if value is None else _int(value, where, lo, hi)


def _member_id(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 255:
        raise InvalidRequest("member_id: expected null or a string of 1 to 255 characters")
    return value


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise InvalidRequest(f"{where}: expected 1-249 characters of [A-Za-z0-9._-]")
    return value


def _topics(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > _MAX_TOPICS:
        raise InvalidRequest(f"subscribed_topics: expected a list of at most {_MAX_TOPICS} names")
    return [_name(t, f"subscribed_topics[{i}]") for i, t in enumerate(value)]


def _owned(value: Any) -> frozenset[TopicPartition] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidRequest("owned_partitions: expected a list")
    out: set[TopicPartition] = set()
    for i, item in enumerate(value):
        where = f"owned_partitions[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("partitions"), list):
            raise InvalidRequest(f"{where}: expected {{\"topic\", \"partitions\": [...]}}")
        topic = _name(item.get("topic"), f"{where}.topic")
        for j, p in enumerate(item["partitions"]):
            out.add((topic, _int(p, f"{where}.partitions[{j}]", 0, _MAX_INT32)))
    return frozenset(out)


def _heartbeat_answer(a: HeartbeatAnswer) -> dict[str, Any]:
    return {"member_id": a.member_id, "member_epoch": a.member_epoch,
            "heartbeat_interval_ms": a.heartbeat_interval_ms,
            "assignment": [{"topic": t, "partitions": ps} for t, ps in a.assignment]}


@router.post("/{group_id}/heartbeat", summary="Join, heartbeat or leave a consumer group",
             openapi_extra=schemas.documented_body(schemas.GroupHeartbeatRequest),
             responses={200: {"model": schemas.GroupHeartbeatResponse}, **ERRORS})
async def heartbeat(group_id: str, request: Request) -> Response:
    b = broker_of(request)
    body = await read_object(request, b.settings.max_request_bytes)
    if "member_epoch" not in body:
        raise InvalidRequest("member_epoch is required")
    epoch = _int(body["member_epoch"], "member_epoch", -2, _MAX_INT32)
    instance = body.get("group_instance_id")
    if instance is not None:
        instance = _name(instance, "group_instance_id")
    answer = await b.groups.heartbeat(
        group_id, _member_id(body.get("member_id")), epoch, instance,
        _topics(body.get("subscribed_topics")),
        _optional_int(body.get("rebalance_timeout_ms"), "rebalance_timeout_ms", 1000,
                      _MAX_INT32),
        _owned(body.get("owned_partitions")))
    return json_response(_heartbeat_answer(answer))


def _commit_items(value: Any) -> list[tuple[str, int, int, str | None]]:
    if not isinstance(value, list) or not value:
        raise InvalidRequest("offsets: expected a non-empty list")
    out = []
    for i, item in enumerate(value):
        where = f"offsets[{i}]"
        if not isinstance(item, dict):
            raise InvalidRequest(f"{where}: expected an object")
        topic = _name(item.get("topic"), f"{where}.topic")
        partition = _int(item.get("partition"), f"{where}.partition", 0, _MAX_INT32)
        offset = _int(item.get("offset"), f"{where}.offset", 0, _MAX_INT64)
        metadata = item.get("metadata")
        if metadata is not None and (not isinstance(metadata, str)
                                     or len(metadata) > OFFSET_METADATA_MAX_CHARS):
            raise InvalidRequest(f"{where}.metadata: expected null or a string of at most "
                                 f"{OFFSET_METADATA_MAX_CHARS} characters")
        out.append((topic, partition, offset, metadata))
    return out


@router.post("/{group_id}/offsets", summary="Commit offsets (per-partition errors)",
             openapi_extra=schemas.documented_body(schemas.OffsetCommitRequest),
             responses={200: {"model": schemas.OffsetCommitResponse}, **ERRORS})
async def commit_offsets(group_id: str, request: Request) -> Response:
    b = broker_of(request)
    body = await read_object(request, b.settings.max_request_bytes)
    member_id = _member_id(body.get("member_id"))
    raw_epoch = body.get("member_epoch", -1 if member_id is None else None)
    if raw_epoch is None:
        raise InvalidRequest("member_epoch is required with a member_id")
    epoch = _int(raw_epoch, "member_epoch", -1, _MAX_INT32)
    items = _commit_items(body.get("offsets"))
    errors = await b.groups.commit_offsets(group_id, member_id, epoch, items)
    return json_response({"offsets": [
        {"topic": t, "partition": p, "error": None if e is None else e.to_dict()}
        for (t, p, _, _), e in zip(items, errors, strict=True)]})


@router.get("/{group_id}/offsets", summary="Fetch committed offsets",
            responses={200: {"model": schemas.OffsetFetchResponse}, **ERRORS})
async def fetch_offsets(group_id: str, b: Broker = Depends(broker),
                        topic: str | None = Query(None),
                        require_stable: bool = Query(False)) -> Response:
    views = b.groups.fetch_offsets(group_id, topic or None, require_stable)
    return json_response({"offsets": [
        {"topic": v.topic, "partition": v.partition, "offset": v.offset,
         "metadata": v.metadata, "error": None if v.error is None else v.error.to_dict()}
        for v in views]})


@router.delete("/{group_id}/offsets", status_code=204,
               summary="Delete a group's offsets (all, or of one topic); empty groups only",
               responses=ERRORS)
async def delete_offsets(group_id: str, b: Broker = Depends(broker),
                         topic: str | None = Query(None)) -> Response:
    await b.groups.delete_offsets(group_id, topic or None)
    return Response(status_code=204)


@router.get("", summary="List consumer groups", responses={200: {"model": schemas.GroupList}})
async def list_groups(b: Broker = Depends(broker)) -> Response:
    return json_response({"groups": b.groups.list_groups()})


@router.get("/{group_id}", summary="Describe a consumer group",
            responses={200: {"model": schemas.GroupDescription}, **ERRORS})
async def describe_group(group_id: str, b: Broker = Depends(broker)) -> Response:
    return json_response(b.groups.describe(group_id))


@router.delete("/{group_id}", status_code=204, summary="Delete an empty consumer group",
               responses=ERRORS)
async def delete_group(group_id: str, b: Broker = Depends(broker)) -> Response:
    await b.groups.delete_group(group_id)
    return Response(status_code=204)
