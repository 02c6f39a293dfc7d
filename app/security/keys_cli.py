"""``python -m app keys create|list|revoke``: API keys from the command line.

It works on the data directory of a running server: it takes no lock of the directory, only
SQLite's own (WAL, waiting out a busy writer), applies the migrations when the database is new,
and the server notices the change within about a second (``KeyStore.watch``).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from app.config import Settings, SettingsError
from app.datadir import DataDir
from app.errors import SluiceError
from app.metadata.db import Database
from app.metadata.migrate import migrate
from app.security.keys import (
    KeyRow,
    check_description,
    check_principal,
    insert_key,
    revoke_key,
    select_keys,
)

T = TypeVar("T")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = sub.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="keys_command", required=True)
    create = actions.add_parser(
        "create", help="create a key; prints it once, alone on a line, on stdout"
    )
    create.add_argument("--principal", required=True, help="who the key is (e.g. alice)")
    create.add_argument("--description", default="", help="a note kept with the key")
    listing = actions.add_parser("list", help="list keys (never their secrets)")
    revoke = actions.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    for p in (create, listing, revoke):
        p.add_argument("--data-dir", help="the server's data directory (SLUICE_DATA_DIR)")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


async def _on_database(path: str, fn: Callable[[sqlite3.Connection], T]) -> T:
    db = Database(path)
    await db.open()
    try:
        await migrate(db.writer)
        return await db.run(fn)
    finally:
        await db.close()


def _table(rows: list[KeyRow]) -> str:
    lines = [("KEY ID", "PRINCIPAL", "CREATED (UTC)", "REVOKED (UTC)", "DESCRIPTION")]
    lines += [
        (r.key_id, r.principal, _when(r.created_ms), _when(r.revoked_ms), r.description)
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line[:4], widths, strict=True)) + "  " + line[4]
        for line in lines
    ).rstrip()


def main(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env(data_dir=args.data_dir)
    except SettingsError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return 2
    data = DataDir(settings.data_dir)
    data.create()
    path = data.metadata
    try:
        if args.keys_command == "create":
            principal = check_principal(args.principal)
            description = check_description(args.description)
            row, key = asyncio.run(
                _on_database(path, lambda c: insert_key(c, principal, description, _now_ms()))
            )
            print(key, flush=True)
            print(
                f"created key {row.key_id} for principal {row.principal!r}; it is shown only "
                "now: keep it secret",
                file=sys.stderr,
            )
        elif args.keys_command == "list":
            print(_table(asyncio.run(_on_database(path, select_keys))))
        else:
            key_id = args.key_id
            if not asyncio.run(_on_database(path, lambda c: revoke_key(c, key_id, _now_ms()))):
                print(f"sluice: no API key {key_id!r}", file=sys.stderr)
                return 1
            print(f"revoked key {key_id}", file=sys.stderr)
    except SluiceError as exc:
        print(f"sluice: {exc.message}", file=sys.stderr)
        return 2
    return 0
