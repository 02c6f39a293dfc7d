"""A running app with a few of everything, and principals to ask it things as.

``World`` serves an in-process app (Starlette's test client: HTTP and WebSockets) that
requires API keys, whose super-user ``admin`` made topics, groups, share groups and
transactional ids; ``principal`` creates a real key for a principal and answers the headers its
requests carry; ``grant`` and ``revoke`` change its ACLs through the admin endpoints.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from starlette.exceptions import StarletteDeprecationWarning

from app.config import Settings
from app.main import create_app
from app.security import permissions
from tests.integration.helpers import LoopbackClient

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient, WebSocketTestSession

ADMIN = "admin"
Headers = dict[str, str]


def acl(
    principal: str, rtype: str, name: str, op: str, permission: str = "ALLOW", **more: str
) -> dict[str, str]:
    return {
        "principal": principal,
        "resource_type": rtype,
        "resource_name": name,
        "operation": op,
        "permission": permission,
        **more,
    }


@dataclass
class World:
    client: TestClient
    tx_pid: int = 0
    tx_epoch: int = 0
    idempotent_pid: int = 0
    share_member: str = ""
    keys: dict[str, str] = field(default_factory=dict)  # principal → its key

    def principal(self, name: str) -> Headers:
        """The headers of ``name``'s requests (its key is created the first time)."""
        if name not in self.keys:
            self.keys[name] = self.admin("POST", "/v1/admin/keys", {"principal": name})["key"]
        return {"authorization": f"Bearer {self.keys[name]}", "x-principal": name}

    def name_of(self, who: Headers) -> str:
        return who["x-principal"]

    def call(
        self,
        who: Headers,
        method: str,
        path: str,
        body: Any = None,
        query: dict[str, Any] | None = None,
    ) -> httpx.Response:
        """A request of ``who``: a JSON ``body``, or ``bytes`` sent as record batches."""
        if isinstance(body, bytes):
            headers = {**who, "content-type": "application/vnd.sluice.record-batch"}
            r: httpx.Response = self.client.request(
                method, path, content=body, params=query, headers=headers
            )
            return r
        r = self.client.request(method, path, json=body, params=query, headers=who)
        return r

    def admin(self, method: str, path: str, body: Any = None, **query: Any) -> dict[str, Any]:
        r = self.call(self.principal(ADMIN), method, path, body, query)
        assert r.status_code < 300, (method, path, r.status_code, r.text)
        return dict(r.json()) if r.content else {}

    def grant(
        self, who: Headers, rtype: str, name: str, op: str, permission: str = "ALLOW"
    ) -> None:
        self.admin("POST", "/v1/admin/acls", acl(self.name_of(who), rtype, name, op, permission))

    def revoke(self, who: Headers, rtype: str, name: str, op: str) -> None:
        gone = self.admin(
            "DELETE",
            "/v1/admin/acls",
            principal=self.name_of(who),
            resource_type=rtype,
            resource_name=name,
            operation=op,
            pattern_type="LITERAL",
        )["removed"]
        assert len(gone) == 1, gone

    def socket(self, who: Headers, path: str) -> AbstractContextManager[WebSocketTestSession]:
        return self.client.websocket_connect(path, headers=who)


def route_keys() -> list[str]:
    """``METHOD path`` of every route the app serves (``WS`` for a WebSocket), sorted."""
    with tempfile.TemporaryDirectory() as d:
        app = create_app(Settings(data_dir=str(Path(d) / "data")))
        return sorted(f"{m} {p}" for m, p in permissions.routes_of(app))


def start_world(tmp: Path, **settings: Any) -> Iterator[World]:
    app = create_app(
        Settings(data_dir=str(tmp / "data"), super_users=ADMIN, events_interval_ms=50, **settings)
    )
    with LoopbackClient(app) as client:
        w = World(client)
        # the first key is created without one (the server has none yet); from then on every
        # request needs a key
        r = client.post("/v1/admin/keys", json={"principal": ADMIN})
        assert r.status_code == 201, r.text
        w.keys[ADMIN] = r.json()["key"]
        assert client.get("/v1/topics").status_code == 401
        for name, partitions in (("orders", 2), ("doomed", 1), ("dlq", 1)):
            w.admin("POST", "/v1/topics", {"name": name, "partitions": partitions})
        w.admin(
            "POST",
            "/v1/topics/orders/records",
            {"records": [{"value": str(i), "partition": 0} for i in range(3)]},
        )
        w.admin(
            "POST", "/v1/groups/g/heartbeat", {"member_epoch": 0, "subscribed_topics": ["orders"]}
        )
        for g in ("g2", "g-doomed"):
            w.admin(
                "POST",
                f"/v1/groups/{g}/offsets",
                {"offsets": [{"topic": "orders", "partition": 0, "offset": 1}]},
            )
        fetched = w.admin("POST", "/v1/share-groups/sg/fetch", {"subscribed_topics": ["orders"]})
        w.share_member = fetched["member_id"]
        for g in ("sg-idle", "sg-doomed"):
            w.admin("PATCH", f"/v1/share-groups/{g}/config", {"record_lock_duration_ms": 30_000})
        tx = w.admin("POST", "/v1/producers", {"transactional_id": "tx"})
        w.tx_pid, w.tx_epoch = tx["producer_id"], tx["producer_epoch"]
        w.idempotent_pid = w.admin("POST", "/v1/producers", {})["producer_id"]
        yield w
