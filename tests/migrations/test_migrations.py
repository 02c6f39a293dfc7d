from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import app
from app.metadata.migrate import MIGRATIONS, applied, migrate, migration_files
from tests.conftest import ROOT
from tests.migrations.dump_schema import connected, migrated_schema, schema_of


async def test_all_migrations_on_an_empty_database_equal_the_canonical_schema(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path / "canonical.db") as conn:
        await conn.executescript((ROOT / "schema.sql").read_text())
        expected = await schema_of(conn)
    assert await migrated_schema() == expected


def test_migration_files_are_numbered_without_gaps() -> None:
    files = migration_files()
    assert [v for v, _ in files] == list(range(1, len(files) + 1))
    assert [p.name for _, p in files] == sorted(
        e.name for e in MIGRATIONS.iterdir() if e.name.endswith(".sql")
    )


def test_the_migrations_ship_inside_the_package() -> None:
    # read through importlib.resources from app/metadata/migrations, never from the checkout
    package = Path(app.__file__).parent
    assert Path(str(MIGRATIONS)) == package / "metadata" / "migrations"
    assert len(migration_files()) >= 1


def test_a_misnamed_migration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "1_initial.sql").write_text("CREATE TABLE a (x);")
    with pytest.raises(ValueError, match=r"NNNN_name\.sql"):
        migration_files(tmp_path)


async def test_migrate_twice_applies_nothing_the_second_time(tmp_path: Path) -> None:
    async with connected(tmp_path / "m.db") as conn:
        first = await migrate(conn)
        assert first == [p.name for _, p in migration_files()]
        assert await migrate(conn) == []


async def test_a_failing_migration_leaves_neither_its_changes_nor_its_row(tmp_path: Path) -> None:
    d = tmp_path / "migrations"
    d.mkdir()
    (d / "0001_good.sql").write_text("CREATE TABLE good (x INTEGER);")
    (d / "0002_bad.sql").write_text("CREATE TABLE half (x INTEGER);\nTHIS IS NOT SQL;")
    async with connected(tmp_path / "m.db") as conn:
        with pytest.raises(sqlite3.Error):
            await migrate(conn, d)
        assert await applied(conn) == {1}
        tables = {
            r[0] for r in await conn.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        assert "good" in tables
        assert "half" not in tables
        assert not conn.in_transaction
