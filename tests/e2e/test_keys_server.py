"""API keys against a real server process: the ``keys`` command run beside it (created keys
accepted, a revoked key refused within about a second and its open event socket closed with
1008), a push-consume socket closed by a revocation releasing its records, and the safe default
(no keys on a non-loopback address: refusal, unless anonymous access is allowed). On a gateway,
which keeps its keys in the cluster, the keys are created and revoked through it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.conftest import GATEWAY, ROOT, ServerProcess
from tests.e2e.admin import Admin

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]


def keys_command(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "keys", *args, "--data-dir", str(server.data_dir)],
        cwd=ROOT,
        env=server.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def until(condition: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``condition`` held (polled every 20 ms); fails after ``timeout``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.02)
    return time.monotonic() - started


async def test_keys_command_beside_a_running_server(server_factory: ServerFactory) -> None:
    server = server_factory(SLUICE_SUPER_USERS="admin,alice")  # keys here; ACLs elsewhere
    server.start()
    with httpx.Client(base_url=server.url, timeout=10) as http:
        assert http.get("/v1/auth/whoami").json() == {"principal": None, "keys_required": False}

        if GATEWAY:  # the gateway's keys are created through it (tests/e2e/admin.py)
            key = Admin(server).create_key("alice")
        else:
            created = keys_command(server, "create", "--principal", "alice", "--description", "e2e")
            assert created.returncode == 0, created.stderr
            key = created.stdout.strip()
            assert created.stdout == key + "\n"
            assert key[3:15] in created.stderr and "alice" in created.stderr
        assert key.startswith("sk_")
        key_id = key[3:15]
        # the server notices by itself: keys are required from now on
        took = until(lambda: http.get("/v1/topics").status_code == 401, 3)
        assert took < 2
        assert http.get("/v1/auth/whoami", headers=bearer(key)).json() == {
            "principal": "alice",
            "keys_required": True,
        }
        if not GATEWAY:
            listed = keys_command(server, "list")
            assert listed.returncode == 0 and key_id in listed.stdout and "alice" in listed.stdout
            assert key[16:] not in listed.stdout + listed.stderr
        else:
            listed_keys = http.get("/v1/admin/keys", headers=bearer(key)).json()["keys"]
            assert [(k["key_id"], k["principal"]) for k in listed_keys] == [(key_id, "alice")]

        url = f"ws://127.0.0.1:{server.port}/v1/events"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url):
                pass
        assert refused.value.response.status_code == 401
        async with connect(url, subprotocols=["sluice", f"sluice.bearer.{key}"]) as ws:  # type: ignore[list-item]
            assert ws.subprotocol == "sluice"
            assert orjson.loads(await ws.recv())["type"] == "snapshot"
            if GATEWAY:
                Admin(server, key).revoke_key(key_id)
            else:
                revoked = keys_command(server, "revoke", key_id)
                assert revoked.returncode == 0, revoked.stderr
            started = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
            socket_closed = time.monotonic() - started
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "key revoked")
        assert socket_closed < 2
        assert http.get("/v1/topics", headers=bearer(key)).status_code == 401
        if not GATEWAY:
            assert keys_command(server, "revoke", "nonexistent0").returncode == 1
            bad = keys_command(server, "create", "--principal", "not valid")
            assert bad.returncode == 2 and "principal" in bad.stderr
    assert server.stop() == 0


async def test_revoking_a_key_closes_its_push_socket_and_releases_its_records(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(SLUICE_SUPER_USERS="admin,alice")  # keys here; ACLs elsewhere
    server.start()
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as anon:
        admin_key = (await anon.post("/v1/admin/keys", json={"principal": "admin"})).json()["key"]
        admin = bearer(admin_key)
        c = httpx.AsyncClient(base_url=server.url, timeout=10, headers=admin)
        alice = (await c.post("/v1/admin/keys", json={"principal": "alice"})).json()
        assert (await c.post("/v1/topics", json={"name": "jobs"})).status_code == 201
        r = await c.patch("/v1/share-groups/g/config", json={"auto_offset_reset": "earliest"})
        assert r.status_code == 200
        r = await c.post("/v1/topics/jobs/records", json={"records": [{"value": "a"}]})
        assert r.status_code == 200
        url = f"ws://127.0.0.1:{server.port}/v1/share-groups/g/consume"
        async with connect(url, additional_headers=bearer(alice["key"])) as ws:
            await ws.send(orjson.dumps({"type": "subscribe", "topics": ["jobs"]}).decode())
            frames: list[dict[str, Any]] = []
            while not any(f["type"] == "records" for f in frames):
                frames.append(orjson.loads(await asyncio.wait_for(ws.recv(), 10)))
            r = await c.delete(f"/v1/admin/keys/{alice['key_id']}")
            assert r.status_code == 204
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "key revoked")
        # released at the close: another member gets the record at once
        fetch = {"member_id": None, "subscribed_topics": ["jobs"], "max_wait_ms": 5000}
        r = await c.post("/v1/share-groups/g/fetch", json=fetch)
        assert r.status_code == 200, r.text
        assert [rec["value"] for rec in r.json()["records"]] == ["a"]
        await c.aclose()
    assert server.stop() == 0
