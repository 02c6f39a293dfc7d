"""The ``sluice`` command line against a real server process: every command in both output
formats, the exit codes scripts rely on, and ``share-groups --describe`` laid out column for
column as ``kafka-share-groups.sh`` lays it out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess, free_port

pytestmark = pytest.mark.slow
SLUICE = str(Path(sys.executable).with_name("sluice"))


def run(
    server_url: str, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "SLUICE_URL": server_url, **(env or {})}
    e.pop("SLUICE_API_KEY", None)
    return subprocess.run(
        [SLUICE, *args], input=stdin, capture_output=True, text=True, env=e, timeout=60
    )


def ok(server_url: str, *args: str, stdin: str = "") -> str:
    r = run(server_url, *args, stdin=stdin)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r.stdout


def test_topics_produce_consume_and_exit_codes(server: ServerProcess) -> None:
    url = server.url
    assert "created orders" in ok(
        url, "topics", "create", "orders", "--partitions", "2", "--config", "retention_ms=86400000"
    )
    listed = json.loads(ok(url, "--output", "json", "topics", "list"))
    assert listed == [{"name": "orders", "partitions": 2}]
    assert ok(url, "topics", "list").splitlines() == ["TOPIC   PARTITIONS", "orders  2"]
    assert "retention_ms=86400000" in ok(url, "topics", "describe", "orders")
    # exit codes: refused by the server 1, usage 2, unreachable 3
    again = run(url, "topics", "create", "orders")
    assert again.returncode == 1 and "TOPIC_ALREADY_EXISTS" in again.stderr
    assert run(url, "topics", "create", "x", "--config", "nope").returncode == 2
    assert run(url, "topics").returncode == 2
    assert run(f"http://127.0.0.1:{free_port()}", "topics", "list").returncode == 3
    produced = json.loads(
        ok(
            url,
            "--output",
            "json",
            "produce",
            "orders",
            "--key-separator",
            ":",
            stdin="k1:first\nk2:second\nk1:third\n",
        )
    )
    assert len(produced) == 3
    assert (
        run(url, "produce", "orders", "--key-separator", ":", stdin="no separator\n").returncode
        == 2
    )
    by_partition: dict[int, list[str]] = {}
    for p in (0, 1):
        lines = ok(url, "consume", "orders", "--partition", str(p), "--from-beginning")
        by_partition[p] = lines.splitlines()
    assert sorted(line for lines in by_partition.values() for line in lines) == [
        "k1\tfirst",
        "k1\tthird",
        "k2\tsecond",
    ]
    (k1_partition,) = [p for p, lines in by_partition.items() if "k1\tfirst" in lines]
    assert by_partition[k1_partition].index("k1\tfirst") < by_partition[k1_partition].index(
        "k1\tthird"
    )
    as_json = ok(
        url,
        "--output",
        "json",
        "consume",
        "orders",
        "--partition",
        str(k1_partition),
        "--offset",
        "0",
        "--max-records",
        "1",
    )
    assert json.loads(as_json)["value"] == "first"
    assert ok(url, "consume", "orders", "--partition", "0") == ""  # from the end: nothing yet
    ok(url, "topics", "delete", "orders")
    assert json.loads(ok(url, "--output", "json", "topics", "list")) == []


def _columns(line: str, widths: list[int]) -> list[str]:
    """Cut a line at Kafka's column widths (each column then one space)."""
    out, at = [], 0
    for w in widths:
        out.append(line[at : at + w])
        at += w + 1
    out.append(line[at:])
    return out


