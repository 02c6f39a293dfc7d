"""``serve``'s safe default and TLS, on real processes: no key on a non-loopback address is
refused unless anonymous access is allowed; the self-signed example of docs/security.md, run as
written, serves HTTPS and wss:// to clients trusting that certificate. In the gateway pass
(SLUICE_TEST_BACKEND=kafka) each server is a gateway on the tests' Kafka cluster."""

from __future__ import annotations

import os
import re
import shlex
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect

from tests.conftest import ROOT, ServerProcess, free_port

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]


def serve(data_dir: Path, *args: str, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--data-dir", str(data_dir), *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_no_keys_on_a_public_address_is_refused(
    tmp_path: Path, backend_env: dict[str, str]
) -> None:
    port = str(free_port())
    proc = serve(tmp_path / "data", "--host", "0.0.0.0", "--port", port, **backend_env)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    message = out.decode()
    assert "refusing to serve on 0.0.0.0 without API keys" in message
    assert "keys create" in message and "--allow-anonymous" in message
    # TLS: a certificate without its key
    proc = serve(tmp_path / "data", "--tls-certfile", str(tmp_path / "none.pem"), **backend_env)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2 and b"--tls-keyfile" in out


def test_allow_anonymous_or_a_key_lets_it_start(server_factory: ServerFactory) -> None:
    anonymous = server_factory(SLUICE_HOST="0.0.0.0", SLUICE_ALLOW_ANONYMOUS="true")
    anonymous.start()
    assert httpx.get(anonymous.url + "/v1/auth/whoami").json()["keys_required"] is False
    assert anonymous.stop() == 0
    # the server's own settings: its data directory, or on a gateway its cluster's keys
    created = subprocess.run(
        [sys.executable, "-m", "app", "keys", "create", "--principal", "admin"],
        cwd=ROOT,
        env={**anonymous.env, "SLUICE_DATA_DIR": str(anonymous.data_dir)},
        capture_output=True,
        text=True,
        check=True,
    )
    key = created.stdout.strip()
    keyed = server_factory(anonymous.data_dir, SLUICE_HOST="0.0.0.0")
    keyed.start()
    assert httpx.get(keyed.url + "/v1/topics").status_code == 401
    r = httpx.get(keyed.url + "/v1/auth/whoami", headers={"Authorization": f"Bearer {key}"})
    assert r.json() == {"principal": "admin", "keys_required": True}
    assert keyed.stop() == 0


def documented_tls_commands() -> tuple[str, str]:
    """The openssl and serve commands of the TLS example in docs/security.md."""
    text = (ROOT / "docs" / "security.md").read_text()
    section = text.split("## TLS", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    lines = block.group(1).strip().splitlines()
    openssl = next(line for line in lines if line.startswith("openssl req -x509"))
    serve_line = next(line for line in lines if line.startswith("python -m app serve"))
    return openssl, serve_line


async def test_the_documented_self_signed_example_serves_https_and_wss(
    tmp_path: Path, backend_env: dict[str, str]
) -> None:
    openssl, serve_line = documented_tls_commands()
    subprocess.run(openssl, shell=True, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    cert = tmp_path / "cert.pem"
    assert cert.exists() and (tmp_path / "key.pem").exists()
    port = free_port()
    args = shlex.split(serve_line)[3:]  # after "python -m app"
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args, "--port", str(port), "--data-dir", "data"],
        cwd=tmp_path,
        env={**os.environ, **backend_env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    trusting = ssl.create_default_context(cafile=str(cert))
    try:
        url = f"https://localhost:{port}"
        with httpx.Client(verify=trusting, timeout=5) as client:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, "the TLS server exited"
                try:
                    if client.get(url + "/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the TLS server did not become ready"
                time.sleep(0.1)
            assert client.get(url + "/v1/topics").json() == {"topics": []}
        with pytest.raises(httpx.ConnectError):  # a client that does not trust the certificate
            httpx.get(url + "/healthz")
        async with connect(f"wss://localhost:{port}/v1/events", ssl=trusting) as ws:
            assert orjson.loads(await ws.recv())["type"] == "snapshot"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out.decode()
