from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import PlainTextResponse, Response

from app.api import deps
from app.api.deps import json_response
from app.errors import ErrorCode, Unavailable
from app.security import permissions
from app.security.acls import Operation

router = APIRouter(tags=["service"])


@router.get("/healthz", summary="200 while the process is alive")
async def healthz() -> Response:
    return json_response({"status": "ok"})


@router.get("/readyz", summary="200 once recovery finished; 503 before and while stopping")
async def readyz(request: Request) -> Response:
    e = deps.engine_of(request)
    if not e.ready:
        raise Unavailable(ErrorCode.NOT_READY)
    health = e.storage()
    if (
        health is not None and health.failing
    ):  # still ready: reads are served, writes answer KAFKA_STORAGE_ERROR
        return json_response({"status": "ready", "storage": "failing", "error": health.last_error})
    return json_response({"status": "ready"})


@router.get(
    "/metrics",
    summary="Prometheus text format; OpenMetrics when the Accept header asks for it",
    response_class=PlainTextResponse,
)
async def metrics_text(request: Request) -> Response:
    permissions.require_cluster(request, Operation.DESCRIBE)
    body, content_type = deps.broker_of(request).metrics.exposition(request.headers.get("accept"))
    return Response(body, media_type=content_type)
