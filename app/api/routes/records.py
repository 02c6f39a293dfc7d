from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response
from app.api.wire import batches, columns
from app.api.wire import records as wire
from app.api.wire.body import MAX_INT64
from app.security import permissions, principal_of
from app.security.acls import Operation
from app.topics import validate_name

router = APIRouter(prefix="/v1/topics/{topic}", tags=["records"])

Isolation = Literal["read_uncommitted", "read_committed"]


@router.post(
    "/records",
    summary="Produce records (simple produce)",
    openapi_extra={
        **schemas.documented_body(wire.ProduceRequest),
        "parameters": [schemas.IDEMPOTENCY_KEY_HEADER],
    },
    responses={200: {"model": schemas.ProduceResponse}, **schemas.ERRORS},
)
async def produce(topic: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.WRITE, topic)
    b = deps.broker_of(request)
    producers = b.engine.producers
    idempotency_key = request.headers.get("idempotency-key")
    s = b.settings
    async with deps.produce_body(request) as raw:
        records = wire.parse_produce(raw, s, b.clock.now_ms())
        if idempotency_key is None:
            produced = await producers.produce(topic, records)
        else:
            produced = await producers.produce_keyed(
                topic, records, idempotency_key, raw, principal_of(request)
            )
    return json_response(
        {"offsets": [{"partition": p, "offset": o, "timestamp": t} for p, o, t in produced]}
    )


@router.post(
    "/partitions/{partition}/batches",
    summary="Produce record batches as they are (Kafka's RecordBatch v2)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                batches.REQUEST_MEDIA_TYPE: {
                    "schema": {
                        "type": "string",
                        "format": "binary",
                        "description": "one or more RecordBatch v2 (docs/api.md#produce-batches)",
                    }
                }
            },
        },
        "parameters": [
            {
                "name": "transactional_id",
                "in": "query",
                "required": False,
                "schema": {"type": "string"},
                "description": "the producer's, for a transactional batch",
            }
        ],
    },
    responses={
        200: {"model": schemas.StatefulProduceResponse},
        **schemas.ERRORS,
        # a body sent as anything but a record batch (UNSUPPORTED_MEDIA_TYPE)
        415: {"model": schemas.ErrorBody},
    },
)
async def produce_batches(topic: str, partition: str, request: Request) -> Response:
    permissions.require_topic(request, Operation.WRITE, topic)
    p = batches.path_partition(partition)
    # most requests have no query: its parse (a few µs) is skipped
    tid = request.query_params.get("transactional_id") if request.scope["query_string"] else None
    if tid is not None:
        validate_name(tid, "transactional id")
        permissions.require_txn(request, Operation.WRITE, tid)
    batches.check_media_type(request.headers.get("content-type"))
    producers = deps.engine_of(request).producers
    async with deps.produce_body(request) as raw:
        results = await producers.produce_client_batches(topic, p, raw, tid, principal_of(request))
    return json_response(
        {
            "batches": [
                {
                    "topic": r.topic,
                    "partition": r.partition,
                    "base_offset": r.base_offset,
                    "error": None,
                }
                for r in results
            ]
        }
    )


@router.get(
    "/partitions/{partition}/records",
    summary="Read records by offset (long poll)",
    responses={
        200: {
            "model": schemas.ReadResponse,
            "content": {
                columns.MEDIA_TYPE: {
                    "schema": {
                        "type": "string",
                        "format": "binary",
                        "description": "format=columns: the columnar layout of docs/api.md",
                    }
                },
                batches.MEDIA_TYPE: {
                    "schema": {
                        "type": "string",
                        "format": "binary",
                        "description": "format=batches: record batches in the envelope of "
                        "docs/api.md",
                    }
                },
            },
        },
        **schemas.ERRORS,
    },
)
async def read(
    topic: str,
    partition: schemas.Partition,
    request: Request,
    offset: int = Query(0, ge=0, le=MAX_INT64),
    max_records: int = Query(500, ge=1, le=MAX_INT64, description="clamped to the server limit"),
    max_bytes: int = Query(1_048_576, ge=1, le=64 * 1024 * 1024),
    max_wait_ms: int = Query(0, ge=0, le=MAX_INT64, description="clamped to the server limit"),
    isolation_level: Isolation = "read_uncommitted",
    encoding: schemas.Encoding = "utf8",
    format: Literal["json", "columns", "batches"] = Query(
        "json",
        description="columns: one binary body of columnar buffers; batches: the record batches "
        "as stored (docs/api.md)",
    ),
) -> Response:
    permissions.require_topic(request, Operation.READ, topic)
    b = deps.broker_of(request)
    reads = b.engine.reads
    quota = b.quotas.fetch.admit(principal_of(request))
    max_wait_ms = min(max_wait_ms, b.settings.max_wait_ms)
    if format == "batches":
        stored = await reads.read_batches(
            topic,
            partition,
            offset,
            max_records=min(max_records, b.settings.max_read_records),
            max_bytes=max_bytes,
            max_wait_ms=max_wait_ms,
            committed=isolation_level == "read_committed",
        )
        head = {
            "next_offset": stored.result.next_offset,
            "high_watermark": stored.high_watermark,
            "last_stable_offset": stored.last_stable_offset,
            "log_start_offset": stored.log_start_offset,
            "batches": len(stored.result.batches),
        }
        response = Response(
            batches.envelope(head, stored.result.batches), media_type=batches.MEDIA_TYPE
        )
        if quota is not None:
            quota.record(len(response.body))
        return response
    answer = await reads.read(
        topic,
        partition,
        offset,
        max_records=min(max_records, b.settings.max_read_records),
        max_bytes=max_bytes,
        max_wait_ms=max_wait_ms,
        committed=isolation_level == "read_committed",
    )
    meta = {
        "next_offset": answer.result.next_offset,
        "high_watermark": answer.high_watermark,
        "last_stable_offset": answer.last_stable_offset,
        "log_start_offset": answer.log_start_offset,
    }
    if format == "columns":
        body = columns.encode(answer.result.records, meta)
        response = Response(body, media_type=columns.MEDIA_TYPE)
    else:
        response = json_response(
            {
                "records": [
                    wire.show_record(r, topic, partition, encoding) for r in answer.result.records
                ],
                **meta,
            }
        )
    if quota is not None:
        quota.record(len(response.body))
    return response


@router.get(
    "/partitions/{partition}/offsets",
    summary="ListOffsets: earliest, latest, or the first offset at a timestamp",
    responses={200: {"model": schemas.ListOffsetsResponse}, **schemas.ERRORS},
)
async def offsets(
    topic: str,
    partition: schemas.Partition,
    request: Request,
    at: str = Query("latest", description="earliest | latest | <timestamp ms>"),
    isolation_level: Isolation = "read_uncommitted",
) -> Response:
    permissions.require_topic(request, Operation.DESCRIBE, topic)
    offset, ts = await deps.engine_of(request).reads.list_offsets(
        topic, partition, at, committed=isolation_level == "read_committed"
    )
    return json_response({"offset": offset, "timestamp": ts})
