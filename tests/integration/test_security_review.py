"""What a security review of the keys and ACLs found, each as the test that would have caught
it: describes and the event feed showed offsets, partitions and lags of topics the principal
may not describe; deleting a group's offsets without a topic needed no READ on the topics;
ALTER on a share group could route its records to a topic of one's own; Idempotency-Keys of
one principal refused another's; a key revoked while its socket was being accepted left the
socket open."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.main import create_app

from .acl_world import World, start_world


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with tempfile.TemporaryDirectory() as d:
        w = next(gen := start_world(Path(d)))
        w.admin("POST", "/v1/topics", {"name": "secret", "partitions": 1})
        w.admin("POST", "/v1/topics", {"name": "loot", "partitions": 1})
        w.admin("POST", "/v1/topics/secret/records", {"records": [{"value": "s"}] * 7})
        yield w
        with pytest.raises(StopIteration):
            next(gen)


def topics_in(body: Any) -> set[str]:
    """Every value of a "topic" key anywhere in a JSON document."""
    out: set[str] = set()
    if isinstance(body, dict):
        for k, v in body.items():
            if k == "topic" and isinstance(v, str):
                out.add(v)
            out |= topics_in(v)
    elif isinstance(body, list):
        for v in body:
            out |= topics_in(v)
    return out


def test_describe_group_hides_offsets_of_topics_not_describable(world: World) -> None:
    """GET /v1/groups/{g}/offsets leaves out 'secret'; GET /v1/groups/{g} shows its offset
    and lag (so its high watermark) to a principal with DESCRIBE on the group only."""
    w = world
    w.admin(
        "POST",
        "/v1/groups/mixed/offsets",
        {"offsets": [{"topic": "secret", "partition": 0, "offset": 2}]},
    )
    olly = w.principal("olly")
    w.grant(olly, "GROUP", "mixed", "DESCRIBE")
    assert w.call(olly, "GET", "/v1/groups/mixed/offsets").json()["offsets"] == []
    r = w.call(olly, "GET", "/v1/groups/mixed")
    assert r.status_code == 200
    assert "secret" not in topics_in(r.json()), r.text


def test_describe_share_group_hides_partitions_of_topics_not_describable(world: World) -> None:
    w = world
    w.admin("POST", "/v1/share-groups/sgx/fetch", {"subscribed_topics": ["secret"]})
    sid = w.principal("sid")
    w.grant(sid, "GROUP", "sgx", "DESCRIBE")
    # the per-record view of the same partition needs DESCRIBE on the topic ...
    r = w.call(sid, "GET", "/v1/share-groups/sgx/partitions/secret/0/records")
    assert r.json()["error"]["code"] == "TOPIC_AUTHORIZATION_FAILED"
    # ... the describe shows its start/end offsets, lag and counts without it
    r = w.call(sid, "GET", "/v1/share-groups/sgx")
    assert "secret" not in topics_in(r.json()), r.text


def test_describe_transaction_hides_partitions_of_topics_not_describable(world: World) -> None:
    """Kafka's DescribeTransactions drops the partitions of topics the caller may not DESCRIBE."""
    w = world
    tx = w.admin("POST", "/v1/producers", {"transactional_id": "txs"})
    body = {
        **tx,
        "transactional_id": "txs",
        "batches": [
            {"topic": "secret", "partition": 0, "base_sequence": 0, "records": [{"value": "x"}]}
        ],
    }
    assert w.call(w.principal("admin"), "POST", "/v1/produce", body).status_code == 200
    tina = w.principal("tina")
    w.grant(tina, "TRANSACTIONAL_ID", "txs", "DESCRIBE")
    for path in ("/v1/transactions/txs", "/v1/transactions"):
        r = w.call(tina, "GET", path)
        assert "secret" not in topics_in(r.json()), (path, r.text)


def test_event_feed_hides_offsets_and_partitions_of_topics_not_describable(world: World) -> None:
    w = world
    w.admin(
        "POST",
        "/v1/groups/mixed2/offsets",
        {"offsets": [{"topic": "secret", "partition": 0, "offset": 1}]},
    )
    w.admin("POST", "/v1/share-groups/sgy/fetch", {"subscribed_topics": ["secret"]})
    fred = w.principal("fred")
    w.grant(fred, "GROUP", "mixed2", "DESCRIBE")
    w.grant(fred, "GROUP", "sgy", "DESCRIBE")
    with w.socket(fred, "/v1/events") as ws:
        snap = json.loads(ws.receive_text())
    assert snap["topics"] == []
    assert "secret" not in topics_in(snap["groups"]), snap["groups"]
    assert "secret" not in topics_in(snap["share_groups"]), snap["share_groups"]


