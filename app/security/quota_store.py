"""The ``quotas`` table: per-principal overrides of the default byte-rate quotas."""

from __future__ import annotations

from dataclasses import dataclass

from app.metadata.db import Database
from app.security.quotas import Override


@dataclass(frozen=True, slots=True)
class QuotaRow:
    principal: str
    override: Override
    updated_ms: int


class QuotaStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> list[QuotaRow]:
        rows = await self.db.reader.fetchall(
            "SELECT principal, producer_byte_rate, consumer_byte_rate, updated_ms FROM quotas "
            "ORDER BY principal"
        )
        return [QuotaRow(r[0], Override(r[1], r[2]), r[3]) for r in rows]

    async def put(self, principal: str, override: Override, now_ms: int) -> None:
        async with self.db.transaction() as tx:
            await tx.execute(
                "INSERT INTO quotas (principal, producer_byte_rate, consumer_byte_rate, "
                "updated_ms) VALUES (?, ?, ?, ?) ON CONFLICT (principal) DO UPDATE SET "
                "producer_byte_rate = excluded.producer_byte_rate, "
                "consumer_byte_rate = excluded.consumer_byte_rate, "
                "updated_ms = excluded.updated_ms",
                (principal, override.producer_byte_rate, override.consumer_byte_rate, now_ms),
            )

    async def delete(self, principal: str) -> bool:
        """Whether there was a row to delete."""
        async with self.db.transaction() as tx:
            done = await tx.execute("DELETE FROM quotas WHERE principal = ?", (principal,))
            return done.rowcount > 0
