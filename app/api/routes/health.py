from __future__ import annotations

import functools

from fastapi import APIRouter, Request
from starlette.responses import PlainTextResponse, Response

from app import metrics
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
    b = deps.broker_of(request)
    if not b.ready:
        raise Unavailable(ErrorCode.NOT_READY)
    health = b.storage_health
    if health.failing:  # still ready: reads are served, writes answer KAFKA_STORAGE_ERROR
        return json_response({"status": "ready", "storage": "failing", "error": health.last_error})
    return json_response({"status": "ready"})


@router.get("/metrics", summary="Prometheus text format", response_class=PlainTextResponse)
async def metrics_text(request: Request) -> Response:
    permissions.require_cluster(request, Operation.DESCRIBE)
    b = deps.broker_of(request)
    stats = b.statistics()
    gauges = [
        metrics.Gauge("sluice_topics", "topics", lambda: stats["topics"]),
        metrics.Gauge("sluice_partitions", "partitions", lambda: stats["partitions"]),
        metrics.Gauge("sluice_ready", "1 when serving", lambda: 1.0 if b.ready else 0.0),
        # the disk
        metrics.Gauge(
            "sluice_storage_failing",
            "1 while the disk refuses writes (full or failing), 0 once one succeeds again",
            lambda: 1.0 if b.storage_health.failing else 0.0,
        ),
        metrics.Gauge(
            "sluice_storage_errors",
            "writes and fsyncs the disk refused since the start (a counter)",
            lambda: float(b.storage_health.errors),
        ),
        metrics.Gauge(
            "sluice_storage_error_episodes",
            "times the disk started refusing writes since the start (a counter)",
            lambda: float(b.storage_health.episodes),
        ),
        # transactions
        metrics.Gauge(
            "sluice_transactions_open",
            "transactions in state Ongoing",
            lambda: stats["transactions"]["Ongoing"],
        ),
        metrics.Gauge(
            "sluice_transactional_ids",
            "transactional ids known",
            lambda: sum(stats["transactions"].values()),
        ),
        # consumer groups
        metrics.Gauge(
            "sluice_consumer_groups", "consumer groups", lambda: len(deps.groups(request).groups)
        ),
        metrics.Gauge(
            "sluice_consumer_group_members",
            "members of consumer groups",
            lambda: sum(len(g.members) for g in deps.groups(request).groups.values()),
        ),
        # share groups
        metrics.Gauge("sluice_share_groups", "share groups", lambda: stats["share_groups"]),
        metrics.Gauge(
            "sluice_share_members", "members of share groups", lambda: stats["share_members"]
        ),
        *(
            metrics.Gauge(
                f"sluice_share_records_{state}",
                f"in-flight share-partition records {state}",
                functools.partial(float, n),
            )
            for state, n in stats["share_records"].items()
        ),
        metrics.Gauge(
            "sluice_share_dead_letter_copies",
            "records copied to dead-letter topics",
            lambda: stats["share_dead_letter_copies"],
        ),
    ]
    return PlainTextResponse(
        b.metrics.render(gauges), media_type="text/plain; version=0.0.4; charset=utf-8"
    )
