"""The package as a user installs it: a wheel built from a copy of this checkout's sources (links
kept as links), installed (not editable) into a fresh virtualenv, serving the API and the
dashboard (the JavaScript client among its files) from a directory outside the checkout
(tests/packaging/wheel.py has the set-up)."""

from __future__ import annotations

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

    data = tmp_path / "data"
    with serving(
        [python, "-m", "app", "serve", "--data-dir", data], elsewhere, env, tmp_path / "server.log"
    ) as url:
        # the dashboard's page and a module, from the installed package data
        r = httpx.get(url + "/")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/html")
        assert r.text == (STATIC / "index.html").read_text()
        r = httpx.get(url + "/dashboard/views/share_groups.js")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/javascript")
        assert r.content == (STATIC / "views" / "share_groups.js").read_bytes()
        r = httpx.get(url + "/dashboard/client/index.js")
        assert r.status_code == 200, r.text

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

    with serving(
        [python, "-m", "app", "serve", "--data-dir", data], elsewhere, env, tmp_path / "again.log"
    ) as url:
        r = httpx.get(url + "/v1/topics/installed/partitions/0/records", params={"offset": 0})
        assert r.status_code == 200, r.text
        assert [(x["key"], x["value"]) for x in r.json()["records"]] == [("k", "from the wheel")]
