"""The container image without a container engine: its build context (what .dockerignore lets
through), its user and health check as the Dockerfile writes them, and the package built from
exactly what its COPY lines lay out, installed and serving the dashboard with every file the
page imports (tests/packaging/dockerfile.py reads the Dockerfile as the builder does)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.dashboard import STATIC
from tests.conftest import ROOT, ServerProcess, free_port
from tests.packaging.dockerfile import context, copies, instructions, lay_out
from tests.packaging.wheel import build_wheel, clean_env, fresh_venv, serving

DOCKERFILE = ROOT / "Dockerfile"

# what a working copy holds besides the sources: none of it may reach the build
JUNK = (
    ".venv/bin/python",
    ".venv/lib/python3.11/site-packages/pyspark/__init__.py",
    "data/metadata.db",
    "data/logs/orders-0/00000000000000000000.log",
    ".git/HEAD",
    ".pytest_cache/v/cache/lastfailed",
    ".mypy_cache/3.11/app/main.meta.json",
    ".ruff_cache/0.6.9/123",
    ".hypothesis/examples/abc",
    ".coverage",
    "app/__pycache__/main.cpython-311.pyc",
    "app/api/__pycache__/connections.cpython-311.pyc",
    "app/stray.pyc",
    "node_modules/ws/index.js",
    "clients/js/node_modules/ws/index.js",
    "clients/js/sluice-client-0.1.0.tgz",
    "sluice.egg-info/PKG-INFO",
    "build/lib/app/main.py",
    "benchmarks/results/soak.json",
    "tests/conftest.py",
    "docs/api.md",
)


def _env_lines() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, args in instructions(DOCKERFILE):
        if keyword == "ENV":
            for word in shlex.split(args):
                name, _, value = word.partition("=")
                env[name] = value
    return env


def _exec_form(keyword: str) -> list[str]:
    (args,) = [a for k, a in instructions(DOCKERFILE) if k == keyword]
    words: list[str] = json.loads(args)
    return words


def _health_command() -> list[str]:
    (args,) = [a for k, a in instructions(DOCKERFILE) if k == "HEALTHCHECK"]
    command = re.sub(r"^(--[a-z-]+=\S+\s+)*", "", args)
    assert command.startswith("CMD ["), args
    words: list[str] = json.loads(command[len("CMD ") :])
    return words


def _copied_sources() -> tuple[str, ...]:
    return tuple(s for c in copies(DOCKERFILE) for s in c.sources)


def _under(path: str, sources: tuple[str, ...]) -> bool:
    return any(path == s or path.startswith(s + "/") for s in sources)


def test_the_build_context_holds_what_the_image_copies_and_nothing_else(tmp_path: Path) -> None:
    tree = tmp_path / "checkout"
    sources = ("pyproject.toml", "README.md", "app/main.py", "app/dashboard/index.html")
    for name in (*sources, *JUNK):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("x")
    for name in ("Dockerfile", ".dockerignore"):
        if (ROOT / name).exists():
            (tree / name).write_bytes((ROOT / name).read_bytes())
    sent = context(tree)
    assert sorted(sent & set(JUNK)) == []
    assert set(sources) <= sent
    copied = _copied_sources()
    assert sorted(f for f in sent if not _under(f, copied)) == [], "sent but never copied"

    # the checkout itself: every COPY source is there, nothing else, no caches
    sent = context(ROOT)
    for source in copied:
        assert any(_under(f, (source,)) for f in sent), f"COPY {source}: not in the context"
    assert sorted(f for f in sent if not _under(f, copied)) == []
    assert [f for f in sent if "__pycache__" in f or f.endswith(".pyc")] == []


def test_the_image_runs_as_its_own_user_with_a_health_check() -> None:
    lines = instructions(DOCKERFILE)
    keywords = [k for k, _ in lines]
    (user,) = [a for k, a in lines if k == "USER"]
    assert user not in ("root", "0", "0:0")
    # installed as root, run as the user: nothing runs as root after USER
    assert keywords.index("USER") > max(i for i, k in enumerate(keywords) if k == "RUN")
    creates = " ".join(a for k, a in lines if k == "RUN")
    uid = re.search(r"useradd [^&]*--uid (\d+)[^&]* " + re.escape(user) + r"\b", creates)
    assert uid is not None, "the user is made with a fixed uid, which the docs name"
    # the data directory is the user's before VOLUME, so a new volume starts out as the user's
    owned = [i for i, (k, a) in enumerate(lines) if k == "RUN" and "chown" in a]
    assert owned and f"chown {user}:{user} /var/lib/sluice" in lines[owned[0]][1]
    assert owned[0] < keywords.index("VOLUME")
    assert [a for k, a in lines if k == "VOLUME"] == ["/var/lib/sluice"]
    # the docs tell how to hand a volume made by the root image to that uid
    ops = (ROOT / "docs" / "operations.md").read_text()
    assert f"-R {uid.group(1)}:{uid.group(1)} /var/lib/sluice" in ops
    assert _health_command()[0] == "python"
    assert _exec_form("ENTRYPOINT") == ["sluice-server"]


def test_every_documented_container_start_makes_its_key_a_super_user() -> None:
    """A key's principal may do nothing that ACLs do not allow: the first one, created in the
    volume, must be named a super-user where the docs start the image with it."""
    starts = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), DOCKERFILE]:
        for command in re.findall(r"docker run [^`\n]*", page.read_text()):
            if "-v sluice-data:" not in command or "--entrypoint" in command:
                continue
            if "keys create" in command:
                assert "--principal admin" in command, (page.name, command)
                continue
            starts.append(command)
            assert "-e SLUICE_SUPER_USERS=admin" in command, (page.name, command)
    assert len(starts) >= 3


def _health(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The HEALTHCHECK command as written, with this interpreter for the image's python."""
    command = _health_command()
    return subprocess.run(
        [sys.executable, *command[1:]], env=env, capture_output=True, text=True, timeout=30
    )


