"""``python -m app keys create|list|revoke``: API keys from the command line.

It works on the data directory of a running server: it takes no lock of the directory, only
SQLite's own (WAL, waiting out a busy writer), applies the migrations when the database is new,
and the server notices the change within about a second (``KeyStore.watch``). With
``--kafka-bootstrap`` (or ``SLUICE_BACKEND=kafka``), on the keys of a Kafka cluster instead
(``__sluice_keys``), which every gateway of the cluster follows: the way to give a gateway on
an address other than loopback its first key.
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
        p.add_argument(
            "--kafka-bootstrap",
            help="host:port,... of a Kafka cluster: its keys, which its gateways serve "
            "(SLUICE_BACKEND=kafka with SLUICE_KAFKA_BOOTSTRAP)",
        )


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
        settings = Settings.from_env(
            data_dir=args.data_dir,
            kafka_bootstrap=args.kafka_bootstrap,
            backend="kafka" if args.kafka_bootstrap else None,
        )
    except SettingsError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return 2
    if settings.backend == "kafka":
        return _on_kafka(settings, args)
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


def _on_kafka(settings: Settings, args: argparse.Namespace) -> int:
    """The same three commands on the cluster's keys."""
    # imported here: the embedded server's command never loads the Kafka client
    from app.kafka.errors_map import from_protocol
    from app.kafka.keys import KafkaKeys, on_cluster
    from app.kafka.protocol.errors import ProtocolError

    async def create(keys: KafkaKeys) -> tuple[KeyRow, str]:
        return await keys.create(args.principal, args.description)

    async def listing(keys: KafkaKeys) -> list[KeyRow]:
        return sorted(keys.list(), key=lambda r: (r.created_ms, r.key_id))

    async def revoke(keys: KafkaKeys) -> None:
        await keys.revoke(args.key_id)

    try:
        try:
            if args.keys_command == "create":
                check_principal(args.principal)
                check_description(args.description)
                row, key = asyncio.run(on_cluster(settings, create))
                print(key, flush=True)
                print(
                    f"created key {row.key_id} for principal {row.principal!r} in the cluster; "
                    "it is shown only now: keep it secret",
                    file=sys.stderr,
                )
            elif args.keys_command == "list":
                print(_table(asyncio.run(on_cluster(settings, listing))))
            else:
                asyncio.run(on_cluster(settings, revoke))
                print(f"revoked key {args.key_id}", file=sys.stderr)
        except ProtocolError as exc:
            raise from_protocol(exc) from None
    except SluiceError as exc:
        print(f"sluice: {exc.message}", file=sys.stderr)
        return 2 if exc.code.status != 404 else 1
    return 0
