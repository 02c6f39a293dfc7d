"""Hostile names: invalid UTF-8 (percent-encoded and raw), NUL and control characters, very
long names, and path traversal, in every path segment that names a topic, a group or a
transactional id (taken from the server's own OpenAPI document, so a new endpoint is covered),
in query strings and in JSON bodies, and in the dashboard's static route. Each answer is a 400
or 404 with a stable code, never a 500 and never a success; no file appears outside the data
directory and no topic or group is created."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.wire.batches import REQUEST_MEDIA_TYPE as BATCH_TYPE
from app.errors import ErrorCode
from tests.conftest import ServerProcess
from tests.e2e.hostile.helpers import (
    Answer,
    end_server,
    exchange,
    files_under,
    healthy,
    request,
    start_server,
)

pytestmark = pytest.mark.slow

CODES = {c.name for c in ErrorCode}

# as they go on the wire: percent-encoded where a raw byte would not be HTTP
HOSTILE = {
    "..": "..",
    ".": ".",
    "../x": "../x",
    "..%2f": "..%2f",
    "%2e%2e%2f": "%2e%2e%2f",
    "%2e%2e": "%2e%2e",
    "%2e": "%2e",
    "..%2f..%2f..%2fescaped": "..%2f..%2f..%2fescaped",
    "..%5c..%5cescaped": "..%5c..%5cescaped",
    "backslashes": "..\\..\\escaped",
    "absolute": "%2ftmp%2fescaped",
    "%ff%fe": "%ff%fe",
    "overlong dots": "%c0%ae%c0%ae%c0%af",
    "a lone surrogate": "%ed%a0%80",
    "NUL": "a%00b",
    "CR LF": "a%0d%0aX-Injected:%201",
    "DEL": "a%7f",
    "tab": "a%09b",
    "right-to-left override": "a%e2%80%aeb",
    "250 characters": "a" * 250,
    "10,000 characters": "a" * 10_000,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    s = start_server(tmp_path_factory.mktemp("names") / "data")
    with httpx.Client(base_url=s.url) as c:
        assert c.post("/v1/topics", json={"name": "t"}).status_code == 201
    yield s
    end_server(s)


@pytest.fixture(scope="module")
def operations(server: ServerProcess) -> list[tuple[str, str, str]]:
    """(method, path template, the parameter that names something) for every operation whose
    path names a topic, a group or a transactional id."""
    doc = httpx.get(server.url + "/openapi.json").json()
    found = []
    for path, ops in doc["paths"].items():
        for param in re.findall(r"\{(topic|group_id|tid)\}", path):
            found += [(method.upper(), path, param) for method in ops]
    assert len(found) >= 25, found
    return found


def fill(template: str, param: str, value: str) -> str:
    defaults = {"topic": "t", "group_id": "g", "tid": "x", "partition": "0", "member_id": "m"}
    return re.sub(
        r"\{(\w+)\}", lambda m: value if m.group(1) == param else defaults[m.group(1)], template
    )


def refused(answer: Answer, what: str) -> None:
    assert answer.status in (400, 404, 405), (what, answer.status, answer.body[:300])
    assert answer.code in CODES, (what, answer.body[:300])


@pytest.fixture(scope="module")
def outside(server: ServerProcess) -> Iterator[None]:
    """Every test of this module: no file appears outside the data directory, nor any topic
    (consumer groups: see ``test_hostile_names_in_bodies``)."""
    root = server.data_dir.parent
    before = files_under(root) - files_under(server.data_dir)
    yield
    after = files_under(root) - files_under(server.data_dir)
    assert after == before
    assert not Path("/tmp/escaped").exists()
    with httpx.Client(base_url=server.url) as c:
        assert [t["name"] for t in c.get("/v1/topics").json()["topics"]] == ["t"]


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_names_in_paths(
    server: ServerProcess, operations: list[tuple[str, str, str]], outside: None, name: str
) -> None:
    for method, template, param in operations:
        target = fill(template, param, name)
        body = b"{}" if method in ("POST", "PATCH") else b""
        # a route that takes record batches is sent its own type, so that the name is what it
        # refuses (without it, the missing type is refused first: 415)
        headers = {"Content-Type": BATCH_TYPE} if template.endswith("/batches") else None
        refused(exchange(server, request(method, target, body, headers)), f"{method} {target}")
    healthy(server)


def test_raw_invalid_bytes_in_a_path_are_400(server: ServerProcess, outside: None) -> None:
    for raw in (b"\xff\xfe", b"a\x00b", b"a\x01b", b"a b"):
        target = b"/v1/topics/" + raw
        answer = exchange(server, b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert answer.status == 400 and answer.code == "INVALID_REQUEST", (raw, answer.body)


QUERIES = [
    "/v1/groups/g/offsets?topic={}",
    "/v1/topics/t/partitions/0/records?offset={}",
    "/v1/topics/t/partitions/0/offsets?at={}",
    "/v1/transactions?state={}",
]


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_names_in_query_strings(server: ServerProcess, outside: None, name: str) -> None:
    for query in QUERIES:
        target = query.format(name)
        answer = exchange(server, request("GET", target))
        assert answer.status in (400, 404), (target, answer.status, answer.body[:300])
        assert answer.code in CODES
    for target in (
        f"/v1/groups/g/offsets?topic={name}",
        f"/v1/share-groups/g/offsets?topic={name}",
    ):
        refused(exchange(server, request("DELETE", target)), target)


BODY_NAMES = [
    "..",
    "../../escaped",
    "/tmp/escaped",
    "..\\escaped",
    "a\x00b",
    "a\r\nb",
    "a\x1bb",
    "\ud800",
    "a" * 250,
    "a" * 100_000,
    "",
]


def bodies(name: Any) -> list[tuple[str, dict[str, Any]]]:
    member = {"member_id": None, "member_epoch": 0}
    return [
        ("/v1/topics", {"name": name}),
        ("/v1/produce", {"topic_data": [{"topic": name, "partitions": [{"partition": 0}]}]}),
        ("/v1/groups/g/heartbeat", {**member, "member_id": "m", "subscribed_topics": [name]}),
        ("/v1/share-groups/g/heartbeat", {**member, "subscribed_topics": [name]}),
        ("/v1/producers", {"transactional_id": name}),
        ("/v1/groups/g/offsets", {"topics": [{"topic": name, "partitions": []}]}),
    ]


@pytest.mark.parametrize("name", BODY_NAMES, ids=[repr(n)[:20] for n in BODY_NAMES])
def test_hostile_names_in_bodies(server: ServerProcess, outside: None, name: str) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as c:
        for path, body in bodies(name):
            r = c.post(path, content=json.dumps(body))  # a lone surrogate as its escape
            assert r.status_code in (400, 404), (path, r.status_code, r.text[:300])
            assert r.json()["error"]["code"] in CODES


DASHBOARD = [
    "/dashboard/../pyproject.toml",
    "/dashboard/../../app/config.py",
    "/dashboard/%2e%2e/%2e%2e/pyproject.toml",
    "/dashboard/..%2f..%2fpyproject.toml",
    "/dashboard/%2fetc%2fpasswd",
    "/dashboard//etc/passwd",
    "/dashboard/..\\..\\pyproject.toml",
    "/dashboard/%ff%fe",
    "/dashboard/index.html%00.js",
    "/dashboard/.",
    "/dashboard/..",
    "/dashboard/" + "a" * 10_000,
]


@pytest.mark.parametrize("target", DASHBOARD)
def test_the_dashboard_serves_only_its_files(server: ServerProcess, target: str) -> None:
    answer = exchange(server, request("GET", target))
    assert answer.status in (400, 404), (target, answer.status)
    assert answer.code in ("NOT_FOUND", "INVALID_REQUEST")
    assert b"root:" not in answer.body and b"[project]" not in answer.body
