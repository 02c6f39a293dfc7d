"""ACLs against a real ``python -m app serve`` process with real keys: bindings added and
removed with ``python -m app acls`` while the server runs take effect within a couple of
seconds (the server rereads the table when the database changes); deny wins; the CLI's
listing and its refusals. On a gateway the keys and bindings are written through its admin
routes (tests/e2e/admin.py), and the CLI's own output is not looked at."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import GATEWAY, ServerProcess, cli
from tests.e2e.admin import Admin

pytestmark = pytest.mark.slow


def until(status: int, call: Callable[[], httpx.Response], within: float = 10) -> httpx.Response:
    """Ask until the answer has ``status`` (the server looks at the table once a second)."""
    deadline = time.monotonic() + within
    r = call()
    while r.status_code != status and time.monotonic() < deadline:
        time.sleep(0.05)
        r = call()
    assert r.status_code == status, r.text
    return r


def test_acls_added_and_removed_by_the_cli_take_effect_while_the_server_runs(
    server_factory: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    ops = Admin(server)
    if GATEWAY:
        # a gateway's keys and bindings are written through it: the bindings first, while it
        # still serves everyone, then the keys
        server.start()
    out = ops.add_acl("admin", "CLUSTER", "kafka-cluster", "ALL", "ALLOW")
    assert GATEWAY or out.startswith("added ALLOW admin ALL CLUSTER LITERAL kafka-cluster"), out
    ops.add_acl("admin", "TOPIC", "*", "ALL", "ALLOW")
    admin_key = ops.create_key("admin")
    ops.key = admin_key
    alice_key = ops.create_key("alice")
    if not GATEWAY:
        server.start()
    admin = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {admin_key}"})
    alice = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {alice_key}"})
    with admin, alice:
        assert admin.post("/v1/topics", json={"name": "orders"}).status_code == 201
        assert admin.post("/v1/topics", json={"name": "orders.secret"}).status_code == 201
        for name in ("orders", "orders.secret"):
            r = admin.post(f"/v1/topics/{name}/records", json={"records": [{"value": "v"}]})
            assert r.status_code == 200, r.text

        def read(topic: str) -> httpx.Response:
            return alice.get(f"/v1/topics/{topic}/partitions/0/records")

        r = read("orders")
        assert r.status_code == 403 and r.json()["error"]["code"] == "TOPIC_AUTHORIZATION_FAILED"
        assert alice.get("/v1/topics").json() == {"topics": []}
        # a prefixed allow and a literal deny, written while the server runs
        ops.add_acl("alice", "TOPIC", "orders", "READ", "ALLOW", prefixed=True)
        ops.add_acl("alice", "TOPIC", "orders.secret", "ALL", "DENY")
        assert until(200, lambda: read("orders")).json()["records"][0]["value"] == "v"
        # deny wins (the prefixed allow covers orders.secret too; each CLI commit is seen on
        # its own look at the database, so the deny may come a second after the allow)
        until(403, lambda: read("orders.secret"))
        assert [t["name"] for t in alice.get("/v1/topics").json()["topics"]] == ["orders"]
        # the admin endpoint sees what the CLI wrote, and the CLI what the endpoint wrote
        listed = admin.get("/v1/admin/acls", params={"principal": "alice"}).json()["acls"]
        assert {(a["resource_name"], a["pattern_type"], a["permission"]) for a in listed} == {
            ("orders", "PREFIXED", "ALLOW"),
            ("orders.secret", "LITERAL", "DENY"),
        }
        body = {
            "principal": "alice",
            "resource_type": "GROUP",
            "resource_name": "g",
            "operation": "READ",
            "permission": "ALLOW",
        }
        assert admin.post("/v1/admin/acls", json=body).status_code == 201
        if not GATEWAY:
            lines = cli(data, "acls", "list", "--principal", "alice").stdout.splitlines()
            assert "ALLOW alice READ GROUP LITERAL g" in lines and len(lines) == 3, lines
        # alice may not change ACLs
        r = alice.post("/v1/admin/acls", json=body)
        assert r.status_code == 403 and r.json()["error"]["code"] == "CLUSTER_AUTHORIZATION_FAILED"
        # removed by the CLI: refused again
        out = ops.remove_acls("alice", "TOPIC", "orders", prefixed=True)
        assert GATEWAY or out.strip() == "removed ALLOW alice READ TOPIC PREFIXED orders"
        until(403, lambda: read("orders"))
    assert server.stop() == 0


def test_the_cli_refuses_bad_bindings_with_a_message(tmp_path: Path) -> None:
    data = tmp_path / "data"
    r = cli(
        data,
        "acls",
        "add",
        "--principal",
        "a b",
        "--topic",
        "t",
        "--operation",
        "READ",
        "--allow",
        check=False,
    )
    assert r.returncode == 2 and "principal" in r.stderr, r
    r = cli(
        data,
        "acls",
        "add",
        "--principal",
        "a",
        "--group",
        "g",
        "--operation",
        "WRITE",
        "--allow",
        check=False,
    )
    assert r.returncode == 2 and "WRITE means nothing on a GROUP" in r.stderr, r
    r = cli(data, "acls", "remove", check=False)
    assert r.returncode == 2 and "at least one flag" in r.stderr, r
    r = cli(
        data, "acls", "add", "--principal", "a", "--topic", "t", "--operation", "READ", check=False
    )
    assert r.returncode == 2 and "--allow" in r.stderr, r
