"""``python -m app acls`` in process (the end-to-end test runs it beside a real server): each
verb and resource flag, filters, and its refusals; and the app refusing a route the
permissions table lacks."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fastapi import Request
from starlette.responses import Response

from app.__main__ import main
from app.config import Settings
from app.main import create_app
from app.security import permissions


def run(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    code = main(["acls", args[0], "--data-dir", str(data), *args[1:]])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_list_remove(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "data"  # created, with its database, by the first command
    for flags in (
        ("--topic", "orders", "--operation", "read", "--allow"),
        ("--group", "billing-", "--prefixed", "--operation", "ALL", "--allow"),
        ("--transactional-id", "etl-1", "--operation", "WRITE", "--deny"),
        ("--cluster", "--operation", "DESCRIBE", "--allow"),
    ):
        code, out, _ = run(capsys, data, "add", "--principal", "alice", *flags)
        assert code == 0 and out.startswith("added "), out
    code, out, _ = run(
        capsys,
        data,
        "add",
        "--principal",
        "alice",
        "--topic",
        "orders",
        "--operation",
        "READ",
        "--allow",
    )
    assert out.startswith("already present ALLOW alice READ TOPIC LITERAL orders"), out
    run(capsys, data, "add", "--principal", "bob", "--topic", "*", "--operation", "ALL", "--allow")
    code, out, _ = run(capsys, data, "list")
    assert len(out.splitlines()) == 5
    code, out, _ = run(capsys, data, "list", "--principal", "alice", "--deny")
    assert out.splitlines() == ["DENY  alice WRITE TRANSACTIONAL_ID LITERAL etl-1"]
    code, out, _ = run(capsys, data, "list", "--group", "billing-", "--prefixed")
    assert out.splitlines() == ["ALLOW alice ALL GROUP PREFIXED billing-"]
    code, out, _ = run(capsys, data, "list", "--group", "billing-")  # the literal: none
    assert out == ""
    code, out, _ = run(capsys, data, "remove", "--cluster")
    assert out.splitlines() == ["removed ALLOW alice DESCRIBE CLUSTER LITERAL kafka-cluster"]
    code, out, _ = run(capsys, data, "remove", "--principal", "alice")
    assert len(out.splitlines()) == 3 and code == 0
    code, out, _ = run(capsys, data, "list")
    assert out.splitlines() == ["ALLOW bob ALL TOPIC LITERAL *"]


def test_refusals(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, _, err = run(
        capsys, data, "add", "--principal", "a", "--topic", "x y", "--operation", "READ", "--allow"
    )
    assert code == 2 and "resource_name" in err
    code, _, err = run(capsys, data, "remove")
    assert code == 2 and "at least one flag" in err
    code, _, err = run(capsys, data, "list", "--principal", "not ok")
    assert code == 2 and "principal" in err


def test_a_bad_data_dir_setting_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SLUICE_PORT", "not a port")
    code, _, err = run(capsys, tmp_path / "data", "list")
    assert code == 2 and "SLUICE_PORT" in err


def test_an_app_with_a_route_the_table_lacks_is_refused() -> None:
    async def extra(request: Request) -> Response:
        return Response()

    with tempfile.TemporaryDirectory() as d:
        app = create_app(Settings(data_dir=str(Path(d) / "data")))
        permissions.check_complete(app)
        app.add_api_route("/v1/unlisted", extra, methods=["GET"])
        with pytest.raises(RuntimeError, match="GET /v1/unlisted"):
            permissions.check_complete(app)
        # admin routes are the cluster's whatever their path
        assert permissions.need_of("GET", "/v1/admin/anything") is not None
        assert permissions.need_of("PUT", "/v1/admin/x/{y}") is not None
