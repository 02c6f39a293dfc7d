"""The request bodies of ``app.api.wire`` (each one declaration: the parse and the OpenAPI
schema) against the parsers the server runs: every example parses, and dropping any field a
body declares as required (nested ones too) makes the parser refuse the body.

Most bodies parse without state, called directly here. Four share-group bodies succeed only
against a group with acquired records: those are posted to a running app instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import msgspec
import msgspec.inspect as mi
import orjson
import pytest

from app.api import schemas
from app.api.wire import acls, groups, keys, quotas, records, share, topics, txn
from app.api.wire.body import Part
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError
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


def _txn_acks(raw: bytes) -> None:
    _no_ack_errors(txn.parse_acknowledgements(raw, SETTINGS).acks)


def _txn_commit(raw: bytes) -> None:
    _, work = txn.parse_commit(raw, SETTINGS, NOW_MS)
    for group in work.acks:
        _no_ack_errors(group.acks)


PARSERS: dict[type[Part], Callable[[bytes], object]] = {
    records.ProduceRequest: lambda b: records.parse_produce(b, SETTINGS, NOW_MS),
    topics.TopicCreate: lambda b: topics.parse_create(b, SETTINGS),
    topics.TopicPatch: lambda b: topics.parse_patch(b, SETTINGS),
    topics.DeleteRecordsRequest: lambda b: topics.parse_delete_records(b, SETTINGS),
    txn.InitProducerRequest: lambda b: txn.parse_init(b, SETTINGS),
    txn.ProducerIdentity: lambda b: txn.parse_producer(b, SETTINGS),
    txn.StatefulProduceRequest: lambda b: txn.parse_produce(b, SETTINGS, NOW_MS),
    txn.TxnOffsetsRequest: lambda b: txn.parse_offsets(b, SETTINGS),
    txn.TxnCommitRequest: _txn_commit,
    txn.TxnCommitAllRequest: lambda b: txn.parse_commit_all(b, SETTINGS),
    txn.TxnAbortPrefixRequest: lambda b: txn.parse_abort_prefix(b, SETTINGS),
    groups.GroupHeartbeatRequest: lambda b: groups.parse_heartbeat(b, SETTINGS),
    groups.OffsetCommitRequest: lambda b: groups.parse_commit(b, SETTINGS),
    share.ShareGroupConfig: lambda b: group_config.validate(
        share.config_changes(b, SETTINGS), {}, SETTINGS
    ),
    share.ShareAcquisitionsAcknowledgeRequest: lambda b: share.parse_acquisitions_ack(b, SETTINGS),
    txn.TxnAcknowledgementsRequest: _txn_acks,
    acls.AclBindingRequest: lambda b: acls.parse_binding(b, SETTINGS),
    quotas.QuotaSet: lambda b: validate_override(quotas.parse_set(b, SETTINGS)),
    keys.KeyCreate: lambda b: keys.parse_create(b, SETTINGS),
}

# share-group bodies succeed only against a group with acquired records: checked over HTTP
# below
SHARE_ROUTER_PARSED: tuple[type[Part], ...] = (
    share.ShareHeartbeatRequest,
    share.ShareFetchRequest,
    share.ShareAcknowledgeRequest,
    share.ShareOffsetsReset,
)


def _struct_in(t: mi.Type) -> type[msgspec.Struct] | None:
    """The struct inside ``X``, ``list[X]``, ``X | None``…, or None."""
    if isinstance(t, mi.Metadata):
        return _struct_in(t.type)
    if isinstance(t, mi.StructType):
        return t.cls
    if isinstance(t, mi.ListType):
        return _struct_in(t.item_type)
    if isinstance(t, mi.UnionType):
        for alt in t.types:
            found = _struct_in(alt)
            if found is not None:
                return found
    return None


def required_paths(
    body: type[msgspec.Struct], example: dict[str, Any], at: Path = ()
) -> Iterator[Path]:
    """Paths of the example's fields that ``body`` declares as required, nested bodies
    included (through the first item of a list)."""
    info = mi.type_info(body)
    assert isinstance(info, mi.StructType)
    for field in info.fields:
        key = field.encode_name
        if field.required:
            assert key in example, f"the example of {body.__name__} lacks required {key}"
            yield (*at, key)
        sub = _struct_in(field.type)
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


def examples(body: type[Part]) -> list[dict[str, Any]]:
    return copy.deepcopy(body.examples)


def cases(bodies: tuple[type[Part], ...] | list[type[Part]]) -> list[Any]:
    return [
        pytest.param(m, i, id=f"{m.__name__}[{i}]") for m in bodies for i in range(len(m.examples))
    ]


# -- coverage -----------------------------------------------------------------------------------


def test_every_request_body_has_an_example_and_a_parser() -> None:
    for body in schemas.REQUEST_BODIES:
        assert body.examples, f"{body.__name__} has no example"
    assert set(PARSERS) | set(SHARE_ROUTER_PARSED) == set(schemas.REQUEST_BODIES)
    assert not set(PARSERS) & set(SHARE_ROUTER_PARSED)


async def test_examples_are_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    components = (await client.get("/openapi.json")).json()["components"]["schemas"]
    for body in schemas.REQUEST_BODIES:
        assert components[body.__name__]["examples"] == body.examples


# -- parser functions ---------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "i"), cases(list(PARSERS)))
def test_example_parses(body: type[Part], i: int) -> None:
    PARSERS[body](orjson.dumps(examples(body)[i]))


@pytest.mark.parametrize(("body", "i"), cases(list(PARSERS)))
def test_required_fields_are_required(body: type[Part], i: int) -> None:
    example = examples(body)[i]
    for path in required_paths(body, example):
        with pytest.raises(InvalidRequest):
            PARSERS[body](orjson.dumps(without(example, path)))


def test_required_paths_walks_nested_bodies() -> None:
    example = examples(txn.StatefulProduceRequest)[0]
    paths = set(required_paths(txn.StatefulProduceRequest, example))
    assert {
        ("producer_id",),
        ("batches",),
        ("batches", 0, "topic"),
        ("batches", 0, "records"),
    } <= paths


def test_every_share_fetch_example_parses() -> None:
    """The router's parser, on each example (the first is also posted below; the others, a
    fetch by acquisition id among them, need no state to parse)."""
    for example in examples(share.ShareFetchRequest):
        _no_ack_errors(share.parse_fetch(orjson.dumps(example), SETTINGS).acks)


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
    config = examples(share.ShareGroupConfig)[0]  # reads from the earliest offset
    for group in ("analytics", "reporting"):
        r = await c.patch(f"/v1/share-groups/{group}/config", json=config)
        assert r.status_code == 200, r.text
    r = await c.post(
        "/v1/share-groups/analytics/heartbeat",
        json=examples(share.ShareHeartbeatRequest)[0],
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

    bodies: list[tuple[type[Part], str, dict[str, Any]]] = [
        (
            share.ShareAcknowledgeRequest,
            "/v1/share-groups/analytics/acknowledge",
            {**examples(share.ShareAcknowledgeRequest)[0], "member_id": member},
        ),
        (
            share.ShareFetchRequest,
            "/v1/share-groups/analytics/fetch",
            {**examples(share.ShareFetchRequest)[0], "member_id": member},
        ),
        (
            share.ShareOffsetsReset,
            "/v1/share-groups/reporting/offsets",
            examples(share.ShareOffsetsReset)[0],
        ),
    ]
    # the heartbeat example (a join) was posted above and has no required field
    assert not list(
        required_paths(share.ShareHeartbeatRequest, examples(share.ShareHeartbeatRequest)[0])
    )
    assert {m for m, _, _ in bodies} | {share.ShareHeartbeatRequest} == set(SHARE_ROUTER_PARSED)
    for model, path, body in bodies:
        for field in required_paths(model, body):
            r = await c.post(path, json=without(body, field))
            assert _refused(r), (model.__name__, field, r.status_code, r.text)
        r = await c.post(path, json=body)
        assert r.status_code == 200, (model.__name__, r.text)
        answer = r.json()
        errors = answer.get("results", []) + answer.get("acknowledgement_errors", [])
        assert all(e["error"] is None for e in errors), (model.__name__, r.text)
