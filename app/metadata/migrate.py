"""Apply the numbered SQL migrations in order, each in one transaction with its bookkeeping row.

The migrations are files ``NNNN_name.sql`` shipped inside the package
(``app/metadata/migrations/``) and read through ``importlib.resources``, so an installed wheel
finds them as a source checkout does. A failed migration leaves neither its changes nor its
row. Released migrations are never edited; a new change is a new file.
"""

from __future__ import annotations

import re
import time
from importlib.resources import files
from importlib.resources.abc import Traversable

from app.metadata.connection import Connection

MIGRATIONS: Traversable = files("app.metadata").joinpath("migrations")
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_ms INTEGER NOT NULL
)
"""


def migration_files(directory: Traversable = MIGRATIONS) -> list[tuple[int, Traversable]]:
    """(version, file) of every migration, in order; raises on a malformed name or a gap.

    ``directory`` is the package's migrations unless a test brings its own (a ``Path`` is a
    ``Traversable`` too)."""
    out = []
    for entry in sorted(
        (e for e in directory.iterdir() if e.name.endswith(".sql")), key=lambda e: e.name
    ):
        m = _NAME.match(entry.name)
        if not m:
            raise ValueError(f"migration file name {entry.name!r} is not NNNN_name.sql")
        out.append((int(m.group(1)), entry))
    versions = [v for v, _ in out]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migration versions must be 1..N without gaps, got {versions}")
    return out


async def applied(conn: Connection) -> set[int]:
    await conn.execute(_BOOKKEEPING)
    return {row[0] for row in await conn.fetchall("SELECT version FROM schema_migrations")}


async def migrate(conn: Connection, directory: Traversable = MIGRATIONS) -> list[str]:
    """Apply pending migrations; returns the names applied."""
    done = await applied(conn)
    names = []
    for version, entry in migration_files(directory):
        if version in done:
            continue
        script = (
            "BEGIN IMMEDIATE;\n" + entry.read_text(encoding="utf-8") + "\n"
            f"INSERT INTO schema_migrations (version, name, applied_ms) "
            f"VALUES ({version}, '{entry.name}', {int(time.time() * 1000)});\nCOMMIT;"
        )
        try:
            await conn.executescript(script)
        except Exception:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        names.append(entry.name)
    return names
