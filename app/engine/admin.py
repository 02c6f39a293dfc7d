"""The seam's keys, ACL bindings and quotas: where they are stored and administered.

Used by ``app/api/routes/admin_keys.py``, ``admin_acls.py``, ``admin_quotas.py``,
``auth.py`` (``keys.required``), the request gate's authentication (``app.main``,
``app.security.authentication``: ``required``, ``authenticate_header``, ``authenticate``,
``active``), and the WebSocket routes (``keys.sockets``, which closes a socket when its key is
revoked). Implemented today by ``app.security.keys.KeyStore`` (``Broker.keys``),
``app.security.acls.AclStore`` (``Broker.acls``) and ``app.security.quota_admin.QuotaAdmin``
(``Broker.quota_admin``), each on the SQLite metadata.

What stays in the face whatever the backend (docs/engine.md, "Keys, ACLs and quotas"): the
per-request decision (``app.security.authorizer.Authorizer``, loaded with the bindings by
``AclStore``), the quota meters that measure and throttle each HTTP principal
(``app.security.quotas.Quotas``), WebSocket tokens (``app.security.tokens``). What moves
behind the seam is the storage: on Kafka the keys are in the compacted topic
``__sluice_keys``, the ACL bindings are Kafka's own (CreateAcls, DescribeAcls, DeleteAcls:
Kafka's ACLs are the source of truth) and the quotas Kafka's client quotas
(DescribeClientQuotas, AlterClientQuotas), as docs/kafka.md, "Keys, ACLs and quotas", says.

Every change is effective on this server when it returns (and on every server within about a
second: the stores reload when another process changed them).
"""

from __future__ import annotations

from typing import Protocol

from app.security.acls import AclBinding, AclFilter
from app.security.keys import Identity, KeyRow
from app.security.open_sockets import OpenSockets
from app.security.quota_store import QuotaRow
from app.security.quotas import Override


class Keys(Protocol):
    """API keys (docs/security.md#keys)."""

    @property
    def required(self) -> bool:
        """Keys are required: at least one key was ever created."""
        ...

    @property
    def sockets(self) -> OpenSockets:
        """The open WebSockets by the key they were opened with, closed when it is
        revoked."""
        ...

    def authenticate_header(self, value: bytes) -> Identity | None:
        """Who an ``Authorization`` header value (``Bearer <key>``) is; None: nobody."""
        ...

    def authenticate(self, key: str) -> Identity | None:
        """Who ``key`` is; None for anything but an active key."""
        ...

    def active(self, key_id: str) -> bool: ...

    async def create(self, principal: str, description: str = ...) -> tuple[KeyRow, str]:
        """A new key of ``principal``: its row and the key itself, the only time it is
        shown; durable before it returns. Raises ``INVALID_REQUEST`` (an invalid principal
        or description)."""
        ...

    def list(self) -> list[KeyRow]:
        """Every key, revoked ones too; never a secret."""
        ...

    async def revoke(self, key_id: str) -> None:
        """Revoke a key; the sockets opened with it close (1008). Raises ``NOT_FOUND``."""
        ...


class Acls(Protocol):
    """ACL bindings (docs/security.md#authorization)."""

    async def add(self, b: AclBinding) -> bool:
        """Store a binding (True: new; False: it was there); effective when this returns."""
        ...

    def matching(self, f: AclFilter) -> list[AclBinding]:
        """The bindings ``f`` matches (DescribeAcls)."""
        ...

    async def remove(self, f: AclFilter) -> list[AclBinding]:
        """Remove the bindings ``f`` matches and answer them (DeleteAcls); effective when
        this returns."""
        ...


class QuotaAdmin(Protocol):
    """Per-principal byte-rate quotas (docs/security.md#quotas): their storage. The meters
    that enforce them are the face's."""

    def list(self) -> list[QuotaRow]:
        """Every principal's own quotas."""
        ...

    def defaults(self) -> dict[str, int]:
        """The quotas of a principal without its own, by kind (0: unlimited): the settings'
        on the embedded engine; on Kafka the default user's, else the gateway's setting."""
        ...

    async def set(self, principal: str, override: Override) -> QuotaRow:
        """Set a principal's quotas (a kind left out takes the default); applied to the
        meters when it returns. Raises ``INVALID_REQUEST``."""
        ...

    async def remove(self, principal: str) -> None:
        """Back to the defaults. Raises ``NOT_FOUND`` (no quotas of its own)."""
        ...
