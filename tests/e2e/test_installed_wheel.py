"""The package as a user installs it: a wheel built from this checkout, installed (not editable)
into a fresh virtualenv, serving the API and the dashboard from a directory outside the
checkout.

The fresh virtualenv gets the wheel alone (``--no-deps``, no index); its dependencies come from
the test environment's site-packages through a ``.pth`` line, which adds that directory to
``sys.path`` after the virtualenv's own site-packages and does not run the editable install's
import hook found there. The test checks that ``app`` resolves to the installed copy before it
starts the server with that interpreter.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import httpx
import pytest

from app.api.routes import dashboard
from app.dashboard import STATIC
from app.metadata.migrate import migration_files
from tests.conftest import ROOT, free_port

pytestmark = pytest.mark.slow

SOURCES = ("pyproject.toml", "README.md")


def _run(*args: str | Path, cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def _build_wheel(tmp_path: Path, env: dict[str, str]) -> Path:
    """A wheel of a copy of the project's sources (building in place would write into the
    checkout)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "app", src / "app", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    dist = tmp_path / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--wheel-dir",
        dist,
        src,
        cwd=tmp_path,
        env=env,
    )
    (wheel,) = dist.glob("sluice-*.whl")
    return wheel


def _fresh_venv(tmp_path: Path, wheel: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """(interpreter, site-packages) of a new virtualenv holding the wheel."""
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    python = venv / "bin" / "python"
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        wheel,
        cwd=tmp_path,
        env=env,
    )
    site = Path(
        _run(
            python,
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            cwd=tmp_path,
            env=env,
        ).strip()
    )
    deps = dict.fromkeys((sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]))
    (site / "test-dependencies.pth").write_text("".join(f"{d}\n" for d in deps))
    return python, site


def test_the_installed_wheel_serves_from_outside_the_checkout(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    wheel = _build_wheel(tmp_path, env)
    python, site = _fresh_venv(tmp_path, wheel, env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # the code that runs is the installed copy, migrations and dashboard included, not the
    # source tree
    where = _run(
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

    port = free_port()
    data = tmp_path / "data"
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(python), "-m", "app", "serve", "--port", str(port), "--data-dir", str(data)],
            cwd=elsewhere,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, log_path.read_text()
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.05)

        # the dashboard's page and a module, from the installed package data
        r = httpx.get(url + "/")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/html")
        assert r.text == (STATIC / "index.html").read_text()
        r = httpx.get(url + "/dashboard/views/share_groups.js")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/javascript")
        assert r.content == (STATIC / "views" / "share_groups.js").read_bytes()

        r = httpx.post(url + "/v1/topics", json={"name": "installed", "partitions": 1})
        assert r.status_code == 201, r.text
        r = httpx.post(
            url + "/v1/topics/installed/records",
            json={"records": [{"key": "k", "value": "from the wheel"}]},
        )
        assert r.status_code == 200, r.text
        assert r.json()["offsets"][0]["offset"] == 0
        r = httpx.get(url + "/v1/topics/installed/partitions/0/records", params={"offset": 0})
        assert r.status_code == 200, r.text
        assert [(x["key"], x["value"]) for x in r.json()["records"]] == [("k", "from the wheel")]

        with sqlite3.connect(f"file:{data / 'metadata.db'}?mode=ro", uri=True) as db:
            applied = [
                row[0] for row in db.execute("SELECT name FROM schema_migrations ORDER BY version")
            ]
        assert applied == shipped
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == 0, log_path.read_text()
