from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_json
from app.api.wire import share as share_wire
from app.api.wire import txn as wire
from app.security import permissions, principal_of
from app.security.acls import Operation, ResourceType
from app.topics import validate_name

if TYPE_CHECKING:
    from app.runtime import Broker

router = APIRouter(prefix="/v1/transactions", tags=["transactions"])
# operations on several transactions at once: custom methods of the collection
# (/v1/transactions:<verb>), which no transactional id in a path can be taken for
several = APIRouter(tags=["transactions"])


async def _txn_request(tid: str, request: Request) -> tuple[Broker, Any]:
    """The broker and the JSON body of a request on transactional id ``tid`` (checked)."""
    b = deps.broker_of(request)
    validate_name(tid, "transactional id")
    permissions.require_txn(request, Operation.WRITE, tid)
    body, _ = await read_json(request, b.settings.max_request_bytes)
    return b, body


@several.post(
    "/v1/transactions:commit-all",
    summary="Commit several open transactions atomically, all of them or none; with an "
    "idempotency key, a repeated request commits nothing and aborts its open transactions",
    openapi_extra=schemas.documented_body(schemas.TxnCommitAllRequest),
    responses={200: {"model": schemas.TxnCommitAllResponse}, **schemas.ERRORS},
)
async def commit_all(request: Request) -> Response:
    permissions.require_some(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    b = deps.broker_of(request)
    body, _ = await read_json(request, b.settings.max_request_bytes)
    req = wire.parse_commit_all(body, b.settings.txn_commit_all_max)
    permissions.require_all(
        request,
        Operation.WRITE,
        ResourceType.TRANSACTIONAL_ID,
        (t.transactional_id for t in req.transactions),
    )
    done = await b.transactions.commit_all(
        req.transactions, req.idempotency_key, principal_of(request)
    )
    return json_response(wire.show_commit_all(done))


@several.post(
    "/v1/transactions:abort-prefix",
    summary="Abort and fence every open transaction whose transactional id starts with the "
    "prefix (of those the caller may WRITE)",
    openapi_extra=schemas.documented_body(schemas.TxnAbortPrefixRequest),
    responses={200: {"model": schemas.TxnAbortPrefixResponse}, **schemas.ERRORS},
)
async def abort_prefix(request: Request) -> Response:
    permissions.require_some(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    b = deps.broker_of(request)
    body, _ = await read_json(request, b.settings.max_request_bytes)
    prefix = wire.parse_abort_prefix(body)
    writable = permissions.allowed(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    return json_response({"aborted": await b.transactions.abort_prefix(prefix, writable)})


@router.post(
    "/{tid}/commit",
    summary="Commit, optionally adding records, consumer-group offsets and share "
    "acknowledgements in the same request; answers the epoch for the next transaction",
    openapi_extra=schemas.documented_body(schemas.TxnCommitRequest),
    responses={200: {"model": schemas.ProducerIdentity}, **schemas.ERRORS},
)
async def commit(tid: str, request: Request) -> Response:
    b = deps.broker_of(request)
    validate_name(tid, "transactional id")
    permissions.require_txn(request, Operation.WRITE, tid)
    s = b.settings
    body, raw = await read_json(request, s.max_request_bytes)
    producer, work = wire.parse_commit(
        body,
        b.clock.now_ms(),
        s.max_records_per_request,
        s.max_record_bytes,
        s.share_max_release_delay_ms,
        raw,
    )
    permissions.require_all(
        request, Operation.WRITE, ResourceType.TOPIC, (rb.topic for rb in work.batches)
    )
    principal = principal_of(request)
    for g in work.offsets:
        permissions.require_reads(request, g.group_id, (o.topic for o in g.offsets))
        b.groups.check_owner(g.group_id, g.member_id, principal)
    for a in work.acks:
        permissions.require_reads(request, a.group_id, (t for t, _ in a.acks))
        b.share.membership.check_owner(a.group_id, a.member_id, principal)
    # records in the commit count against the produce quota, as in POST /v1/produce (and,
    # once admitted, whatever the commit's outcome)
    quota = b.quotas.produce.admit(principal_of(request)) if work.batches else None
    try:
        pid, epoch = await b.transactions.commit_with(
            tid, producer.producer_id, producer.producer_epoch, work
        )
    finally:
        if quota is not None:
            quota.record(len(raw))
    return json_response({"producer_id": pid, "producer_epoch": epoch})


@router.post(
    "/{tid}/abort",
    summary="Abort: markers on every partition, then the epoch for the next transaction",
    openapi_extra=schemas.documented_body(schemas.ProducerIdentity),
    responses={200: {"model": schemas.ProducerIdentity}, **schemas.ERRORS},
)
async def abort(tid: str, request: Request) -> Response:
    b, body = await _txn_request(tid, request)
    req = wire.parse_producer(body)
    pid, epoch = await b.transactions.end_txn(tid, req.producer_id, req.producer_epoch, False)
    return json_response({"producer_id": pid, "producer_epoch": epoch})


@router.post(
    "/{tid}/offsets",
    summary="Consumer-group offsets committed only if the transaction commits (KIP-447)",
    openapi_extra=schemas.documented_body(schemas.TxnOffsetsRequest),
    responses={200: {"model": schemas.TxnOffsetsResponse}, **schemas.ERRORS},
)
async def offsets(tid: str, request: Request) -> Response:
    b, body = await _txn_request(tid, request)
    req = wire.parse_offsets(body)
    permissions.require_reads(request, req.group_id, (o.topic for o in req.offsets))
    b.groups.check_owner(req.group_id, req.member_id, principal_of(request))
    await b.transactions.add_offsets(
        tid,
        req.producer_id,
        req.producer_epoch,
        req.group_id,
        req.member_id,
        req.member_epoch,
        req.group_instance_id,
        req.offsets,
    )
    return json_response(
        {
            "offsets": [
                {"topic": o.topic, "partition": o.partition, "error": None} for o in req.offsets
            ]
        }
    )


@router.post(
    "/{tid}/acknowledgements",
    summary="Share-group acknowledgements applied only "
    "if the transaction commits; abort releases the records",
    openapi_extra=schemas.documented_body(schemas.TxnAcknowledgementsRequest),
    responses={200: {"model": schemas.ShareAcknowledgeResponse}, **schemas.ERRORS},
)
async def acknowledgements(tid: str, request: Request) -> Response:
    b, body = await _txn_request(tid, request)
    req = wire.parse_acknowledgements(body, b.settings.share_max_release_delay_ms)
    permissions.require_reads(request, req.group_id, (t for t, _ in req.acks))
    b.share.membership.check_owner(req.group_id, req.member_id, principal_of(request))
    results = await b.transactions.add_acknowledgements(
        tid, req.producer_id, req.producer_epoch, req.group_id, req.member_id, req.acks
    )
    return json_response({"results": share_wire.show_results(results)})


@router.get(
    "",
    summary="List transactions",
    responses={200: {"model": schemas.TransactionList}, **schemas.ERRORS},
)
async def list_transactions(
    request: Request, state: str | None = Query(None, description="e.g. Ongoing")
) -> Response:
    txns = deps.transactions(request).all(wire.parse_state(state))
    visible = permissions.visible(request, ResourceType.TRANSACTIONAL_ID)
    topics = permissions.visible(request, ResourceType.TOPIC)
    return json_response(
        {
            "transactions": [
                wire.show_transaction(tm, topics) for tm in txns if visible(tm.transactional_id)
            ]
        }
    )


@router.get(
    "/{tid}",
    summary="Describe one transaction",
    responses={200: {"model": schemas.TransactionDescription}, **schemas.ERRORS},
)
async def describe(tid: str, request: Request) -> Response:
    permissions.require_txn(request, Operation.DESCRIBE, tid)
    topics = permissions.visible(request, ResourceType.TOPIC)
    return json_response(wire.show_transaction(deps.transactions(request).get(tid), topics))
