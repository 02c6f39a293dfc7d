"""``sluice``: the command line of the Python client.

    sluice topics list | create NAME [--partitions N] [--config K=V …]
    sluice topics describe NAME | delete NAME
    sluice produce TOPIC [--key-separator SEP] [--partition P]        (lines from stdin)
    sluice consume TOPIC [--partition P] [--offset N | --from-beginning] [--follow]
                         [--max-records N]
    sluice consume TOPIC --group G [--from-beginning] [--ack accept|release|reject] [--follow]
                         [--max-records N]
    sluice share-groups --list
                        | --describe --group G [--members | --state | --offsets] [--verbose]
                        | --reset-offsets --group G --topic T (--to-earliest | --to-latest
                          | --to-datetime ISO | --to-offset N) [--dry-run | --execute]
                        | --delete --group G | --delete-offsets --group G --topic T
    sluice groups --list | --describe --group G | --delete --group G
    sluice transactions --list [--state S] | --describe --transactional-id T

The server from ``--url`` or ``SLUICE_URL`` (default http://127.0.0.1:8080), the key from
``--api-key`` or ``SLUICE_API_KEY``; these and ``--output`` go anywhere on the line. Tables for
people by default, ``--output json`` for scripts (one JSON document; records one JSON object per
line). ``share-groups`` prints what ``kafka-share-groups.sh`` prints for the same state, column
for column.

Exit codes: 0 done; 1 the server refused (its error code is printed); 2 a usage error;
3 the server could not be reached.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from sluice._core import Call, as_object
from sluice.client import Sluice
from sluice.errors import SluiceError

OK, REFUSED, USAGE, UNREACHABLE = 0, 1, 2, 3
MISSING = "-"


class Usage(Exception):
    """A usage error (exit code 2)."""


DESCRIPTION = "The command line of Sluice: topics, produce and consume, share groups, consumer \
groups and transactions."
EPILOG = """\
The server comes from --url or SLUICE_URL (default http://127.0.0.1:8080), the key from --api-key \
or SLUICE_API_KEY; --url, --api-key and --output may stand anywhere on the line. Exit codes: 0 \
done, 1 refused by the server (its error code is printed), 2 a usage error, 3 the server could \
not be reached."""


def _global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """--url, --api-key and --output, on the top parser and on every command's: they may come
    before or after the command and its arguments, as kubectl and Kafka's tools take them. A
    command's copy leaves the value alone unless given (SUPPRESS), so one given before the
    command is not reset by the command's default."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--url",
        default=default(None),
        help="the server (default: SLUICE_URL, else http://127.0.0.1:8080)",
    )
    parser.add_argument(
        "--api-key", default=default(None), help="an API key (default: SLUICE_API_KEY)"
    )
    parser.add_argument(
        "--output",
        choices=("text", "json"),
        default=default("text"),
        help="text for people (default), json for scripts",
    )