def test_delete_group_offsets_without_topic_needs_read_on_each_topic(world: World) -> None:
    w = world
    w.admin(
        "POST",
        "/v1/groups/mixed3/offsets",
        {"offsets": [{"topic": "secret", "partition": 0, "offset": 3}]},
    )
    dora = w.principal("dora")
    w.grant(dora, "GROUP", "mixed3", "DELETE")
    r = w.call(dora, "DELETE", "/v1/groups/mixed3/offsets", query={"topic": "secret"})
    assert r.json()["error"]["code"] == "TOPIC_AUTHORIZATION_FAILED"
    r = w.call(dora, "DELETE", "/v1/groups/mixed3/offsets")  # no topic: every topic's offsets
    assert r.status_code == 403, r.status_code
    assert w.admin("GET", "/v1/groups/mixed3/offsets")["offsets"] != []


def test_alter_on_a_share_group_does_not_give_its_records(world: World) -> None:
    """ALTER on the group + WRITE/READ on a topic of one's own: the records the group's
    consumers reject (or that reach the delivery limit) of a topic one may not READ are
    copied where one can read them."""
    w = world
    mal = w.principal("mal")
    w.grant(mal, "GROUP", "payments", "ALTER")
    w.grant(mal, "TOPIC", "loot", "WRITE")
    w.grant(mal, "TOPIC", "loot", "READ")
    assert w.call(mal, "GET", "/v1/topics/secret/partitions/0/records").status_code == 403
    f = w.admin("POST", "/v1/share-groups/payments/fetch", {"subscribed_topics": ["secret"]})
    r = w.call(mal, "PATCH", "/v1/share-groups/payments/config", {"dead_letter_topic": "loot"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "CLUSTER_AUTHORIZATION_FAILED"
    w.admin("POST", "/v1/topics/secret/records", {"records": [{"value": "card=4111"}]})
    f = w.admin(
        "POST",
        "/v1/share-groups/payments/fetch",
        {"member_id": f["member_id"], "max_wait_ms": 500},
    )
    first = f["records"][0]["offset"]
    ack = {"topic": "secret", "partition": 0, "first_offset": first, "last_offset": first}
    w.admin(
        "POST",
        "/v1/share-groups/payments/acknowledge",
        {"member_id": f["member_id"], "acknowledgements": [{**ack, "type": "reject"}]},
    )
    r = w.call(mal, "GET", "/v1/topics/loot/partitions/0/records")
    assert "card=4111" not in [x["value"] for x in r.json()["records"]], r.text


def test_idempotency_keys_of_one_principal_do_not_refuse_another(world: World) -> None:
    w = world
    a, b = w.principal("pa"), w.principal("pb")
    w.grant(a, "TOPIC", "orders", "WRITE")
    w.grant(b, "TOPIC", "loot", "WRITE")
    r = w.client.post(
        "/v1/topics/loot/records",
        json={"records": [{"value": "b"}]},
        headers={**b, "Idempotency-Key": "order-42"},
    )
    assert r.status_code == 200
    r = w.client.post(
        "/v1/topics/orders/records",
        json={"records": [{"value": "a"}]},
        headers={**a, "Idempotency-Key": "order-42"},
    )
    assert r.status_code == 200, r.text  # it was 409 IDEMPOTENCY_KEY_REUSED


async def test_a_key_revoked_while_its_socket_is_accepted_still_closes_it() -> None:
    """The gate authenticates the handshake; the handler registers the socket for revocation
    only after ``await websocket.accept()``. A revocation in between is never delivered."""
    with tempfile.TemporaryDirectory() as d:
        app = create_app(Settings(data_dir=str(Path(d) / "data"), super_users="admin"))
        async with app.router.lifespan_context(app):
            keys = app.state.broker.keys
            await keys.create("admin")  # keys are required from here on
            row, alice = await keys.create("alice")
            out: asyncio.Queue[MutableMapping[str, Any]] = asyncio.Queue()
            inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            await inbox.put({"type": "websocket.connect"})

            async def send(message: MutableMapping[str, Any]) -> None:
                if message["type"] == "websocket.accept":
                    await keys.revoke(row.key_id)  # lands while the accept is in flight
                await out.put(message)

            scope = {
                "type": "websocket",
                "path": "/v1/events",
                "raw_path": b"/v1/events",
                "query_string": b"",
                "headers": [(b"authorization", f"Bearer {alice}".encode())],
                "subprotocols": [],
                "scheme": "ws",
                "server": ("test", 80),
                "client": ("test", 1),
                "root_path": "",
                "asgi": {"version": "3.0"},
            }
            task = asyncio.create_task(app(scope, inbox.get, send))
            seen = []
            try:
                while True:
                    m = await asyncio.wait_for(out.get(), 2)
                    seen.append(m["type"])
                    if m["type"] == "websocket.close":
                        break
            except TimeoutError:
                pass
            await inbox.put({"type": "websocket.disconnect", "code": 1000})
            await asyncio.wait_for(task, 5)
            assert "websocket.close" in seen, seen  # it was accepted, sent a snapshot, stayed open
