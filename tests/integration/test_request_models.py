"""The request models of ``app.api.schemas`` (the OpenAPI document) against the parsers the
server really runs: every example parses, and dropping any field a model documents as required
(nested ones too) makes the parser refuse the body.

Most bodies have a parser function, called directly here. Four share-group bodies are parsed
inline by the share router; those are posted to a running app instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from types import UnionType
from typing import Any, Union, get_args, get_origin

import httpx
import orjson
import pytest
from pydantic import BaseModel

from app.api import schemas
from app.api.wire import acls, groups, quotas, records, share, topics, txn
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.security import keys
from app.security.quota_admin import validate_override
from app.share import group_config

from .conftest import Served
from .helpers import create_topic, produce

Path = tuple[str | int, ...]
NOW_MS = 1_700_000_000_000
SETTINGS = Settings()


def _no_ack_errors(acks: Mapping[Any, Any]) -> None:
    """Malformed ranges of a partition are a per-partition error, not an exception."""
    bad = [v for v in acks.values() if isinstance(v, SluiceError)]
    if bad:
        raise bad[0]


def _txn_acks(body: dict[str, Any]) -> None:
    _no_ack_errors(txn.parse_acknowledgements(body, SETTINGS.share_max_release_delay_ms).acks)


def _txn_commit(body: dict[str, Any]) -> None:
    _, work = txn.parse_commit(
        body,
        NOW_MS,
        SETTINGS.max_records_per_request,
        SETTINGS.max_record_bytes,
        SETTINGS.share_max_release_delay_ms,
    )
    for group in work.acks:
        _no_ack_errors(group.acks)


PARSERS: dict[type[BaseModel], Callable[[dict[str, Any]], object]] = {
    schemas.ProduceRequest: lambda b: records.parse_produce(
        b, NOW_MS, SETTINGS.max_records_per_request, SETTINGS.max_record_bytes, orjson.dumps(b)
    ),
    schemas.TopicCreate: lambda b: topics.parse_create(
        b, SETTINGS.default_partitions, SETTINGS.max_partitions
    ),
    schemas.TopicPatch: lambda b: topics.parse_patch(b, SETTINGS.max_partitions),
    schemas.DeleteRecordsRequest: topics.parse_delete_records,
    schemas.InitProducerRequest: txn.parse_init,
    schemas.ProducerIdentity: txn.parse_producer,
    schemas.StatefulProduceRequest: lambda b: txn.parse_produce(
        b, NOW_MS, SETTINGS.max_records_per_request, SETTINGS.max_record_bytes
    ),
    schemas.TxnOffsetsRequest: txn.parse_offsets,
    schemas.TxnCommitRequest: _txn_commit,
    schemas.TxnCommitAllRequest: lambda b: txn.parse_commit_all(b, SETTINGS.txn_commit_all_max),
    schemas.TxnAbortPrefixRequest: txn.parse_abort_prefix,
    schemas.GroupHeartbeatRequest: groups.parse_heartbeat,
    schemas.OffsetCommitRequest: groups.parse_commit,
    schemas.ShareGroupConfig: lambda b: group_config.validate(b, {}, SETTINGS),
    schemas.ShareAcquisitionsAcknowledgeRequest: share.parse_acquisitions_ack,
    schemas.TxnAcknowledgementsRequest: _txn_acks,
    schemas.AclBindingRequest: acls.parse_binding,
    schemas.QuotaSet: lambda b: validate_override(quotas.parse_set(b)),
    schemas.KeyCreate: keys.parse_create,
}

# share-group bodies (app.api.wire.share) succeed only against a group with acquired
# records: checked over HTTP below
SHARE_ROUTER_PARSED: tuple[type[BaseModel], ...] = (
    schemas.ShareHeartbeatRequest,
    schemas.ShareFetchRequest,
    schemas.ShareAcknowledgeRequest,
    schemas.ShareOffsetsReset,
)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model inside ``X``, ``list[X]``, ``X | None``…, or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (list, Union, UnionType):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def required_paths(
    model: type[BaseModel], example: dict[str, Any], at: Path = ()
) -> Iterator[Path]:
    """Paths of the example's fields that ``model`` documents as required, nested models
    included (through the first item of a list)."""
    for field_name, info in model.model_fields.items():
        key = info.alias or field_name
        if info.is_required():
            assert key in example, f"the example of {model.__name__} lacks required {key}"
            yield (*at, key)
        sub = _model_in(info.annotation)
        value = example.get(key)
        if sub is None or value is None:
            continue
        if isinstance(value, list):
            if value and isinstance(value[0], dict):
                yield from required_paths(sub, value[0], (*at, key, 0))
        elif isinstance(value, dict):
            yield from required_paths(sub, value, (*at, key))


def without(example: dict[str, Any], path: Path) -> dict[str, Any]:
    body = copy.deepcopy(example)
    parent: Any = body
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return body


def cases(models: tuple[type[BaseModel], ...] | list[type[BaseModel]]) -> list[Any]:
    return [
        pytest.param(m, i, id=f"{m.__name__}[{i}]")
        for m in models
        for i in range(len(schemas.examples(m)))
    ]


# -- coverage -----------------------------------------------------------------------------------


def test_every_request_model_has_an_example_and_a_parser() -> None:
    for model in schemas.REQUEST_MODELS:
        assert schemas.examples(model), f"{model.__name__} has no example"
    assert set(PARSERS) | set(SHARE_ROUTER_PARSED) == set(schemas.REQUEST_MODELS)
    assert not set(PARSERS) & set(SHARE_ROUTER_PARSED)


async def test_examples_are_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    components = (await client.get("/openapi.json")).json()["components"]["schemas"]
    for model in schemas.REQUEST_MODELS:
        assert components[model.__name__]["examples"] == schemas.examples(model)


# -- parser functions ---------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "i"), cases(list(PARSERS)))
def test_example_parses(model: type[BaseModel], i: int) -> None:
    PARSERS[model](schemas.examples(model)[i])


@pytest.mark.parametrize(("model", "i"), cases(list(PARSERS)))
def test_required_fields_are_required(model: type[BaseModel], i: int) -> None:
    example = schemas.examples(model)[i]
    for path in required_paths(model, example):
        with pytest.raises(InvalidRequest):
            PARSERS[model](without(example, path))


def test_required_paths_walks_nested_models() -> None:
    example = schemas.examples(schemas.StatefulProduceRequest)[0]
    paths = set(required_paths(schemas.StatefulProduceRequest, example))
    assert {
        ("producer_id",),
        ("batches",),
        ("batches", 0, "topic"),
        ("batches", 0, "records"),
    } <= paths


def test_every_share_fetch_example_parses() -> None:
    """The router's parser, on each example (the first is also posted below; the others, a
    fetch by acquisition id among them, need no state to parse)."""
    for example in schemas.examples(schemas.ShareFetchRequest):
        fetch = share.parse_fetch(
            example,
            SETTINGS.max_read_records,
            SETTINGS.max_wait_ms,
            SETTINGS.share_max_release_delay_ms,
        )
        _no_ack_errors(fetch.acks)


# -- share groups, over HTTP -------------------------------------------------------------------


def _refused(r: httpx.Response) -> bool:
    """Refused as malformed: the whole request, or one partition's part of it."""
    if r.status_code == 400:
        return bool(r.json()["error"]["code"] == ErrorCode.INVALID_REQUEST.name)
    assert r.status_code == 200, r.text
    answer = r.json()
    per_partition = answer.get("results", []) + answer.get("acknowledgement_errors", [])
    return any(
        p["error"] is not None and p["error"]["code"] == ErrorCode.INVALID_REQUEST.name
        for p in per_partition
    )


