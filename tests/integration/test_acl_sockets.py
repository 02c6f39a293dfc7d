"""A push socket whose principal may not read, then may, then may no longer: the subscribe is
refused with an error frame, and once the ACL goes the socket is closed with 1008 and its
records are released (the project's in-process ASGI socket, on the app's own loop)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.security import PRINCIPAL
from app.security.acls import AclFilter, ResourceType, binding

from .conftest import running
from .helpers import create_topic, produce
from .ws_client import AsgiSocket, Closed


class As:
    """The app, every request of it made by ``principal``."""

    def __init__(self, app: ASGIApp, principal: str) -> None:
        self.app = app
        self.principal = principal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[PRINCIPAL] = self.principal
        await self.app(scope, receive, send)


async def test_a_push_socket_refuses_topics_and_closes_when_its_acls_go(
    settings_factory: Callable[..., Settings],
) -> None:
    async with running(settings_factory()) as s:
        await create_topic(s.client, "orders", 2)
        acls = s.broker.acls
        await acls.add(binding("pat", "GROUP", "sg", "READ", "ALLOW"))
        app = As(s.app, "pat")
        async with AsgiSocket(app, "/v1/share-groups/sg/consume") as ws:  # type: ignore[arg-type]
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
        app = As(s.app, "pat")
        async with AsgiSocket(app, "/v1/share-groups/sg/consume") as ws:  # type: ignore[arg-type]
            frame = await ws.receive()
            assert frame["error"]["code"] == "GROUP_AUTHORIZATION_FAILED"
            try:
                await ws.receive()
                raise AssertionError("the socket stayed open")
            except Closed as closed:
                assert closed.code == 1008
