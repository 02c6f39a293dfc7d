"""Transactions: commit (with records, offsets and acknowledgements in the same request), abort,
transactional offsets and acknowledgements, several at once, list and describe.

Handlers read the body, parse it with ``app.api.wire.txn``, make the ACL checks, call the
seam's ``Transactions`` (``deps.engine_of(request).transactions``, docs/engine.md) and shape
the answer; the checks that a request's groups decide (the owner of a member it names) are
the engine's.
"""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api import deps, schemas
from app.api.deps import json_response, read_body
from app.api.wire import share as share_wire
from app.api.wire import txn as wire
from app.config import Settings
from app.engine import Transactions
from app.security import permissions, principal_of
from app.security.acls import Operation, ResourceType
from app.topics import validate_name

router = APIRouter(prefix="/v1/transactions", tags=["transactions"])
# operations on several transactions at once: custom methods of the collection
# (/v1/transactions:<verb>), which no transactional id in a path can be taken for
several = APIRouter(tags=["transactions"])


async def _txn_request(tid: str, request: Request) -> tuple[Transactions, bytes, Settings]:
    """The engine's transactions, the body of a request on transactional id ``tid`` (checked)
    and the settings it is parsed by."""
    s = deps.broker_of(request).settings
    validate_name(tid, "transactional id")
    permissions.require_txn(request, Operation.WRITE, tid)
    return deps.engine_of(request).transactions, await read_body(request, s.max_request_bytes), s


@several.post(
    "/v1/transactions:commit-all",
    summary="Commit several open transactions atomically, all of them or none; with an "
    "idempotency key, a repeated request commits nothing and aborts its open transactions",
    openapi_extra=schemas.documented_body(wire.TxnCommitAllRequest),
    responses={200: {"model": schemas.TxnCommitAllResponse}, **schemas.ERRORS},
)
async def commit_all(request: Request) -> Response:
    permissions.require_some(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    b = deps.broker_of(request)
    req = wire.parse_commit_all(await read_body(request, b.settings.max_request_bytes), b.settings)
    permissions.require_all(
        request,
        Operation.WRITE,
        ResourceType.TRANSACTIONAL_ID,
        (t.transactional_id for t in req.transactions),
    )
    done = await deps.engine_of(request).transactions.commit_all(
        req.transactions, req.idempotency_key, principal_of(request)
    )
    return json_response(wire.show_commit_all(done))


@several.post(
    "/v1/transactions:abort-prefix",
    summary="Abort and fence every open transaction whose transactional id starts with the "
    "prefix (of those the caller may WRITE)",
    openapi_extra=schemas.documented_body(wire.TxnAbortPrefixRequest),
    responses={200: {"model": schemas.TxnAbortPrefixResponse}, **schemas.ERRORS},
)
async def abort_prefix(request: Request) -> Response:
    permissions.require_some(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    b = deps.broker_of(request)
    prefix = wire.parse_abort_prefix(
        await read_body(request, b.settings.max_request_bytes), b.settings
    )
    writable = permissions.allowed(request, Operation.WRITE, ResourceType.TRANSACTIONAL_ID)
    aborted = await deps.engine_of(request).transactions.abort_prefix(prefix, writable)
    return json_response({"aborted": aborted})


@router.post(
    "/{tid}/commit",
    summary="Commit, optionally adding records, consumer-group offsets and share "
    "acknowledgements in the same request; answers the epoch for the next transaction",
    openapi_extra=schemas.documented_body(wire.TxnCommitRequest),
    responses={200: schemas.answered_by(wire.ProducerIdentity), **schemas.ERRORS},
)
async def commit(tid: str, request: Request) -> Response:
    b = deps.broker_of(request)
    validate_name(tid, "transactional id")
    permissions.require_txn(request, Operation.WRITE, tid)
    s = b.settings
    raw = await read_body(request, s.max_request_bytes)
    producer, work = wire.parse_commit(raw, s, b.clock.now_ms())
    permissions.require_all(
        request, Operation.WRITE, ResourceType.TOPIC, (rb.topic for rb in work.batches)
    )
    transactions = deps.engine_of(request).transactions
    # READ on each group and its topics, then the group's owner check, group after group
    await transactions.check_work(
        work, principal_of(request), partial(permissions.require_reads, request)
    )
    # records in the commit count against the produce quota, as in POST /v1/produce (and,
    # once admitted, whatever the commit's outcome)
    quota = b.quotas.produce.admit(principal_of(request)) if work.batches else None
    try:
        pid, epoch = await transactions.commit_with(
            tid, producer.producer_id, producer.producer_epoch, work
        )
    finally:
        if quota is not None:
            quota.record(len(raw))
    return json_response({"producer_id": pid, "producer_epoch": epoch})


@router.post(
    "/{tid}/abort",
    summary="Abort: markers on every partition, then the epoch for the next transaction",
    openapi_extra=schemas.documented_body(wire.ProducerIdentity),
    responses={200: schemas.answered_by(wire.ProducerIdentity), **schemas.ERRORS},
)
async def abort(tid: str, request: Request) -> Response:
    transactions, raw, s = await _txn_request(tid, request)
    req = wire.parse_producer(raw, s)
    pid, epoch = await transactions.end_txn(tid, req.producer_id, req.producer_epoch, False)
    return json_response({"producer_id": pid, "producer_epoch": epoch})


@router.post(
    "/{tid}/offsets",
    summary="Consumer-group offsets committed only if the transaction commits (KIP-447)",
    openapi_extra=schemas.documented_body(wire.TxnOffsetsRequest),
    responses={200: {"model": schemas.TxnOffsetsResponse}, **schemas.ERRORS},
)
async def offsets(tid: str, request: Request) -> Response:
    transactions, raw, s = await _txn_request(tid, request)
    req = wire.parse_offsets(raw, s)
    permissions.require_reads(request, req.group_id, (o.topic for o in req.offsets))
    await transactions.add_offsets(
        tid,
        req.producer_id,
        req.producer_epoch,
        req.group_id,
        req.member_id,
        req.member_epoch,
        req.group_instance_id,
        req.offsets,
        principal_of(request),
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
    openapi_extra=schemas.documented_body(wire.TxnAcknowledgementsRequest),
    responses={200: {"model": schemas.ShareAcknowledgeResponse}, **schemas.ERRORS},
)
async def acknowledgements(tid: str, request: Request) -> Response:
    transactions, raw, s = await _txn_request(tid, request)
    req = wire.parse_acknowledgements(raw, s)
    permissions.require_reads(request, req.group_id, (t for t, _ in req.acks))
    results = await transactions.add_acknowledgements(
        tid,
        req.producer_id,
        req.producer_epoch,
        req.group_id,
        req.member_id,
        req.acks,
        principal_of(request),
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
    txns = await deps.engine_of(request).transactions.all(wire.parse_state(state))
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
    tm = await deps.engine_of(request).transactions.get(tid)
    return json_response(wire.show_transaction(tm, topics))