def test_the_health_command_as_written_checks_a_server_with_keys(
    server_factory: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    image_env = _env_lines()
    assert image_env["SLUICE_HOST"] == "0.0.0.0"
    data = tmp_path / "data"
    subprocess.run(
        [sys.executable, "-m", "app", "keys", "create", "--principal", "admin"],
        cwd=ROOT,
        env={**os.environ, **image_env, "SLUICE_DATA_DIR": str(data)},
        capture_output=True,
        check=True,
    )
    server = server_factory(data, **{**image_env, "SLUICE_DATA_DIR": str(data)})
    env = {**os.environ, **image_env, "SLUICE_PORT": str(server.port)}
    assert _health(env).returncode != 0, "healthy with no server"
    server.start()
    assert httpx.get(server.url + "/v1/topics").status_code == 401  # keys are required
    done = _health(env)
    assert done.returncode == 0, done.stderr
    assert server.stop() == 0
    assert _health(env).returncode != 0, "healthy after the server stopped"


@contextmanager
def _tls_server(tmp_path: Path, env: dict[str, str]) -> Iterator[None]:
    port = env["SLUICE_PORT"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", port, "--data-dir", str(tmp_path / "d")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        with httpx.Client(verify=False, timeout=1) as client:
            while True:
                assert proc.poll() is None, "the TLS server exited"
                try:
                    if client.get(f"https://127.0.0.1:{port}/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the TLS server did not become ready"
                time.sleep(0.05)
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


def test_the_health_command_as_written_follows_tls(tmp_path: Path) -> None:
    subprocess.run(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=sluice "
        "-keyout key.pem -out cert.pem",
        shell=True,
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=60,
    )
    env = {
        **os.environ,
        **_env_lines(),
        "SLUICE_HOST": "127.0.0.1",
        "SLUICE_PORT": str(free_port()),
        "SLUICE_TLS_CERTFILE": str(tmp_path / "cert.pem"),
        "SLUICE_TLS_KEYFILE": str(tmp_path / "key.pem"),
    }
    with _tls_server(tmp_path, env):
        done = _health(env)
        assert done.returncode == 0, done.stderr


def _imports(path: str, r: httpx.Response) -> set[str]:
    """The dashboard paths a page or module loads, resolved against its own path."""
    text = r.text
    if r.headers["content-type"].startswith("text/html"):
        return {"/" + ref for ref in re.findall(r'(?:src|href)="(dashboard/[^"]+)"', text)}
    if not r.headers["content-type"].startswith("text/javascript"):
        return set()
    refs = re.findall(
        r'\bfrom\s*"([^"]+)"|\bimport\s*\(\s*"([^"]+)"\s*\)|\bimport\s+"([^"]+)"', text
    )
    base = path.rsplit("/", 1)[0]
    specifiers = [next(g for g in groups if g) for groups in refs]
    # relative ones are files of this server; "node:…" are Node's own modules (the client's
    # WebSocket for Node, which a browser never loads)
    return {os.path.normpath(f"{base}/{spec}") for spec in specifiers if spec.startswith(".")}


@pytest.mark.slow
def test_a_wheel_of_what_the_image_copies_serves_the_whole_dashboard(tmp_path: Path) -> None:
    image = tmp_path / "image"
    lay_out(ROOT, image)
    (install,) = [a for k, a in instructions(DOCKERFILE) if k == "RUN" and "pip install" in a]
    target = re.search(r"pip install (?:--\S+ )*(/\S+)", install)
    assert target is not None, install
    env = clean_env()
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = build_wheel(image / target.group(1).lstrip("/"), dist, env)
    python, _ = fresh_venv(tmp_path / "venv", wheel, env)

    # started as the image starts it: its entrypoint and command with its environment, on
    # loopback and a directory of the test's
    command: list[str | Path] = [python.parent / _exec_form("ENTRYPOINT")[0], *_exec_form("CMD")]
    server_env = {
        **env,
        **_env_lines(),
        "SLUICE_HOST": "127.0.0.1",
        "SLUICE_DATA_DIR": str(tmp_path / "data"),
    }
    with serving(command, tmp_path, server_env, tmp_path / "server.log") as url:
        seen: dict[str, int] = {}
        todo = ["/"]
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            r = httpx.get(url + path)
            seen[path] = r.status_code
            if r.status_code == 200:
                todo.extend(_imports(path, r))
    assert {p: s for p, s in seen.items() if s != 200} == {}
    assert "/dashboard/client/index.js" in seen
    assert "/dashboard/main.js" in seen
    # every module the page reaches is a file the dashboard ships
    assert len([p for p in seen if p.endswith(".js")]) > 20
    assert all((STATIC / p.removeprefix("/dashboard/")).is_file() for p in seen if p != "/")