def _command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, **kwargs)
    _global_options(parser, top=False)
    return parser


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sluice", description=DESCRIPTION, epilog=EPILOG)
    _global_options(p, top=True)
    sub = p.add_subparsers(dest="command", required=True)

    t = _command(sub, "topics", help="create, list, describe and delete topics")
    tsub = t.add_subparsers(dest="action", required=True)
    _command(tsub, "list", help="the topics and their partition counts")
    c = _command(tsub, "create", help="create a topic")
    c.add_argument("name")
    c.add_argument("--partitions", type=int, default=1)
    c.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    _command(tsub, "describe", help="a topic's partitions, offsets and config").add_argument("name")
    _command(tsub, "delete", help="delete a topic").add_argument("name")

    pr = _command(sub, "produce", help="produce the lines of stdin, one record each")
    pr.add_argument("topic")
    pr.add_argument("--key-separator", help="a line is KEY<sep>VALUE")
    pr.add_argument("--partition", type=int)

    co = _command(
        sub,
        "consume",
        help="print records (by offset, or in a share group)",
        description="Print the records of a partition from an offset (by default from its end), "
        "or, with --group, take records of every partition in a share group and acknowledge "
        "them. A keyed record prints as KEY<tab>VALUE.",
    )
    co.add_argument("topic")
    co.add_argument(
        "--partition", type=int, help="the partition to read (default 0; not in a group)"
    )
    start = co.add_mutually_exclusive_group()
    start.add_argument("--offset", type=int)
    start.add_argument(
        "--from-beginning",
        action="store_true",
        help="from the first record; with --group, the group starts at the earliest record "
        "on the partitions it has not started on yet (its auto_offset_reset becomes earliest)",
    )
    co.add_argument("--group", help="consume in this share group")
    co.add_argument("--ack", choices=("accept", "release", "reject"), default="accept")
    co.add_argument("--follow", action="store_true", help="wait for new records, like tail -f")
    co.add_argument("--max-records", type=int)

    sg = _command(sub, "share-groups", help="share groups, as kafka-share-groups.sh")
    mode = sg.add_mutually_exclusive_group(required=True)
    for flag in ("--list", "--describe", "--reset-offsets", "--delete", "--delete-offsets"):
        mode.add_argument(flag, action="store_true")
    sg.add_argument("--group")
    sg.add_argument("--topic")
    what = sg.add_mutually_exclusive_group()
    for flag in ("--members", "--state", "--offsets"):
        what.add_argument(flag, action="store_true")
    sg.add_argument("--verbose", action="store_true")
    to = sg.add_mutually_exclusive_group()
    to.add_argument("--to-earliest", action="store_true")
    to.add_argument("--to-latest", action="store_true")
    to.add_argument("--to-datetime", metavar="YYYY-MM-DDTHH:mm:SS.sss")
    to.add_argument("--to-offset", type=int)
    run = sg.add_mutually_exclusive_group()
    run.add_argument("--dry-run", action="store_true")
    run.add_argument("--execute", action="store_true")

    g = _command(sub, "groups", help="consumer groups")
    gmode = g.add_mutually_exclusive_group(required=True)
    for flag in ("--list", "--describe", "--delete"):
        gmode.add_argument(flag, action="store_true")
    g.add_argument("--group")

    x = _command(sub, "transactions", help="transactions")
    xmode = x.add_mutually_exclusive_group(required=True)
    xmode.add_argument("--list", action="store_true")
    xmode.add_argument("--describe", action="store_true")
    x.add_argument("--state")
    x.add_argument("--transactional-id")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with Sluice(args.url, api_key=args.api_key, retries=2) as client:
            return int(COMMANDS[args.command](client, args) or OK)
    except Usage as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return USAGE
    except SluiceError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return REFUSED
    except httpx.TransportError as exc:
        print(f"sluice: cannot reach the server: {exc}", file=sys.stderr)
        return UNREACHABLE
    except KeyboardInterrupt:
        return OK


# -- output -----------------------------------------------------------------------------------


