"""Apply ``migrations/NNNN_name.sql`` in order, each in one transaction with its bookkeeping row.

A failed migration leaves neither its changes nor its row. Released migrations are never
edited; a new change is a new file.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import aiosqlite

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_ms INTEGER NOT NULL
)
"""


def migration_files(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    """(version, path) of every migration file, in order; raises on a malformed name."""
    out = []
    for path in sorted(directory.glob("*.sql")):
        m = _NAME.match(path.name)
        if not m:
            raise ValueError(f"migration file name {path.name!r} is not NNNN_name.sql")
        out.append((int(m.group(1)), path))
    versions = [v for v, _ in out]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migration versions must be 1..N without gaps, got {versions}")
    return out


async def applied(conn: aiosqlite.Connection) -> set[int]:
    await conn.execute(_BOOKKEEPING)
    async with conn.execute("SELECT version FROM schema_migrations") as cur:
        return {row[0] async for row in cur}


async def migrate(conn: aiosqlite.Connection, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply pending migrations; returns the names applied."""
    done = await applied(conn)
    names = []
    for version, path in migration_files(directory):
        if version in done:
            continue
        script = (
            "BEGIN IMMEDIATE;\n" + path.read_text() + "\n"
            f"INSERT INTO schema_migrations (version, name, applied_ms) "
            f"VALUES ({version}, '{path.name}', {int(time.time() * 1000)});\nCOMMIT;"
        )
        try:
            await conn.executescript(script)
        except Exception:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        names.append(path.name)
    return names
