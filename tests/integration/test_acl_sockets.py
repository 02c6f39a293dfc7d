"""A push socket whose principal (a real key) may not read, then may, then may no longer: the
subscribe is refused with an error frame, and once the ACL goes the socket is closed with 1008
and its records are released (the project's in-process ASGI socket, on the app's own loop)."""

from __future__ import annotations

from collections.abc import Callable

from app.config import Settings
from app.security.acls import AclFilter, ResourceType, binding

from .conftest import Served, running
from .helpers import create_topic, produce
from .ws_client import AsgiSocket, Closed


async def _key(s: Served, principal: str) -> list[tuple[bytes, bytes]]:
    """The handshake header of a new key of ``principal`` (keys are required from then on)."""
    _, key = await s.broker.keys.create(principal, "")
    return [(b"authorization", f"Bearer {key}".encode())]


async def test_a_push_socket_refuses_topics_and_closes_when_its_acls_go(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as s:
        await create_topic(s.client, "orders", 2)
        acls = s.broker.acls
        await acls.add(binding("pat", "GROUP", "sg", "READ", "ALLOW"))
        await acls.add(binding("admin", "TOPIC", "*", "ALL", "ALLOW"))
        await acls.add(binding("admin", "GROUP", "*", "ALL", "ALLOW"))
        pat = await _key(s, "pat")
        s.client.headers["authorization"] = dict(await _key(s, "admin"))[b"authorization"].decode()
        async with AsgiSocket(s.app, "/v1/share-groups/sg/consume", headers=pat) as ws:
            await ws.send({"type": "subscribe", "topics": ["orders"]})
            frame = await ws.receive()
            assert frame["type"] == "error"
            assert frame["error"]["code"] == "TOPIC_AUTHORIZATION_FAILED"
            read = binding("pat", "TOPIC", "orders", "READ", "ALLOW")
            await acls.add(read)
            await ws.send({"type": "subscribe", "topics": ["orders"]})
            assert (await ws.receive())["type"] == "subscribed"
            await produce(s.client, "orders", [{"value": "a", "partition": 0}])
            assert (await ws.receive())["type"] == "records"
            gone = await acls.remove(AclFilter("pat", ResourceType.TOPIC, "orders"))
            assert gone == [read]
            await produce(s.client, "orders", [{"value": "b", "partition": 1}])
            frame = await ws.receive()
            assert frame["error"]["code"] == "TOPIC_AUTHORIZATION_FAILED", frame
            try:
                await ws.receive()
                raise AssertionError("the socket stayed open")
            except Closed as closed:
                assert closed.code == 1008
        # the session ended: its member left and its records are available again
        r = await s.client.get("/v1/share-groups/sg")
        assert r.json()["members"] == []
        assert all(p["acquired"] == 0 for p in r.json()["partitions"]), r.json()


async def test_a_push_socket_without_read_on_its_group_is_refused_at_connect(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as s:
        pat = await _key(s, "pat")
        async with AsgiSocket(s.app, "/v1/share-groups/sg/consume", headers=pat) as ws:
            frame = await ws.receive()
            assert frame["error"]["code"] == "GROUP_AUTHORIZATION_FAILED"
            try:
                await ws.receive()
                raise AssertionError("the socket stayed open")
            except Closed as closed:
                assert closed.code == 1008
