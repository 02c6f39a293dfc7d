"""The package as a user installs it: a wheel built from a copy of this checkout's sources (links
kept as links), installed (not editable) into a fresh virtualenv, serving the API and the
dashboard (the JavaScript client among its files) from a directory outside the checkout, started
by its console command ``sluice-server`` as by ``python -m app`` (tests/packaging/wheel.py has
the set-up)."""

from __future__ import annotations

import re
import shlex
import shutil
import sqlite3
from pathlib import Path

import httpx
import pytest

from app.api.routes import dashboard
from app.dashboard import STATIC
from app.metadata.migrate import migration_files
from tests.conftest import ROOT
from tests.packaging.wheel import build_wheel, clean_env, fresh_venv, run, serving

pytestmark = pytest.mark.slow

SOURCES = ("pyproject.toml", "README.md")


def _copy_sources(src: Path) -> Path:
    src.mkdir()
    for name in SOURCES:
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "app",
        src / "app",
        symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return src


def _documented_commands(command: Path, data: Path) -> list[list[str | Path]]:
    """The ``sluice-server`` lines of docs/operations.md's first example, with the installed
    command, the test's data directory for /var/lib/sluice and comments dropped (the server's
    port is the last --port, which the test appends)."""
    text = (ROOT / "docs" / "operations.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text.split("## Running the server", 1)[1], re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.startswith("sluice-server ")]
    assert len(lines) == 3, lines
    return [
        [command, *(w.replace("/var/lib/sluice", str(data)) for w in shlex.split(line, True)[1:])]
        for line in lines
    ]


def test_the_installed_wheel_serves_from_outside_the_checkout(tmp_path: Path) -> None:
    env = clean_env()
    dist = tmp_path / "dist"
    wheel = build_wheel(_copy_sources(tmp_path / "src"), dist, env)
    python, site = fresh_venv(tmp_path / "venv", wheel, env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # the code that runs is the installed copy, migrations and dashboard included, not the
    # source tree
    where = run(
        python,
        "-c",
        "import app, app.metadata.migrate as m, app.api.routes.dashboard as d; "
        "print(app.__file__); print(sorted(e.name for e in m.MIGRATIONS.iterdir())); "
        "print(sorted(d.FILES))",
        cwd=elsewhere,
        env=env,
    ).splitlines()
    assert Path(where[0]).is_relative_to(site), where
    assert not Path(where[0]).is_relative_to(ROOT), where
    shipped = [p.name for _, p in migration_files()]
    assert where[1] == repr(sorted(shipped))
    assert where[2] == repr(sorted(dashboard.FILES)), "dashboard files missing from the wheel"

    # the console command is the same program as python -m app, under its own name
    command = python.parent / "sluice-server"
    assert command.is_file()
    usage = run(command, "--help", cwd=elsewhere, env=env)
    assert usage.startswith("usage: sluice-server "), usage
    assert run(python, "-m", "app", "--help", cwd=elsewhere, env=env).startswith(
        "usage: python -m app "
    )

    # python -m app, the checkout's form, serves from the installed package too
    data = tmp_path / "data"
    serve: list[str | Path] = [python, "-m", "app", "serve", "--data-dir", data]
    with serving(serve, elsewhere, env, tmp_path / "server.log") as url:
        # the dashboard's page and modules, the JavaScript client among them, from the
        # installed package data
        r = httpx.get(url + "/")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/html")
        assert r.text == (STATIC / "index.html").read_text()
        for module in ("views/share_groups.js", "client/index.js"):
            r = httpx.get(url + "/dashboard/" + module)
            assert r.status_code == 200, r.text
            assert r.headers["content-type"].startswith("text/javascript")
            assert r.content == (STATIC / module).read_bytes()

        r = httpx.post(url + "/v1/topics", json={"name": "installed", "partitions": 1})
        assert r.status_code == 201, r.text
        r = httpx.post(
            url + "/v1/topics/installed/records",
            json={"records": [{"key": "k", "value": "from the wheel"}]},
        )
        assert r.status_code == 200, r.text
        assert r.json()["offsets"][0]["offset"] == 0

    with sqlite3.connect(f"file:{data / 'metadata.db'}?mode=ro", uri=True) as db:
        applied = [
            row[0] for row in db.execute("SELECT name FROM schema_migrations ORDER BY version")
        ]
    assert applied == shipped

    # the sluice-server lines of docs/operations.md as written, on the same data directory
    keys_line, serve_line, help_line = _documented_commands(command, data)
    assert "--super-users" in run(*help_line, cwd=elsewhere, env=env)
    key = run(*keys_line, cwd=elsewhere, env=env).strip()
    with serving(serve_line, elsewhere, env, tmp_path / "again.log") as url:
        read = url + "/v1/topics/installed/partitions/0/records"
        assert httpx.get(read, params={"offset": 0}).status_code == 401
        r = httpx.get(read, params={"offset": 0}, headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        assert [(x["key"], x["value"]) for x in r.json()["records"]] == [("k", "from the wheel")]
