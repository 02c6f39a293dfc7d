"""QuotaAdmin: the quotas' overrides, kept in the metadata database and applied to ``Quotas``.

The admin endpoints and the ``quotas`` command change the ``quotas`` table; the server applies
its own changes at once and notices the command's (another process) by reading the table
again about once a second (a handful of rows), so a change made while the server runs takes
effect within a second.
"""

from __future__ import annotations

import asyncio
import logging

from app.clock import Clock
from app.errors import ErrorCode, InvalidRequest, NotFound
from app.security.quota_store import QuotaRow, QuotaStore
from app.security.quotas import MAX_BYTE_RATE, Override, Quotas

log = logging.getLogger("sluice.quotas")

RELOAD_S = 1.0  # how often the table is read again for changes made by other processes
PRINCIPAL_MAX_CHARS = 255


def validate_principal(principal: str) -> str:
    if not 1 <= len(principal) <= PRINCIPAL_MAX_CHARS or not principal.isprintable():
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            f"principal: expected 1 to {PRINCIPAL_MAX_CHARS} printable characters",
        )
    return principal


def validate_override(override: Override) -> Override:
    rates = (
        ("producer_byte_rate", override.producer_byte_rate),
        ("consumer_byte_rate", override.consumer_byte_rate),
    )
    if all(rate is None for _, rate in rates):
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "give producer_byte_rate or consumer_byte_rate (or both); removing a principal's "
            "quotas is DELETE (quotas remove)",
        )
    for name, rate in rates:
        if rate is not None and (type(rate) is not int or not 1 <= rate <= MAX_BYTE_RATE):
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, f"{name}: expected an integer from 1 to {MAX_BYTE_RATE}"
            )
    return override


class QuotaAdmin:
    def __init__(
        self, quotas: Quotas, store: QuotaStore, clock: Clock, reload_s: float = RELOAD_S
    ) -> None:
        self.quotas = quotas
        self.store = store
        self.clock = clock
        self.reload_s = reload_s
        self.rows: dict[str, QuotaRow] = {}
        self._changes = 0  # changes applied; a reload that overlapped one is not applied

    def _apply(self, rows: list[QuotaRow]) -> None:
        self._changes += 1
        self.rows = {r.principal: r for r in rows}
        self.quotas.configure({r.principal: r.override for r in rows})

    async def load(self) -> None:
        self._apply(await self.store.load_all())

    def list(self) -> list[QuotaRow]:
        return sorted(self.rows.values(), key=lambda r: r.principal)

    def defaults(self) -> dict[str, int]:
        """The quotas of a principal without its own, by kind (0: unlimited): the
        settings', which the meters hold."""
        return dict(self.quotas.defaults)

    async def set(self, principal: str, override: Override) -> QuotaRow:
        """Give ``principal`` its own quotas (a kind left None takes the default)."""
        validate_principal(principal)
        validate_override(override)
        now = self.clock.now_ms()
        await self.store.put(principal, override, now)
        row = QuotaRow(principal, override, now)
        self._apply([*(r for r in self.rows.values() if r.principal != principal), row])
        return row

    async def remove(self, principal: str) -> None:
        """Back to the defaults; 404 NOT_FOUND when ``principal`` has no quotas of its own."""
        validate_principal(principal)
        if not await self.store.delete(principal):
            raise NotFound(ErrorCode.NOT_FOUND, f"principal {principal!r} has no quotas of its own")
        self._apply([r for r in self.rows.values() if r.principal != principal])

    async def reload(self) -> bool:
        """Read the table again; whether it had changed."""
        changes = self._changes
        rows = await self.store.load_all()
        if changes != self._changes or {r.principal: r for r in rows} == self.rows:
            return False
        self._apply(rows)
        log.info("quotas reloaded: %d principals with their own quotas", len(rows))
        return True

    async def run_reload(self) -> None:
        while True:
            await asyncio.sleep(self.reload_s)
            await self.reload()
