"""Every route of the app against the ACLs, generated from the app's route list.

For each endpoint that is not public, a principal with no ACL is refused (403 with the code of
the resource type, or, for a WebSocket, an error frame and close 1008), and a principal with
exactly the ACLs the case lists is not refused. A listing shows nothing to the first and only
the resource it may describe to the second. A route without an entry in
``app.security.permissions`` or without a case here fails; a new endpoint cannot go unchecked.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.security import permissions
from app.storage import record
from app.storage.record import Record

from .acl_world import ADMIN, World, route_keys, start_world

TX = "TRANSACTIONAL_ID"
Acl = tuple[str, str, str]  # resource type, name, operation


@dataclass(frozen=True)
class Case:
    path: str
    body: Any = None
    acls: tuple[Acl, ...] = ()
    refused: str = ""  # the code a principal without ACLs gets
    query: dict[str, Any] = field(default_factory=dict)


T = "TOPIC_AUTHORIZATION_FAILED"
G = "GROUP_AUTHORIZATION_FAILED"
X = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
C = "CLUSTER_AUTHORIZATION_FAILED"
READ_SG = (("GROUP", "sg", "READ"), ("TOPIC", "orders", "READ"))
ACK = [{"topic": "orders", "partition": 0, "first_offset": 0, "last_offset": 0, "type": "accept"}]


def cases(w: World) -> dict[str, Case]:
    """Every non-public endpoint: a request and exactly the ACLs it needs."""
    tx = {"producer_id": w.tx_pid, "producer_epoch": w.tx_epoch}
    return {
        "GET /metrics": Case(
            "/metrics", acls=(("CLUSTER", "kafka-cluster", "DESCRIBE"),), refused=C
        ),
        "POST /v1/topics": Case(
            "/v1/topics", {"name": "fresh"}, (("TOPIC", "fresh", "CREATE"),), T
        ),
        "GET /v1/topics/{topic}": Case(
            "/v1/topics/orders", acls=(("TOPIC", "orders", "DESCRIBE"),), refused=T
        ),
        "PATCH /v1/topics/{topic}": Case(
            "/v1/topics/orders",
            {"config": {"retention_ms": 86_400_000}},
            (("TOPIC", "orders", "ALTER"),),
            T,
        ),
        "DELETE /v1/topics/{topic}": Case(
            "/v1/topics/doomed", acls=(("TOPIC", "doomed", "DELETE"),), refused=T
        ),
        "POST /v1/topics/{topic}/delete-records": Case(
            "/v1/topics/orders/delete-records",
            {"partitions": [{"partition": 1, "before_offset": 0}]},
            (("TOPIC", "orders", "DELETE"),),
            T,
        ),
        "POST /v1/topics/{topic}/records": Case(
            "/v1/topics/orders/records",
            {"records": [{"value": "v"}]},
            (("TOPIC", "orders", "WRITE"),),
            T,
        ),
        "POST /v1/topics/{topic}/partitions/{partition}/batches": Case(
            "/v1/topics/orders/partitions/0/batches",
            record.encode_batch(0, [Record(1, None, b"v")]),
            (("TOPIC", "orders", "WRITE"),),
            T,
        ),
        "GET /v1/topics/{topic}/partitions/{partition}/records": Case(
            "/v1/topics/orders/partitions/0/records", acls=(("TOPIC", "orders", "READ"),), refused=T
        ),
        "GET /v1/topics/{topic}/partitions/{partition}/offsets": Case(
            "/v1/topics/orders/partitions/0/offsets",
            acls=(("TOPIC", "orders", "DESCRIBE"),),
            refused=T,
        ),
        # a principal that may WRITE neither a transactional id nor a topic is refused before
        # its body is read (InitProducerId's cluster refusal)
        "POST /v1/producers": Case(
            "/v1/producers", {"transactional_id": "tx-new"}, ((TX, "tx-new", "WRITE"),), C
        ),
        "POST /v1/produce": Case(
            "/v1/produce",
            {
                "producer_id": w.idempotent_pid,
                "producer_epoch": 0,
                "batches": [
                    {
                        "topic": "orders",
                        "partition": 1,
                        "base_sequence": 0,
                        "records": [{"value": "i"}],
                    }
                ],
            },
            (("TOPIC", "orders", "WRITE"),),
            T,
        ),
        "POST /v1/transactions/{tid}/commit": Case(
            "/v1/transactions/tx/commit",
            {
                **tx,
                "batches": [
                    {
                        "topic": "orders",
                        "partition": 1,
                        "base_sequence": 0,
                        "records": [{"value": "t"}],
                    }
                ],
                "group_offsets": [
                    {"group_id": "g", "offsets": [{"topic": "orders", "partition": 0, "offset": 1}]}
                ],
                "share_acknowledgements": [
                    {"group_id": "sg", "member_id": w.share_member, "acknowledgements": ACK}
                ],
            },
            (
                (TX, "tx", "WRITE"),
                ("TOPIC", "orders", "WRITE"),
                ("GROUP", "g", "READ"),
                ("TOPIC", "orders", "READ"),
                ("GROUP", "sg", "READ"),
            ),
            X,
        ),
        "POST /v1/transactions:commit-all": Case(
            "/v1/transactions:commit-all",
            {"transactions": [{"transactional_id": "tx", **tx}], "idempotency_key": "k"},
            ((TX, "tx", "WRITE"),),
            X,
        ),
        "POST /v1/transactions/{tid}/abort": Case(
            "/v1/transactions/tx/abort", tx, ((TX, "tx", "WRITE"),), X
        ),
        "POST /v1/transactions/{tid}/offsets": Case(
            "/v1/transactions/tx/offsets",
            {**tx, "group_id": "g", "offsets": [{"topic": "orders", "partition": 0, "offset": 1}]},
            ((TX, "tx", "WRITE"), ("GROUP", "g", "READ"), ("TOPIC", "orders", "READ")),
            X,
        ),
        "POST /v1/transactions/{tid}/acknowledgements": Case(
            "/v1/transactions/tx/acknowledgements",
            {**tx, "group_id": "sg", "member_id": w.share_member, "acknowledgements": ACK},
            ((TX, "tx", "WRITE"), *READ_SG),
            X,
        ),
        "GET /v1/transactions/{tid}": Case(
            "/v1/transactions/tx", acls=((TX, "tx", "DESCRIBE"),), refused=X
        ),
        "POST /v1/groups/{group_id}/heartbeat": Case(
            "/v1/groups/g/heartbeat",
            {"member_id": None, "member_epoch": 0, "subscribed_topics": ["orders"]},
            (("GROUP", "g", "READ"), ("TOPIC", "orders", "READ")),
            G,
        ),
        "POST /v1/groups/{group_id}/offsets": Case(
            "/v1/groups/g2/offsets",
            {"offsets": [{"topic": "orders", "partition": 0, "offset": 1}]},
            (("GROUP", "g2", "READ"), ("TOPIC", "orders", "READ")),
            G,
        ),
        "GET /v1/groups/{group_id}/offsets": Case(
            "/v1/groups/g/offsets", acls=(("GROUP", "g", "DESCRIBE"),), refused=G
        ),
        "DELETE /v1/groups/{group_id}/offsets": Case(
            "/v1/groups/g2/offsets",
            acls=(("GROUP", "g2", "DELETE"), ("TOPIC", "orders", "READ")),
            refused=G,
            query={"topic": "orders"},
        ),
        "GET /v1/groups/{group_id}": Case(
            "/v1/groups/g", acls=(("GROUP", "g", "DESCRIBE"),), refused=G
        ),
        "DELETE /v1/groups/{group_id}": Case(
            "/v1/groups/g-doomed", acls=(("GROUP", "g-doomed", "DELETE"),), refused=G
        ),
        "POST /v1/share-groups/{group_id}/heartbeat": Case(
            "/v1/share-groups/sg/heartbeat",
            {"member_epoch": 0, "subscribed_topics": ["orders"]},
            READ_SG,
            G,
        ),
        "DELETE /v1/share-groups/{group_id}/members/{member_id}": Case(
            "/v1/share-groups/sg/members/nobody", acls=(("GROUP", "sg", "READ"),), refused=G
        ),
        "POST /v1/share-groups/{group_id}/fetch": Case(
            "/v1/share-groups/sg/fetch", {"subscribed_topics": ["orders"]}, READ_SG, G
        ),
        "POST /v1/share-groups/{group_id}/acknowledge": Case(
            "/v1/share-groups/sg/acknowledge",
            {"member_id": w.share_member, "acknowledgements": ACK},
            READ_SG,
            G,
        ),
        "POST /v1/share-groups/{group_id}/acquisitions/acknowledge": Case(
            # an acquisition holding records needs READ on their topics too (test_acls.py)
            "/v1/share-groups/sg/acquisitions/acknowledge",
            {"prefix": "nothing-held:"},
            (("GROUP", "sg", "READ"),),
            G,
        ),
        "GET /v1/share-groups/{group_id}/acquisitions": Case(
            "/v1/share-groups/sg/acquisitions", acls=(("GROUP", "sg", "DESCRIBE"),), refused=G
        ),
        "PATCH /v1/share-groups/{group_id}/config": Case(
            "/v1/share-groups/sg-new/config",
            {"record_lock_duration_ms": 20_000},
            (("GROUP", "sg-new", "ALTER"),),
            G,
        ),
        "GET /v1/share-groups/{group_id}": Case(
            "/v1/share-groups/sg", acls=(("GROUP", "sg", "DESCRIBE"),), refused=G
        ),
        "GET /v1/share-groups/{group_id}/partitions/{topic}/{partition}/records": Case(
            "/v1/share-groups/sg/partitions/orders/0/records",
            acls=(("GROUP", "sg", "DESCRIBE"), ("TOPIC", "orders", "DESCRIBE")),
            refused=G,
        ),
        "POST /v1/share-groups/{group_id}/offsets": Case(
            "/v1/share-groups/sg-idle/offsets",
            {"topics": [{"topic": "orders", "to": "earliest"}]},
            (("GROUP", "sg-idle", "READ"), ("TOPIC", "orders", "READ")),
            G,
        ),
        "DELETE /v1/share-groups/{group_id}/offsets": Case(
            "/v1/share-groups/sg-idle/offsets",
            acls=(("GROUP", "sg-idle", "DELETE"), ("TOPIC", "orders", "READ")),
            refused=G,
            query={"topic": "orders"},
        ),
        "DELETE /v1/share-groups/{group_id}": Case(
            "/v1/share-groups/sg-doomed", acls=(("GROUP", "sg-doomed", "DELETE"),), refused=G
        ),
        "WS /v1/share-groups/{group_id}/consume": Case(
            "/v1/share-groups/sg/consume", {"type": "subscribe", "topics": ["orders"]}, READ_SG, G
        ),
        "POST /v1/admin/acls": Case(
            "/v1/admin/acls",
            {
                "principal": "zed",
                "resource_type": "TOPIC",
                "resource_name": "z",
                "operation": "READ",
                "permission": "ALLOW",
            },
            (("CLUSTER", "kafka-cluster", "ALTER"),),
            C,
        ),
        "GET /v1/admin/acls": Case(
            "/v1/admin/acls", acls=(("CLUSTER", "kafka-cluster", "DESCRIBE"),), refused=C
        ),
        "DELETE /v1/admin/acls": Case(
            "/v1/admin/acls",
            acls=(("CLUSTER", "kafka-cluster", "ALTER"),),
            refused=C,
            query={"principal": "zed", "resource_type": "ANY"},
        ),
    }


# listings: the path, how to read the names out of the answer, and the resource it should show
LISTINGS: dict[str, tuple[str, str, str, Acl]] = {
    "GET /v1/topics": ("/v1/topics", "topics", "name", ("TOPIC", "orders", "DESCRIBE")),
    "GET /v1/groups": ("/v1/groups", "groups", "group_id", ("GROUP", "g", "DESCRIBE")),
    "GET /v1/share-groups": (
        "/v1/share-groups",
        "share_groups",
        "group_id",
        ("GROUP", "sg", "DESCRIBE"),
    ),
    "GET /v1/transactions": (
        "/v1/transactions",
        "transactions",
        "transactional_id",
        (TX, "tx", "DESCRIBE"),
    ),
}


ROUTE_KEYS = route_keys()


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with tempfile.TemporaryDirectory() as d:
        yield from start_world(Path(d))


@pytest.mark.parametrize("key", ROUTE_KEYS)
def test_every_route_refuses_without_its_acls_and_serves_with_them(world: World, key: str) -> None:
    method, path = key.split(" ", 1)
    need = permissions.need_of(method, path)
    assert need is not None, f"{key} has no entry in app.security.permissions"
    if need.access == "public":
        assert key in PUBLIC, f"{key} is public in the table but not known public here"
        return
    if method != "WS":  # no key at all: 401, whatever the route needs
        r = world.client.request(method, _example_path(path))
        assert r.status_code == 401, (key, r.status_code, r.text)
        assert r.json()["error"]["code"] == "UNAUTHENTICATED"
    if need.access == "authenticated":  # any valid key, no ACL
        r = world.call(world.principal("nobody"), method, path)
        assert r.status_code == 200, (key, r.text)
        return
    if key in LISTINGS:
        _listing(world, key)
        return
    if key == "WS /v1/events":
        _feed(world)
        return
    if key == "POST /v1/transactions:abort-prefix":
        _abort_prefix(world)
        return
    case = cases(world).get(key)
    if case is None and path.startswith("/v1/admin/"):  # admin endpoints: the cluster
        op = "DESCRIBE" if method == "GET" else "ALTER"
        case = Case(path, {}, (("CLUSTER", "kafka-cluster", op),), C)
    assert case is not None, f"{key}: no case here: say what it needs and test it"
    # what the table says the path needs is among the case's ACLs (the test and the table agree)
    params = dict(zip(_params(path), _params_of(path, case.path), strict=True))
    for c in need.checks:
        name = "kafka-cluster" if c.param is None else params[c.param]
        assert (c.resource_type.value, name, c.operation.value) in case.acls, (key, c)
    nobody = world.principal("nobody")
    if method == "WS":
        _socket(world, case, nobody, allowed=False)
    else:
        r = world.call(nobody, method, case.path, case.body, case.query)
        assert r.status_code == 403, (key, r.status_code, r.text)
        assert r.json()["error"]["code"] == case.refused, r.text
    who = world.principal(
        "p-" + key.replace(" ", "_").replace("/", ".").replace("{", "").replace("}", "")
    )
    for rtype, name, op in case.acls:
        world.grant(who, rtype, name, op)
    if method == "WS":
        _socket(world, case, who, allowed=True)
    else:
        r = world.call(who, method, case.path, case.body, case.query)
        assert r.status_code != 403 and r.status_code < 500, (key, r.status_code, r.text)
        # each ACL of the case is needed: without any one of them, refused again
        for dropped in case.acls:
            world.revoke(who, *dropped)
            r = world.call(who, method, case.path, case.body, case.query)
            assert r.status_code == 403, (key, "without", dropped, r.status_code, r.text)
            world.grant(who, *dropped)


# routes without a case above (their test is of its own), and the refusal before their body
BEFORE_THE_BODY = {
    "POST /v1/transactions:abort-prefix": Case("/v1/transactions:abort-prefix", refused=X)
}
BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")


@pytest.mark.parametrize("key", [k for k in ROUTE_KEYS if k.split(" ", 1)[0] in BODY_METHODS])
def test_a_principal_without_acls_is_refused_before_its_body_is_read(
    world: World, key: str
) -> None:
    """Every route that takes a body checks what it can before reading it: sent a body that is
    not JSON by a principal without ACLs, it answers 403 (what it answers that principal with a
    valid body), never 400. A route that reads no body answers as it would anyway."""
    method, path = key.split(" ", 1)
    need = permissions.need_of(method, path)
    assert need is not None and need.access != "public", key
    case = cases(world).get(key) or BEFORE_THE_BODY.get(key)
    if case is None and path.startswith("/v1/admin/"):
        case = Case(_example_path(path), refused=C)
    nobody = world.principal("nobody")
    for body in (b"{not json", b"[" * 10_000 + b"]" * 10_000, b"[]," * 100_000):
        r = world.client.request(
            method,
            case.path if case is not None else _example_path(path),
            content=body,
            params=case.query if case is not None else None,
            headers={**nobody, "content-type": "application/json"},
        )
        if need.access == "authenticated":  # any valid key; the body is not read
            assert r.status_code == 200, (key, r.status_code, r.text)
            continue
        assert case is not None, f"{key}: no case here: say what it needs and test it"
        assert r.status_code == 403, (key, r.status_code, r.text)
        assert r.json()["error"]["code"] == case.refused, (key, r.text)


def _example_path(template: str) -> str:
    return re.sub(r"\{[^}]*\}", "x", template)


def _params(template: str) -> list[str]:
    return [p.split(":")[0] for p in re.findall(r"\{([^}]*)\}", template)]


def _params_of(template: str, path: str) -> list[str]:
    pattern = re.sub(r"\{[^}]*\}", "([^/]+)", template)
    m = re.fullmatch(pattern, path)
    assert m is not None, (template, path)
    return list(m.groups())


PUBLIC = {
    "GET /healthz",
    "GET /readyz",
    "GET /openapi.json",
    "GET /docs",
    "GET /docs/oauth2-redirect",
    "GET /redoc",
    "GET /",
    "GET /dashboard/{path:path}",
}


def _listing(world: World, key: str) -> None:
    path, field_name, id_field, (rtype, name, op) = LISTINGS[key]
    admin = world.call(world.principal(ADMIN), "GET", path)
    assert name in [e[id_field] for e in admin.json()[field_name]], admin.text
    r = world.call(world.principal("nobody"), "GET", path)
    assert r.status_code == 200 and r.json()[field_name] == [], r.text
    who = world.principal("lister-" + field_name)
    world.grant(who, rtype, name, op)
    r = world.call(who, "GET", path)
    assert [e[id_field] for e in r.json()[field_name]] == [name], r.text


def _feed(world: World) -> None:
    with world.socket(world.principal("nobody"), "/v1/events") as ws:
        snap = json.loads(ws.receive_text())
        assert snap["type"] == "snapshot"
        assert all(snap[k] == [] for k in ("topics", "groups", "share_groups")), snap
        assert snap["history"]["topics"] == {}
    who = world.principal("feed-reader")
    world.grant(who, "TOPIC", "orders", "DESCRIBE")
    world.grant(who, "GROUP", "sg", "DESCRIBE")
    with world.socket(who, "/v1/events") as ws:
        snap = json.loads(ws.receive_text())
        assert [t["topic"] for t in snap["topics"]] == ["orders"]
        assert [g["group_id"] for g in snap["share_groups"]] == ["sg"]
        assert snap["groups"] == []


def _abort_prefix(world: World) -> None:
    """Abort-prefix acts only on the transactional ids the principal may WRITE: a principal
    without ACLs aborts nothing and learns nothing."""
    admin = world.principal(ADMIN)
    for tid in ("ap-1", "ap-2"):
        ident = world.admin("POST", "/v1/producers", {"transactional_id": tid})
        batch = {"topic": "orders", "partition": 1, "base_sequence": 0, "records": [{"value": tid}]}
        r = world.call(
            admin, "POST", "/v1/produce", {**ident, "transactional_id": tid, "batches": [batch]}
        )
        assert r.status_code == 200 and r.json()["batches"][0]["error"] is None, r.text

    def abort(who: dict[str, str]) -> Any:
        r = world.call(who, "POST", "/v1/transactions:abort-prefix", {"prefix": "ap-"})
        assert r.status_code == 200, r.text
        return r.json()

    def state(tid: str) -> str:
        return str(world.admin("GET", f"/v1/transactions/{tid}")["state"])

    # a principal that may WRITE no transactional id at all is refused before its body is read
    r = world.call(
        world.principal("nobody"), "POST", "/v1/transactions:abort-prefix", {"prefix": "ap-"}
    )
    assert r.status_code == 403, r.text
    assert r.json()["error"]["code"] == X, r.text
    assert (state("ap-1"), state("ap-2")) == ("Ongoing", "Ongoing")
    who = world.principal("aborter")
    world.grant(who, TX, "other", "WRITE")  # some transactional id, none of the prefix
    assert abort(who) == {"aborted": []}
    assert (state("ap-1"), state("ap-2")) == ("Ongoing", "Ongoing")
    world.grant(who, TX, "ap-1", "WRITE")
    assert abort(who) == {"aborted": ["ap-1"]}
    assert (state("ap-1"), state("ap-2")) == ("CompleteAbort", "Ongoing")
    assert abort(admin) == {"aborted": ["ap-2"]}


def _socket(world: World, case: Case, who: dict[str, str], *, allowed: bool) -> None:
    with world.socket(who, case.path) as ws:
        if not allowed:
            frame = json.loads(ws.receive_text())
            assert frame["type"] == "error" and frame["error"]["code"] == case.refused, frame
            message = ws.receive()
            assert message["type"] == "websocket.close" and message["code"] == 1008, message
            return
        ws.send_text(json.dumps(case.body))
        frame = json.loads(ws.receive_text())
        assert frame["type"] == "subscribed", frame
