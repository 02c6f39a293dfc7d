"""``python -m app acls add|list|remove``: ACL bindings from the command line.

It writes the metadata database of ``--data-dir`` directly (creating and migrating it when the
server never ran there), so it works whether the server runs or not: a running server sees the
change within about a second (``app.security.acls.AclStore.run``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import time
from typing import Any

from app.config import Settings, SettingsError
from app.datadir import DataDir
from app.errors import SluiceError
from app.metadata.db import Database
from app.metadata.migrate import migrate
from app.security import acls


def register(sub: Any) -> None:
    """Add the ``acls`` command to the subparsers of ``python -m app``."""
    p = sub.add_parser("acls", help="add, list or remove ACL bindings")
    verbs = p.add_subparsers(dest="verb", required=True)
    for verb, text in (
        ("add", "add one binding"),
        ("list", "list the bindings that match the flags given"),
        ("remove", "remove the bindings that match the flags given (at least one flag)"),
    ):
        v = verbs.add_parser(verb, help=text, description=text)
        v.add_argument("--data-dir", help="the server's data directory (default: SLUICE_DATA_DIR)")
        v.add_argument("--principal", help="a principal, or * for every principal")
        resource = v.add_mutually_exclusive_group(required=verb == "add")
        resource.add_argument("--topic", metavar="NAME")
        resource.add_argument("--group", metavar="NAME")
        resource.add_argument("--transactional-id", metavar="NAME")
        resource.add_argument("--cluster", action="store_true")
        v.add_argument(
            "--prefixed", action="store_true", help="the name is a prefix (PREFIXED pattern)"
        )
        v.add_argument(
            "--operation",
            type=str.upper,
            required=verb == "add",
            choices=[o.value for o in acls.Operation],
        )
        permission = v.add_mutually_exclusive_group(required=verb == "add")
        permission.add_argument("--allow", action="store_true")
        permission.add_argument("--deny", action="store_true")


def _resource(args: argparse.Namespace) -> tuple[str | None, str | None]:
    if args.topic is not None:
        return "TOPIC", args.topic
    if args.group is not None:
        return "GROUP", args.group
    if args.transactional_id is not None:
        return "TRANSACTIONAL_ID", args.transactional_id
    if args.cluster:
        return "CLUSTER", acls.CLUSTER_NAME
    return None, None


def _permission(args: argparse.Namespace) -> str | None:
    return "ALLOW" if args.allow else "DENY" if args.deny else None


def _show(b: acls.AclBinding) -> str:
    return (
        f"{b.permission.value:<5} {b.principal} {b.operation.value} "
        f"{b.resource_type.value} {b.pattern_type.value} {b.resource_name}"
    )


async def _run(path: str, args: argparse.Namespace) -> int:
    rtype, name = _resource(args)
    db = Database(path)
    await db.open()
    try:
        await migrate(db.writer)
        if args.verb == "add":
            b = acls.binding(
                args.principal,
                rtype,
                name,
                args.operation,
                _permission(args),
                "PREFIXED" if args.prefixed else None,
            )
            created = await db.run(
                functools.partial(acls.insert, b=b, created_ms=int(time.time() * 1000))
            )
            print(("added " if created else "already present ") + _show(b))
            return 0
        f = acls.acl_filter(
            args.principal,
            rtype,
            name if rtype != "CLUSTER" else None,
            ("PREFIXED" if args.prefixed else "LITERAL") if name is not None else None,
            args.operation,
            _permission(args),
        )
        if args.verb == "list":
            rows = await db.reader.fetchall(acls.SELECT_ALL)
            for b in (acls.from_row(r) for r in rows):
                if f.matches(b):
                    print(_show(b))
            return 0
        if f.empty:
            print("sluice: acls remove needs at least one flag to match", file=sys.stderr)
            return 2
        for b in await db.run(functools.partial(acls.delete, f=f)):
            print("removed " + _show(b))
        return 0
    finally:
        await db.close()


def main(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env(data_dir=args.data_dir)
    except SettingsError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return 2
    data = DataDir(settings.data_dir)
    data.create()
    try:
        return asyncio.run(_run(data.metadata, args))
    except SluiceError as exc:
        print(f"sluice: {exc.message}", file=sys.stderr)
        return 2
