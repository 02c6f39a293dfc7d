from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import txn as wire
from app.security import permissions, principal_of
from app.security.acls import Operation, ResourceType

router = APIRouter(prefix="/v1", tags=["producers"])


@router.post(
    "/producers",
    summary="InitProducerId: a producer id and epoch (fences older "
    "instances of a transactional id)",
    openapi_extra=schemas.documented_body(wire.InitProducerRequest, required=False),
    responses={200: schemas.answered_by(wire.ProducerIdentity), **schemas.ERRORS},
)
async def init_producer(request: Request) -> Response:
    permissions.require_some_producer(request)
    b = deps.broker_of(request)
    req = wire.parse_init(await read_body(request, b.settings.max_request_bytes), b.settings)
    if req.transactional_id is None:
        permissions.require_idempotent_write(request)
    else:
        permissions.require(
            request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id
        )
    pid, epoch = await b.engine.transactions.init_producer_id(
        req.transactional_id,
        req.transaction_timeout_ms,
        req.producer_id,
        req.producer_epoch,
        principal_of(request),
    )
    return json_response({"producer_id": pid, "producer_epoch": epoch})


@router.post(
    "/produce",
    summary="Produce with producer state (idempotent, transactional)",
    openapi_extra=schemas.documented_body(wire.StatefulProduceRequest),
    responses={200: {"model": schemas.StatefulProduceResponse}, **schemas.ERRORS},
)
async def produce(request: Request) -> Response:
    permissions.require_some(request, Operation.WRITE, ResourceType.TOPIC)
    b = deps.broker_of(request)
    s = b.settings
    async with deps.produce_body(request) as raw:
        req = wire.parse_produce(raw, s, b.clock.now_ms())
        if req.transactional_id is not None:
            permissions.require(
                request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id
            )
        permissions.require_all(
            request, Operation.WRITE, ResourceType.TOPIC, (rb.topic for rb in req.batches)
        )
        results = await b.engine.producers.produce_batches(
            req.producer_id,
            req.producer_epoch,
            req.transactional_id,
            req.batches,
            principal_of(request),
        )
    return json_response(
        {
            "batches": [
                {
                    "topic": r.topic,
                    "partition": r.partition,
                    "base_offset": r.base_offset,
                    "error": None if r.error is None else r.error.to_dict(),
                }
                for r in results
            ]
        }
    )
