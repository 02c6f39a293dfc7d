"""ACLs through the API of an in-process app: the admin endpoints, Kafka's rules end to end
(deny wins, prefixes, super-users), a transactional producer's needs, filtered listings and
feed, and sockets whose principal loses its ACLs."""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .acl_world import ADMIN, World, acl, start_world


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with tempfile.TemporaryDirectory() as d:
        yield from start_world(Path(d))


def code(r: Any) -> str:
    assert r.status_code == 403, r.text
    return str(r.json()["error"]["code"])


def test_admin_endpoints_add_list_and_remove(world: World) -> None:
    w, admin = world, world.principal(ADMIN)
    body = acl("lin", "TOPIC", "orders", "READ")
    r = w.call(admin, "POST", "/v1/admin/acls", body)
    assert r.status_code == 201 and r.json() == {**body, "pattern_type": "LITERAL"}, r.text
    assert w.call(admin, "POST", "/v1/admin/acls", body).status_code == 200  # already there
    w.call(
        admin, "POST", "/v1/admin/acls", acl("lin", "GROUP", "lin-", "ALL", pattern_type="PREFIXED")
    )
    w.call(admin, "POST", "/v1/admin/acls", acl("lin", "TOPIC", "orders", "WRITE", "DENY"))
    listed = w.call(admin, "GET", "/v1/admin/acls", query={"principal": "lin"}).json()["acls"]
    assert len(listed) == 3
    only = w.call(
        admin, "GET", "/v1/admin/acls", query={"principal": "lin", "permission": "DENY"}
    ).json()["acls"]
    assert [a["operation"] for a in only] == ["WRITE"]
    match = w.call(
        admin,
        "GET",
        "/v1/admin/acls",
        query={"principal": "lin", "resource_name": "lin-eu", "pattern_type": "MATCH"},
    ).json()["acls"]
    assert [a["resource_name"] for a in match] == ["lin-"]
    r = w.call(
        admin, "DELETE", "/v1/admin/acls", query={"principal": "lin", "resource_type": "TOPIC"}
    )
    assert sorted(a["operation"] for a in r.json()["removed"]) == ["READ", "WRITE"]
    assert (
        len(w.call(admin, "GET", "/v1/admin/acls", query={"principal": "lin"}).json()["acls"]) == 1
    )
    # a filter that matches nothing removes nothing; resource_type is required (ANY: every
    # type), so that no DELETE without a filter removes every binding
    assert w.call(
        admin,
        "DELETE",
        "/v1/admin/acls",
        query={"principal": "nobody-at-all", "resource_type": "ANY"},
    ).json() == {"removed": []}
    for query in ({}, {"principal": "lin"}, {"resource_type": "NOPE"}):
        r = w.call(admin, "DELETE", "/v1/admin/acls", query=query)
        assert r.status_code == 400 and r.json()["error"]["code"] == "INVALID_REQUEST"
    assert (
        len(w.call(admin, "GET", "/v1/admin/acls", query={"principal": "lin"}).json()["acls"]) == 1
    )
    r = w.call(
        admin, "DELETE", "/v1/admin/acls", query={"principal": "lin", "resource_type": "ANY"}
    )
    assert len(r.json()["removed"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        {
            "principal": "x",
            "resource_type": "TOPIC",
            "resource_name": "t",
            "operation": "read",
            "permission": "ALLOW",
        },
        {"principal": "x", "resource_type": "TOPIC", "operation": "READ", "permission": "ALLOW"},
        {
            "principal": "x y",
            "resource_type": "TOPIC",
            "resource_name": "t",
            "operation": "READ",
            "permission": "ALLOW",
        },
        {
            "principal": "x",
            "resource_type": "GROUP",
            "resource_name": "g",
            "operation": "WRITE",
            "permission": "ALLOW",
        },
        [],
    ],
)
def test_bad_bindings_are_400(world: World, body: Any) -> None:
    r = world.call(world.principal(ADMIN), "POST", "/v1/admin/acls", body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "INVALID_REQUEST", r.text


def test_deny_wins_and_prefixes_end_to_end(world: World) -> None:
    w = world
    dee = w.principal("dee")
    w.grant(dee, "TOPIC", "*", "ALL")
    w.admin(
        "POST",
        "/v1/admin/acls",
        acl("dee", "TOPIC", "ord", "READ", "DENY", pattern_type="PREFIXED"),
    )
    assert (
        code(w.call(dee, "GET", "/v1/topics/orders/partitions/0/records"))
        == "TOPIC_AUTHORIZATION_FAILED"
    )
    assert w.call(dee, "GET", "/v1/topics/dlq/partitions/0/records").status_code == 200
    # the deny is of READ only: describing and writing orders stay allowed
    assert w.call(dee, "GET", "/v1/topics/orders").status_code == 200
    assert (
        w.call(dee, "POST", "/v1/topics/orders/records", {"records": [{"value": "d"}]}).status_code
        == 200
    )


def test_unknown_resources_are_refused_like_known_ones(world: World) -> None:
    w = world
    eve = w.principal("eve")
    for path in ("/v1/topics/orders", "/v1/topics/no-such-topic"):
        assert code(w.call(eve, "GET", path)) == "TOPIC_AUTHORIZATION_FAILED"
    w.grant(eve, "TOPIC", "no-such-topic", "DESCRIBE")
    r = w.call(eve, "GET", "/v1/topics/no-such-topic")
    assert r.status_code == 404 and r.json()["error"]["code"] == "UNKNOWN_TOPIC_OR_PARTITION"


def test_a_transactional_producer_needs_its_transactional_id_and_the_group(world: World) -> None:
    w = world
    etl = w.principal("etl")
    w.grant(etl, "TOPIC", "orders", "READ")
    init = {"transactional_id": "etl-1"}
    # may WRITE nothing at all: refused before the body, as an idempotent producer would be
    assert code(w.call(etl, "POST", "/v1/producers", init)) == "CLUSTER_AUTHORIZATION_FAILED"
    w.grant(etl, "TOPIC", "orders", "WRITE")
    assert (
        code(w.call(etl, "POST", "/v1/producers", init)) == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
    )
    w.admin(
        "POST",
        "/v1/admin/acls",
        acl("etl", "TRANSACTIONAL_ID", "etl-", "WRITE", pattern_type="PREFIXED"),
    )
    r = w.call(etl, "POST", "/v1/producers", init)
    assert r.status_code == 200, r.text
    producer = {
        "producer_id": r.json()["producer_id"],
        "producer_epoch": r.json()["producer_epoch"],
    }
    batch = {"topic": "dlq", "partition": 0, "base_sequence": 0, "records": [{"value": "out"}]}
    body = {**producer, "transactional_id": "etl-1", "batches": [batch]}
    assert code(w.call(etl, "POST", "/v1/produce", body)) == "TOPIC_AUTHORIZATION_FAILED"
    w.grant(etl, "TOPIC", "dlq", "WRITE")
    r = w.call(etl, "POST", "/v1/produce", body)
    assert r.status_code == 200 and r.json()["batches"][0]["error"] is None, r.text
    offsets = {
        **producer,
        "group_id": "etl",
        "offsets": [{"topic": "orders", "partition": 0, "offset": 2}],
    }
    assert (
        code(w.call(etl, "POST", "/v1/transactions/etl-1/offsets", offsets))
        == "GROUP_AUTHORIZATION_FAILED"
    )
    w.grant(etl, "GROUP", "etl", "READ")
    r = w.call(etl, "POST", "/v1/transactions/etl-1/offsets", offsets)
    assert r.status_code == 200, r.text
    r = w.call(etl, "POST", "/v1/transactions/etl-1/commit", producer)
    assert r.status_code == 200, r.text
    fetched = w.admin("GET", "/v1/groups/etl/offsets")["offsets"]
    assert [(o["topic"], o["offset"]) for o in fetched] == [("orders", 2)]
    # another principal may not end etl's transactions
    assert code(
        w.call(w.principal("mallory"), "POST", "/v1/transactions/etl-1/abort", producer)
    ) == ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED")


def test_an_idempotent_producer_needs_write_on_some_topic(world: World) -> None:
    w = world
    ida = w.principal("ida")
    r = w.call(ida, "POST", "/v1/producers", {})
    assert code(r) == "CLUSTER_AUTHORIZATION_FAILED"
    w.grant(ida, "TOPIC", "dlq", "WRITE")
    assert w.call(ida, "POST", "/v1/producers", {}).status_code == 200


def test_offset_fetch_leaves_out_topics_the_principal_may_not_describe(world: World) -> None:
    w = world
    olly = w.principal("olly")
    w.admin(
        "POST",
        "/v1/groups/mixed/offsets",
        {
            "offsets": [
                {"topic": "orders", "partition": 0, "offset": 1},
                {"topic": "dlq", "partition": 0, "offset": 0},
            ]
        },
    )
    w.grant(olly, "GROUP", "mixed", "DESCRIBE")
    w.grant(olly, "TOPIC", "dlq", "DESCRIBE")
    r = w.call(olly, "GET", "/v1/groups/mixed/offsets")
    assert [o["topic"] for o in r.json()["offsets"]] == ["dlq"], r.text
    assert code(w.call(olly, "GET", "/v1/groups/mixed/offsets", query={"topic": "orders"})) == (
        "TOPIC_AUTHORIZATION_FAILED"
    )


def test_a_dead_letter_topic_in_a_config_change_needs_cluster_alter_and_write_on_it(
    world: World,
) -> None:
    # the group's records of any topic are copied there: with ALTER on the group and a topic
    # of one's own, a principal could read what its consumers reject from topics it may not
    # read (a review found it)
    w = world
    cfg = w.principal("cfg")
    w.grant(cfg, "GROUP", "sg-cfg", "ALTER")
    w.grant(cfg, "TOPIC", "dlq", "WRITE")
    change = {"dead_letter_topic": "dlq"}
    assert (
        code(w.call(cfg, "PATCH", "/v1/share-groups/sg-cfg/config", change))
        == "CLUSTER_AUTHORIZATION_FAILED"
    )
    w.grant(cfg, "CLUSTER", "kafka-cluster", "ALTER")
    w.revoke(cfg, "TOPIC", "dlq", "WRITE")
    assert (
        code(w.call(cfg, "PATCH", "/v1/share-groups/sg-cfg/config", change))
        == "TOPIC_AUTHORIZATION_FAILED"
    )
    w.grant(cfg, "TOPIC", "dlq", "WRITE")
    assert w.call(cfg, "PATCH", "/v1/share-groups/sg-cfg/config", change).status_code == 200
    # other keys, and removing the dead-letter topic, take ALTER on the group only
    w.revoke(cfg, "CLUSTER", "kafka-cluster", "ALTER")
    for other in ({"delivery_count_limit": 3}, {"dead_letter_topic": None}):
        assert w.call(cfg, "PATCH", "/v1/share-groups/sg-cfg/config", other).status_code == 200


def test_a_share_fetch_needs_read_on_the_members_subscribed_topics(world: World) -> None:
    w = world
    sam = w.principal("sam")
    w.grant(sam, "GROUP", "sg-sam", "READ")
    w.grant(sam, "TOPIC", "orders", "READ")
    r = w.call(sam, "POST", "/v1/share-groups/sg-sam/fetch", {"subscribed_topics": ["orders"]})
    assert r.status_code == 200, r.text
    member = r.json()["member_id"]
    w.revoke(sam, "TOPIC", "orders", "READ")
    # no subscribed_topics in the body: the member's subscription is what it fetches
    r = w.call(sam, "POST", "/v1/share-groups/sg-sam/fetch", {"member_id": member})
    assert code(r) == "TOPIC_AUTHORIZATION_FAILED"


def test_the_feed_sends_a_new_snapshot_when_the_acls_change(world: World) -> None:
    w = world
    fay = w.principal("fay")
    w.grant(fay, "TOPIC", "dlq", "DESCRIBE")
    with w.socket(fay, "/v1/events") as ws:
        snap = json.loads(ws.receive_text())
        assert [t["topic"] for t in snap["topics"]] == ["dlq"]
        w.grant(fay, "TOPIC", "orders", "DESCRIBE")
        for _ in range(100):
            frame = json.loads(ws.receive_text())
            if frame["type"] == "snapshot":
                break
            # events before the change show nothing of orders
            assert all(t["topic"] != "orders" for t in frame["changes"]["topics"]), frame
            assert "orders" not in frame.get("samples", {}).get("topics", {}), frame
        assert frame["type"] == "snapshot"
        assert sorted(t["topic"] for t in frame["topics"]) == ["dlq", "orders"]


def test_bindings_written_by_another_connection_take_effect(world: World, tmp_path: Path) -> None:
    w = world
    ann = w.principal("ann")
    assert code(w.call(ann, "GET", "/v1/topics/orders")) == "TOPIC_AUTHORIZATION_FAILED"
    broker = w.client.app.state.broker  # type: ignore[attr-defined]
    with sqlite3.connect(broker.db.path) as conn:
        conn.execute(
            "INSERT INTO acls VALUES ('ann', 'TOPIC', 'LITERAL', 'orders', 'DESCRIBE', 'ALLOW', 0)"
        )
    deadline = time.monotonic() + 5  # the server looks about once a second
    while (
        time.monotonic() < deadline and w.call(ann, "GET", "/v1/topics/orders").status_code == 403
    ):
        time.sleep(0.05)
    assert w.call(ann, "GET", "/v1/topics/orders").status_code == 200
