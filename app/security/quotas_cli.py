"""``python -m app quotas set|list|remove``: per-principal byte-rate quotas in a data directory.

Works whether or not a server runs on the directory: it changes only the metadata database
(SQLite allows the second writer), and a running server applies the change within a second.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from app.clock import SystemClock
from app.config import Settings, SettingsError
from app.datadir import DataDir
from app.errors import SluiceError
from app.metadata.db import Database
from app.metadata.migrate import migrate
from app.security.quota_admin import QuotaAdmin
from app.security.quota_store import QuotaStore
from app.security.quotas import Override, Quotas


def register(sub: Any) -> None:
    """Register ``quotas`` on the subcommands of ``python -m app``."""
    p = sub.add_parser("quotas", help="per-principal byte-rate quotas")
    actions = p.add_subparsers(dest="action", required=True)
    set_ = actions.add_parser(
        "set", help="give a principal its own quotas (a kind left out takes the default)"
    )
    set_.add_argument("--principal", required=True)
    set_.add_argument("--producer-byte-rate", type=int, metavar="BYTES_PER_S")
    set_.add_argument("--consumer-byte-rate", type=int, metavar="BYTES_PER_S")
    actions.add_parser("list", help="the principals with their own quotas")
    remove = actions.add_parser("remove", help="back to the defaults")
    remove.add_argument("--principal", required=True)
    for action in (set_, actions.choices["list"], remove):
        action.add_argument("--data-dir", help="default: SLUICE_DATA_DIR or ./data")


async def _run(args: argparse.Namespace, path: str) -> str:
    db = Database(path)
    await db.open()
    try:
        await migrate(db.writer)
        admin = QuotaAdmin(Quotas(SystemClock()), QuotaStore(db), SystemClock())
        await admin.load()
        if args.action == "set":
            override = Override(args.producer_byte_rate, args.consumer_byte_rate)
            row = await admin.set(args.principal, override)
            return f"{row.principal}: {_rates(row.override)}"
        if args.action == "remove":
            await admin.remove(args.principal)
            return f"{args.principal}: removed (the defaults apply)"
        lines = [f"{r.principal}\t{_rates(r.override)}" for r in admin.list()]
        return "\n".join(lines) if lines else "no principal has quotas of its own"
    finally:
        await db.close()


def _rates(o: Override) -> str:
    def show(rate: int | None) -> str:
        return "default" if rate is None else f"{rate} bytes/s"

    return (
        f"producer_byte_rate {show(o.producer_byte_rate)}, "
        f"consumer_byte_rate {show(o.consumer_byte_rate)}"
    )


def main(args: argparse.Namespace) -> int:
    try:
        data = DataDir(Settings.from_env(data_dir=args.data_dir).data_dir)
    except SettingsError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return 2
    try:
        data.create()
        print(asyncio.run(_run(args, data.metadata)))
    except SluiceError as exc:
        print(f"sluice: {exc.message}", file=sys.stderr)
        return 1
    return 0
