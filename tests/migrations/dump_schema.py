"""Print the schema that all migrations produce: ``python -m tests.migrations.dump_schema``."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from app.metadata.connection import Connection
from app.metadata.migrate import migrate

HEADER = (
    "-- The canonical schema after every migration (tests/migrations checks it).\n"
    "-- Regenerate: python -m tests.migrations.dump_schema > schema.sql\n\n"
)


@asynccontextmanager
async def connected(path: Path) -> AsyncIterator[Connection]:
    conn = await Connection.open(str(path))
    try:
        yield conn
    finally:
        await conn.close()


async def schema_of(conn: Connection) -> list[str]:
    rows = await conn.fetchall(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY type DESC, name"
    )
    return [str(r[0]) for r in rows]


async def migrated_schema() -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        async with connected(Path(d) / "m.db") as conn:
            await migrate(conn)
            return await schema_of(conn)


def main() -> None:
    sys.stdout.write(HEADER + ";\n\n".join(asyncio.run(migrated_schema())) + ";\n")


if __name__ == "__main__":
    main()