def _json(value: Any) -> None:
    print(json.dumps(value, indent=2))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    for r in [list(headers), *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def _need(args: argparse.Namespace, *names: str) -> None:
    for name in names:
        if getattr(args, name.replace("-", "_")) in (None, False):
            raise Usage(f"--{name} is required here")


# -- commands ---------------------------------------------------------------------------------


def topics(client: Sluice, args: argparse.Namespace) -> int:
    admin = client.admin
    if args.action == "list":
        found = admin.list_topics()
        if args.output == "json":
            _json(found)
        else:
            _table(("TOPIC", "PARTITIONS"), [(t["name"], t["partitions"]) for t in found])
    elif args.action == "create":
        config: dict[str, int] = {}
        for item in args.config:
            key, sep, value = item.partition("=")
            if not sep or not value.lstrip("-").isdigit():
                raise Usage(f"--config takes KEY=INTEGER, not {item!r}")
            config[key] = int(value)
        created = admin.create_topic(args.name, args.partitions, config or None)
        _json(created) if args.output == "json" else print(f"created {created['name']}")
    elif args.action == "describe":
        d = admin.describe_topic(args.name)
        if args.output == "json":
            _json(d)
        else:
            _table(
                ("TOPIC", "PARTITION", "LOG-START", "HIGH-WATERMARK", "LAST-STABLE"),
                [
                    (
                        d["name"],
                        p["partition"],
                        p["log_start_offset"],
                        p["high_watermark"],
                        p["last_stable_offset"],
                    )
                    for p in d["partitions"]
                ],
            )
            for key, value in sorted(d["config"].items()):
                print(f"{key}={value}")
    else:
        admin.delete_topic(args.name)
        if args.output == "text":
            print(f"deleted {args.name}")
    return OK


def produce(client: Sluice, args: argparse.Namespace) -> int:
    count = 0
    with client.producer(linger=0.01) as producer:
        futures = []
        for raw in sys.stdin:
            line = raw.rstrip("\n")
            key: str | None = None
            if args.key_separator is not None:
                key, sep, value = line.partition(args.key_separator)
                if not sep:
                    raise Usage(f"line {count + 1} has no key separator {args.key_separator!r}")
                line = value
            futures.append(producer.send(args.topic, line, key=key, partition=args.partition))
            count += 1
        producer.flush()
    metas = [f.result() for f in futures]
    if args.output == "json":
        _json([{"partition": m.partition, "offset": m.offset} for m in metas])
    else:
        records = "record" if count == 1 else "records"
        print(f"produced {count} {records} to {args.topic}", file=sys.stderr)
    return OK


def _text(value: str | None, encoding: str | None) -> str | None:
    if value is None or encoding != "base64":
        return value
    return base64.b64decode(value).decode(errors="replace")


def consume(client: Sluice, args: argparse.Namespace) -> int:
    if args.group is not None:
        return _consume_shared(client, args)
    partition = 0 if args.partition is None else args.partition
    offset = 0 if args.from_beginning else args.offset
    if offset is None:  # the end, as kafka-console-consumer starts by default
        offset = client.admin.describe_topic(args.topic)["partitions"][partition]["high_watermark"]
    seen = 0
    path = f"/v1/topics/{args.topic}/partitions/{partition}/records"
    while args.max_records is None or seen < args.max_records:
        params = {"offset": offset, "max_wait_ms": 1000 if args.follow else 0}
        body = client.run(Call("GET", path, as_object, params=params, safe=True))
        for rec in body["records"]:
            if args.max_records is not None and seen >= args.max_records:
                break
            _print_record(rec, args.output)
            seen += 1
        offset = body["next_offset"]
        if not body["records"] and not args.follow:
            break
    return OK


def _print_record(rec: dict[str, Any], output: str) -> None:
    if output == "json":
        print(json.dumps(rec))
    else:
        value = _text(rec.get("value"), rec.get("encoding"))
        key = _text(rec.get("key"), rec.get("encoding"))
        print(value if key is None else f"{key}\t{value}")


def _consume_shared(client: Sluice, args: argparse.Namespace) -> int:
    # a share group takes records of every partition from where the group stands: a partition
    # or an offset would be silently ignored
    for flag, value in (("--partition", args.partition), ("--offset", args.offset)):
        if value is not None:
            raise Usage(f"{flag} does not go with --group (a share group reads every partition)")
    if args.from_beginning:
        # where a share group starts on a partition is the group's config: set it before joining
        client.admin.alter_share_group_config(args.group, {"auto_offset_reset": "earliest"})
    seen = 0
    with client.share_consumer(args.group, acknowledgement_mode="explicit") as consumer:
        consumer.subscribe([args.topic])
        while args.max_records is None or seen < args.max_records:
            records = consumer.poll(1.0)
            for r in records:
                if args.max_records is not None and seen >= args.max_records:
                    consumer.acknowledge(r, "release")  # not shown: someone else's
                    continue
                if args.output == "json":
                    print(
                        json.dumps(
                            {
                                "topic": r.topic,
                                "partition": r.partition,
                                "offset": r.offset,
                                "delivery_count": r.delivery_count,
                                "key": None if r.key is None else r.key.decode(errors="replace"),
                                "value": r.text(),
                            }
                        )
                    )
                else:
                    key = None if r.key is None else r.key.decode(errors="replace")
                    value = None if r.value is None else r.value.decode(errors="replace")
                    print(value if key is None else f"{key}\t{value}")
                consumer.acknowledge(r, args.ack)
                seen += 1
            consumer.commit_sync()
            if not records and not args.follow:
                break
    return OK


def _coordinator(client: Sluice) -> str:
    url = urlsplit(client.settings.url)
    port = url.port or (443 if url.scheme == "https" else 80)
    return f"{url.hostname}:{port}  (0)"


def share_groups(client: Sluice, args: argparse.Namespace) -> int:
    admin = client.admin
    if args.list:
        groups = admin.list_share_groups()
        if args.output == "json":
            _json(groups)
        else:
            for g in groups:
                print(g["group_id"])
        return OK
    _need(args, "group")
    if args.describe:
        d = admin.describe_share_group(args.group)
        if args.output == "json":
            _json(d)
        elif args.members:
            _print_members(args.group, d, args.verbose)
        elif args.state:
            _print_state(args.group, d, _coordinator(client), args.verbose)
        else:
            _print_offsets(args.group, d, args.verbose)
        return OK
    if args.reset_offsets:
        _need(args, "topic")
        if args.to_earliest:
            to: Any = "earliest"
        elif args.to_latest:
            to = "latest"
        elif args.to_offset is not None:
            to = {"offset": args.to_offset}
        elif args.to_datetime is not None:
            try:
                when = datetime.fromisoformat(args.to_datetime)
            except ValueError:
                raise Usage(
                    f"--to-datetime {args.to_datetime!r} is not an ISO date and time"
                ) from None
            to = {"timestamp": int(when.timestamp() * 1000)}
        else:
            raise Usage(
                "--reset-offsets takes --to-earliest, --to-latest, --to-datetime or --to-offset"
            )
        dry_run = not args.execute  # as kafka-share-groups.sh: a dry run unless --execute
        topic, _, parts = args.topic.partition(":")
        partitions = [int(p) for p in parts.split(",")] if parts else None
        answer = admin.reset_share_group_offsets(
            args.group, [{"topic": topic, "partitions": partitions, "to": to}], dry_run=dry_run
        )
        if args.output == "json":
            _json(answer)
        else:
            _table(
                ("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"),
                [
                    (args.group, t["topic"], p["partition"], p["start_offset"])
                    for t in answer["topics"]
                    for p in t["partitions"]
                ],
            )
        return OK
    if args.delete_offsets:
        _need(args, "topic")
        admin.delete_share_group_offsets(args.group, args.topic)
        if args.output == "text":
            _kafka_rows("\n%-15s %s", [("TOPIC", "STATUS"), (args.topic, "Successful")])
        return OK
    admin.delete_share_group(args.group)
    if args.output == "text":
        print(f"Deletion of requested share groups ('{args.group}') was successful.")
    return OK


def _kafka_rows(fmt: str, rows: Sequence[Sequence[Any]]) -> None:
    """Rows as kafka-share-groups.sh prints them: each row starts a new line; one at the end."""
    for row in rows:
        sys.stdout.write(fmt % tuple(row))
    sys.stdout.write("\n")


def _print_offsets(group: str, d: dict[str, Any], verbose: bool) -> None:
    parts = sorted(d["partitions"], key=lambda p: (p["topic"], p["partition"]))
    if not parts:
        print(f"\nShare group '{group}' has no offset information.")
        return
    g = max(15, len(group))
    t = max(15, *(len(p["topic"]) for p in parts))
    rows: list[tuple[Any, ...]]
    if verbose:
        fmt = f"\n%-{g}s %-{t}s %-10s %-13s %-13s %s"
        rows = [("GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "START-OFFSET", "LAG")]
        rows += [
            (group, p["topic"], p["partition"], MISSING, p["start_offset"], _lag(p)) for p in parts
        ]
    else:
        fmt = f"\n%-{g}s %-{t}s %-10s %-13s %s"
        rows = [("GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG")]
        rows += [(group, p["topic"], p["partition"], p["start_offset"], _lag(p)) for p in parts]
    _kafka_rows(fmt, rows)


def _lag(partition: dict[str, Any]) -> Any:
    """A share partition's lag, or ``-`` where the server does not know it (a gateway on Kafka
    answers null when Kafka gives none)."""
    return MISSING if partition["lag"] is None else partition["lag"]


def _print_state(group: str, d: dict[str, Any], coordinator: str, verbose: bool) -> None:
    g = max(15, len(group))
    c = max(25, len(coordinator))
    state, members = d["state"], len(d["members"])
    rows: list[tuple[Any, ...]]
    if verbose:
        fmt = f"\n%-{g}s %-{c}s %-15s %-12s %-17s %s"
        rows = [
            ("GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"),
            (group, coordinator, state, d["group_epoch"], d["group_epoch"], members),
        ]
    else:
        fmt = f"\n%-{g}s %-{c}s %-15s %s"
        rows = [
            ("GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS"),
            (group, coordinator, state, members),
        ]
    _kafka_rows(fmt, rows)


def _assignment(member: dict[str, Any]) -> str:
    return ";".join(
        sorted(
            f"{a['topic']}:{','.join(str(p) for p in sorted(a['partitions']))}"
            for a in member["assignment"]
        )
    )


def _print_members(group: str, d: dict[str, Any], verbose: bool) -> None:
    members = sorted(d["members"], key=lambda m: m["member_id"])
    if not members:
        print(f"\nShare group '{group}' has no active members.")
        return
    g = max(15, len(group))
    m = max(15, *(len(x["member_id"]) for x in members))
    host = client_id = 15

    def count(x: dict[str, Any]) -> int:
        return sum(len(a["partitions"]) for a in x["assignment"])

    rows: list[tuple[Any, ...]]
    if verbose:
        fmt = f"\n%-{g}s %-{m}s %-{host}s %-{client_id}s %-12s %-13s %s"
        rows = [
            (
                "GROUP",
                "CONSUMER-ID",
                "HOST",
                "CLIENT-ID",
                "#PARTITIONS",
                "MEMBER-EPOCH",
                "ASSIGNMENT",
            )
        ]
        rows += [
            (group, x["member_id"], MISSING, MISSING, count(x), x["member_epoch"], _assignment(x))
            for x in members
        ]
    else:
        fmt = f"\n%-{g}s %-{m}s %-{host}s %-{client_id}s %-12s %s"
        rows = [("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT")]
        rows += [
            (group, x["member_id"], MISSING, MISSING, count(x), _assignment(x)) for x in members
        ]
    _kafka_rows(fmt, rows)


def groups(client: Sluice, args: argparse.Namespace) -> int:
    admin = client.admin
    if args.list:
        found = admin.list_groups()
        if args.output == "json":
            _json(found)
        else:
            _table(
                ("GROUP", "STATE", "MEMBERS"),
                [(g["group_id"], g["state"], g["members"]) for g in found],
            )
        return OK
    _need(args, "group")
    if args.describe:
        d = admin.describe_group(args.group)
        if args.output == "json":
            _json(d)
        else:
            _table(
                ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LAG"),
                [
                    (args.group, o["topic"], o["partition"], o["offset"], o["lag"])
                    for o in d["offsets"]
                ],
            )
        return OK
    admin.delete_group(args.group)
    if args.output == "text":
        print(f"deleted {args.group}")
    return OK


def transactions(client: Sluice, args: argparse.Namespace) -> int:
    admin = client.admin
    if args.list:
        found = admin.list_transactions(args.state)
        if args.output == "json":
            _json(found)
        else:
            _table(
                ("TRANSACTIONAL-ID", "PRODUCER-ID", "EPOCH", "STATE", "PARTITIONS"),
                [
                    (
                        t["transactional_id"],
                        t["producer_id"],
                        t["producer_epoch"],
                        t["state"],
                        len(t["partitions"]),
                    )
                    for t in found
                ],
            )
        return OK
    _need(args, "transactional-id")
    d = admin.describe_transaction(args.transactional_id)
    if args.output == "json":
        _json(d)
    else:
        for key in (
            "transactional_id",
            "producer_id",
            "producer_epoch",
            "state",
            "timeout_ms",
            "start_ms",
        ):
            print(f"{key}: {d[key]}")
        for p in d["partitions"]:
            print(f"partition: {p['topic']}-{p['partition']}")
    return OK


COMMANDS = {
    "topics": topics,
    "produce": produce,
    "consume": consume,
    "share-groups": share_groups,
    "groups": groups,
    "transactions": transactions,
}


if __name__ == "__main__":
    sys.exit(main())