def test_share_groups_as_kafka_share_groups_prints_them(server: ServerProcess) -> None:
    url = server.url
    ok(url, "topics", "create", "jobs")
    ok(url, "produce", "jobs", stdin="".join(f"j{i}\n" for i in range(6)))
    httpx.patch(f"{url}/v1/share-groups/workers/config", json={"auto_offset_reset": "earliest"})
    consumed = ok(url, "consume", "jobs", "--group", "workers", "--max-records", "4")
    assert consumed.splitlines() == ["j0", "j1", "j2", "j3"]
    assert ok(url, "share-groups", "--list").splitlines() == ["workers"]
    # offsets (the default of --describe): GROUP, TOPIC (15 wide at least), PARTITION (10),
    # START-OFFSET (13), LAG; a newline before every row and one at the end
    out = ok(url, "share-groups", "--describe", "--group", "workers")
    assert out.startswith("\n") and out.endswith("\n")
    header, row = out.strip("\n").split("\n")
    assert _columns(header, [15, 15, 10, 13]) == [
        "GROUP".ljust(15),
        "TOPIC".ljust(15),
        "PARTITION".ljust(10),
        "START-OFFSET".ljust(13),
        "LAG",
    ]
    # the start offset the server describes (4 on the embedded engine; on Kafka the one it last
    # saved, which may trail the acknowledgements: docs/kafka.md#differences)
    (described,) = httpx.get(f"{url}/v1/share-groups/workers").json()["partitions"]
    assert _columns(row, [15, 15, 10, 13]) == [
        "workers".ljust(15),
        "jobs".ljust(15),
        "0".ljust(10),
        str(described["start_offset"]).ljust(13),
        "2",
    ]
    out = ok(url, "share-groups", "--describe", "--group", "workers", "--verbose")
    header = out.strip("\n").split("\n")[0]
    assert _columns(header, [15, 15, 10, 13, 13])[3:] == [
        "LEADER-EPOCH".ljust(13),
        "START-OFFSET".ljust(13),
        "LAG",
    ]
    # --state: GROUP, COORDINATOR (ID) (25 wide at least), STATE (15), #MEMBERS
    out = ok(url, "share-groups", "--describe", "--group", "workers", "--state")
    header, row = out.strip("\n").split("\n")
    coordinator = f"127.0.0.1:{server.port}  (0)"
    c = max(25, len(coordinator))
    assert _columns(header, [15, c, 15]) == [
        "GROUP".ljust(15),
        "COORDINATOR (ID)".ljust(c),
        "STATE".ljust(15),
        "#MEMBERS",
    ]
    assert _columns(row, [15, c, 15]) == [
        "workers".ljust(15),
        coordinator.ljust(c),
        "Empty".ljust(15),
        "0",
    ]
    # --members of a group with none
    out = ok(url, "share-groups", "--describe", "--group", "workers", "--members")
    assert out == "\nShare group 'workers' has no active members.\n"
    member = httpx.post(
        f"{url}/v1/share-groups/workers/heartbeat",
        json={"member_epoch": 0, "subscribed_topics": ["jobs"]},
    ).json()["member_id"]
    out = ok(url, "share-groups", "--describe", "--group", "workers", "--members")
    header, row = out.strip("\n").split("\n")
    m = max(15, len(member))
    assert _columns(header, [15, m, 15, 15, 12]) == [
        "GROUP".ljust(15),
        "CONSUMER-ID".ljust(m),
        "HOST".ljust(15),
        "CLIENT-ID".ljust(15),
        "#PARTITIONS".ljust(12),
        "ASSIGNMENT",
    ]
    assert _columns(row, [15, m, 15, 15, 12]) == [
        "workers".ljust(15),
        member.ljust(m),
        "-".ljust(15),
        "-".ljust(15),
        "1".ljust(12),
        "jobs:0",
    ]
    httpx.delete(f"{url}/v1/share-groups/workers/members/{member}")
    # reset: a dry run unless --execute
    dry = ok(
        url,
        "share-groups",
        "--reset-offsets",
        "--group",
        "workers",
        "--topic",
        "jobs",
        "--to-earliest",
    )
    assert dry.splitlines() == [
        "GROUP    TOPIC  PARTITION  NEW-OFFSET",
        "workers  jobs   0          0",
    ]
    state = httpx.get(f"{url}/v1/share-groups/workers").json()["partitions"][0]["start_offset"]
    assert state == described["start_offset"]  # the dry run moved nothing
    ok(
        url,
        "share-groups",
        "--reset-offsets",
        "--group",
        "workers",
        "--topic",
        "jobs",
        "--to-earliest",
        "--execute",
    )
    assert httpx.get(f"{url}/v1/share-groups/workers").json()["partitions"][0]["start_offset"] == 0
    reset: Any = json.loads(
        ok(
            url,
            "--output",
            "json",
            "share-groups",
            "--reset-offsets",
            "--group",
            "workers",
            "--topic",
            "jobs:0",
            "--to-latest",
        )
    )
    assert reset["dry_run"] is True and reset["topics"][0]["partitions"][0]["start_offset"] == 6
    assert (
        run(
            url, "share-groups", "--reset-offsets", "--group", "workers", "--topic", "jobs"
        ).returncode
        == 2
    )
    assert run(url, "share-groups", "--describe").returncode == 2  # --group is required
    out = ok(url, "share-groups", "--delete-offsets", "--group", "workers", "--topic", "jobs")
    assert out.split() == ["TOPIC", "STATUS", "jobs", "Successful"]
    assert "was successful" in ok(url, "share-groups", "--delete", "--group", "workers")
    gone = run(url, "share-groups", "--describe", "--group", "workers")
    assert gone.returncode == 1 and "GROUP_ID_NOT_FOUND" in gone.stderr


