"""Print the schema that all migrations produce: ``python -m tests.migrations.dump_schema``."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

import aiosqlite

from app.metadata.migrate import migrate

HEADER = (
    "-- The canonical schema after every migration (tests/migrations checks it).\n"
    "-- Regenerate: python -m tests.migrations.dump_schema > schema.sql\n\n"
)


async def schema_of(conn: aiosqlite.Connection) -> list[str]:
    rows = await conn.execute_fetchall(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY type DESC, name"
    )
    return [str(r[0]) for r in rows]


async def migrated_schema() -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        conn = await aiosqlite.connect(str(Path(d) / "m.db"), isolation_level=None)
        try:
            await migrate(conn)
            return await schema_of(conn)
        finally:
            await conn.close()


def main() -> None:
    sys.stdout.write(HEADER + ";\n\n".join(asyncio.run(migrated_schema())) + ";\n")


if __name__ == "__main__":
    main()
