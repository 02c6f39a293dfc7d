"""Keys, ACLs and quotas changed beside a running server, on either engine: on the embedded
engine through the admin commands on its data directory (``python -m app keys|acls|quotas
--data-dir``), on a gateway (SLUICE_TEST_BACKEND=kafka) through the admin routes, since a
gateway keeps them in the cluster and has no data directory (docs/kafka.md#security).

On a gateway the server must run first, and the first key is created anonymously (the server
serves everyone while it holds no key); later changes are made with ``key``, the key of a
principal allowed to make them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import httpx

from tests.conftest import GATEWAY, ROOT, ServerProcess


@dataclass
class Admin:
    server: ServerProcess
    key: str | None = None  # on a gateway: whose requests change keys, ACLs and quotas

    def command(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``python -m app <args> --data-dir <the server's data directory>`` (embedded only)."""
        assert not GATEWAY, "a gateway has no data directory: its admin routes change it"
        return subprocess.run(
            [sys.executable, "-m", "app", *args, "--data-dir", str(self.server.data_dir)],
            cwd=ROOT,
            env=self.server.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=check,
        )

    def http(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        return httpx.Client(base_url=self.server.url, headers=headers, timeout=30)

    def create_key(self, principal: str) -> str:
        if not GATEWAY:
            return self.command("keys", "create", "--principal", principal).stdout.strip()
        with self.http() as c:
            r = c.post("/v1/admin/keys", json={"principal": principal})
        assert r.status_code == 201, r.text
        return str(r.json()["key"])

    def revoke_key(self, key_id: str) -> None:
        if not GATEWAY:
            self.command("keys", "revoke", key_id)
            return
        with self.http() as c:
            r = c.delete(f"/v1/admin/keys/{key_id}")
        assert r.status_code == 204, r.text

    def add_acl(
        self,
        principal: str,
        resource_type: str,
        name: str,
        operation: str,
        permission: str,
        *,
        prefixed: bool = False,
    ) -> str:
        """The binding added; on the embedded engine the command's output, on a gateway ""."""
        if not GATEWAY:
            flag = f"--{resource_type.lower()}"
            args = [flag] if resource_type == "CLUSTER" else [flag, name]
            return self.command(
                "acls",
                "add",
                "--principal",
                principal,
                *args,
                *(["--prefixed"] if prefixed else []),
                "--operation",
                operation,
                f"--{permission.lower()}",
            ).stdout
        body = {
            "principal": principal,
            "resource_type": resource_type,
            "resource_name": name,
            "pattern_type": "PREFIXED" if prefixed else "LITERAL",
            "operation": operation,
            "permission": permission,
        }
        with self.http() as c:
            r = c.post("/v1/admin/acls", json=body)
        assert r.status_code in (200, 201), r.text
        return ""

    def remove_acls(self, principal: str, resource_type: str, name: str, prefixed: bool) -> str:
        """Every binding of ``principal`` on the resource; the command's output or ""."""
        if not GATEWAY:
            flag = f"--{resource_type.lower()}"
            return self.command(
                "acls",
                "remove",
                "--principal",
                principal,
                flag,
                name,
                *(["--prefixed"] if prefixed else []),
            ).stdout
        query = {
            "principal": principal,
            "resource_type": resource_type,
            "resource_name": name,
            "pattern_type": "PREFIXED" if prefixed else "LITERAL",
        }
        with self.http() as c:
            r = c.delete("/v1/admin/acls", params=query)
        assert r.status_code == 200 and r.json()["removed"], r.text
        return ""

    def set_quota(self, principal: str, producer_byte_rate: int) -> str:
        if not GATEWAY:
            return self.command(
                "quotas",
                "set",
                "--principal",
                principal,
                "--producer-byte-rate",
                str(producer_byte_rate),
            ).stdout
        with self.http() as c:
            r = c.put(
                f"/v1/admin/quotas/{principal}", json={"producer_byte_rate": producer_byte_rate}
            )
        assert r.status_code == 200, r.text
        return ""

    def remove_quota(self, principal: str) -> None:
        if not GATEWAY:
            self.command("quotas", "remove", "--principal", principal)
            return
        with self.http() as c:
            r = c.delete(f"/v1/admin/quotas/{principal}")
        assert r.status_code == 204, r.text
