"""The package as a user installs it: a wheel built from a directory of sources, installed (not
editable) into a fresh virtualenv, and a server started from that virtualenv.

The fresh virtualenv gets the wheel alone (``--no-deps``, no index); its dependencies come from
the test environment's site-packages through a ``.pth`` line, which adds that directory to
``sys.path`` after the virtualenv's own site-packages and does not run the editable install's
import hook found there. Callers check that ``app`` resolves to the installed copy.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.conftest import free_port


def clean_env() -> dict[str, str]:
    """This environment without what would point an interpreter at the checkout."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(*args: str | Path, cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def build_wheel(src: Path, dist: Path, env: dict[str, str]) -> Path:
    """A wheel of the project in ``src`` (a copy: building writes into the source directory)."""
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--wheel-dir",
        dist,
        src,
        cwd=dist.parent,
        env=env,
    )
    (wheel,) = dist.glob("sluice-*.whl")
    return wheel


def fresh_venv(venv: Path, wheel: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """(interpreter, site-packages) of a new virtualenv holding the wheel."""
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=venv.parent, env=env)
    python = venv / "bin" / "python"
    run(
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
        cwd=venv.parent,
        env=env,
    )
    site = Path(
        run(
            python,
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            cwd=venv.parent,
            env=env,
        ).strip()
    )
    deps = dict.fromkeys((sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]))
    (site / "test-dependencies.pth").write_text("".join(f"{d}\n" for d in deps))
    return python, site


@contextmanager
def serving(
    command: Sequence[str | Path], cwd: Path, env: dict[str, str], log_path: Path
) -> Iterator[str]:
    """Runs ``command`` (a server's start, without --port) on a free port until the block
    ends, yielding its address once /readyz answers; then SIGTERM, and the exit must be 0."""
    port = free_port()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(c) for c in command] + ["--port", str(port)],
            cwd=cwd,
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
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == 0, log_path.read_text()