async def test_share_router_examples(served: Served) -> None:
    """A group with records acquired by one member, in which each example, as it stands,
    succeeds. Each body with a required field dropped is posted first: refused as malformed,
    a body changes nothing (a malformed partition of an acknowledgement is not applied), so
    the refusal cannot come from a state an earlier request left."""
    c = served.client
    await create_topic(c, "orders", 2)
    await create_topic(c, "orders-dlq", 1)
    config = schemas.examples(schemas.ShareGroupConfig)[0]  # reads from the earliest offset
    for group in ("analytics", "reporting"):
        r = await c.patch(f"/v1/share-groups/{group}/config", json=config)
        assert r.status_code == 200, r.text
    r = await c.post(
        "/v1/share-groups/analytics/heartbeat",
        json=schemas.examples(schemas.ShareHeartbeatRequest)[0],
    )
    assert r.status_code == 200, r.text
    member = r.json()["member_id"]  # the examples' member ids are replaced by this one
    await produce(c, "orders", [{"value": str(i), "partition": 0} for i in range(30)])
    r = await c.post(
        "/v1/share-groups/analytics/fetch", json={"member_id": member, "max_records": 1000}
    )
    assert r.status_code == 200, r.text
    assert [
        (a["partition"], a["first_offset"], a["last_offset"]) for a in r.json()["acquired"]
    ] == [(0, 0, 29)]

    bodies: list[tuple[type[BaseModel], str, dict[str, Any]]] = [
        (
            schemas.ShareAcknowledgeRequest,
            "/v1/share-groups/analytics/acknowledge",
            {**schemas.examples(schemas.ShareAcknowledgeRequest)[0], "member_id": member},
        ),
        (
            schemas.ShareFetchRequest,
            "/v1/share-groups/analytics/fetch",
            {**schemas.examples(schemas.ShareFetchRequest)[0], "member_id": member},
        ),
        (
            schemas.ShareOffsetsReset,
            "/v1/share-groups/reporting/offsets",
            schemas.examples(schemas.ShareOffsetsReset)[0],
        ),
    ]
    # the heartbeat example (a join) was posted above and has no required field
    assert not list(
        required_paths(
            schemas.ShareHeartbeatRequest, schemas.examples(schemas.ShareHeartbeatRequest)[0]
        )
    )
    assert {m for m, _, _ in bodies} | {schemas.ShareHeartbeatRequest} == set(SHARE_ROUTER_PARSED)
    for model, path, body in bodies:
        for field in required_paths(model, body):
            r = await c.post(path, json=without(body, field))
            assert _refused(r), (model.__name__, field, r.status_code, r.text)
        r = await c.post(path, json=body)
        assert r.status_code == 200, (model.__name__, r.text)
        answer = r.json()
        errors = answer.get("results", []) + answer.get("acknowledgement_errors", [])
        assert all(e["error"] is None for e in errors), (model.__name__, r.text)