def test_groups_and_transactions(server: ServerProcess) -> None:
    url = server.url
    ok(url, "topics", "create", "t")
    httpx.post(
        f"{url}/v1/groups/etl/offsets",
        json={"offsets": [{"topic": "t", "partition": 0, "offset": 0}]},
    ).raise_for_status()
    assert ok(url, "groups", "--list").splitlines() == ["GROUP  STATE  MEMBERS", "etl    Empty  0"]
    described = json.loads(ok(url, "--output", "json", "groups", "--describe", "--group", "etl"))
    assert described["offsets"][0]["offset"] == 0
    assert "CURRENT-OFFSET" in ok(url, "groups", "--describe", "--group", "etl")
    ok(url, "groups", "--delete", "--group", "etl")
    assert json.loads(ok(url, "--output", "json", "groups", "--list")) == []
    # transactional ids an earlier test left (a gateway's cluster keeps them: Kafka deletes
    # none, it lets them expire); none on a new embedded server
    earlier = [
        t["transactional_id"] for t in httpx.get(f"{url}/v1/transactions").json()["transactions"]
    ]
    httpx.post(f"{url}/v1/producers", json={"transactional_id": "tx-1"}).raise_for_status()
    listed = ok(url, "transactions", "--list").splitlines()
    assert listed[0].split() == ["TRANSACTIONAL-ID", "PRODUCER-ID", "EPOCH", "STATE", "PARTITIONS"]
    assert [row.split()[0] for row in listed[1:]] == sorted({*earlier, "tx-1"})
    assert "state: Empty" in ok(url, "transactions", "--describe", "--transactional-id", "tx-1")
    assert run(url, "transactions", "--describe").returncode == 2


def test_global_options_work_before_and_after_the_command(
    server_factory: Callable[..., ServerProcess],
) -> None:
    keyed = server_factory(SLUICE_SUPER_USERS="admin")
    keyed.start()
    # the first key, created while the server still serves everyone (on either engine: a
    # gateway keeps its keys in the cluster, not in a data directory)
    created = httpx.post(f"{keyed.url}/v1/admin/keys", json={"principal": "admin"})
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    nowhere = f"http://127.0.0.1:{free_port()}"  # SLUICE_URL: only --url finds the server
    auth = ["--url", keyed.url, "--api-key", key]
    ok(keyed.url, "--api-key", key, "topics", "create", "orders", "--partitions", "2")
    for argv in (
        [*auth, "--output", "json", "topics", "list"],
        ["topics", *auth, "--output", "json", "list"],
        ["topics", "list", *auth, "--output", "json"],
        ["topics", "list", "--output", "json", *auth],
    ):
        r = run(nowhere, *argv)
        assert r.returncode == 0, (argv, r.stderr)
        assert json.loads(r.stdout) == [{"name": "orders", "partitions": 2}], argv
    # without the key the keyed server refuses; without --url the client finds nothing
    assert run(keyed.url, "topics", "list").returncode == 1
    assert run(nowhere, "topics", "list", "--api-key", key).returncode == 3
    ok(keyed.url, "produce", "orders", "--partition", "1", "--api-key", key, stdin="o-1\n")
    for argv in (
        ["consume", "orders", "--from-beginning", "--partition", "1", *auth, "--output", "json"],
        ["consume", *auth, "orders", "--output", "json", "--from-beginning", "--partition", "1"],
    ):
        r = run(nowhere, *argv)
        assert r.returncode == 0, (argv, r.stderr)
        assert json.loads(r.stdout)["value"] == "o-1", argv


def test_share_consume_from_beginning_takes_what_was_produced_before(server: ServerProcess) -> None:
    url = server.url
    ok(url, "topics", "create", "jobs", "--partitions", "2")
    ok(url, "produce", "jobs", "--key-separator", ":", stdin="a:j1\nb:j2\na:j3\n")
    # a new group starts at the end, as Kafka's share groups do: nothing produced before
    assert ok(url, "consume", "jobs", "--group", "late") == ""
    out = ok(url, "consume", "jobs", "--group", "workers", "--from-beginning")
    assert sorted(out.splitlines()) == ["a\tj1", "a\tj3", "b\tj2"]
    group = httpx.get(f"{url}/v1/share-groups/workers").json()
    assert [p["start_offset"] for p in group["partitions"]] != [0, 0]  # all accepted
    assert sum(p["lag"] for p in group["partitions"]) == 0
    # a share group reads every partition from where it stands: no partition, no offset
    for flag in (["--partition", "1"], ["--offset", "0"]):
        r = run(url, "consume", "jobs", "--group", "workers", *flag)
        assert r.returncode == 2 and "--group" in r.stderr, (flag, r.stderr)
