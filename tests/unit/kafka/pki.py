"""Certificates for the tests of TLS to a broker, made with openssl: an authority, a broker
certificate for the names a test gives, and a client certificate, all signed by it."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

_EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def _openssl(cwd: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@dataclass(frozen=True)
class Pki:
    ca: Path
    broker_cert: Path
    broker_key: Path
    client_cert: Path
    client_key: Path


def _signed(cwd: Path, name: str, extensions: str) -> tuple[Path, Path]:
    _openssl(
        cwd, "req", *_EC, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}"
    )
    (cwd / f"{name}.ext").write_text(extensions)
    _openssl(
        cwd,
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext",
    )  # fmt: skip
    return cwd / f"{name}.pem", cwd / f"{name}.key"


def make_pki(cwd: Path, broker_names: str = "IP:127.0.0.1,DNS:localhost") -> Pki:
    """``broker_names`` is the broker certificate's subjectAltName."""
    _openssl(
        cwd,
        "req", "-x509", *_EC, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=sluice-test-ca",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    common = "authorityKeyIdentifier=keyid\nbasicConstraints=CA:FALSE\n"
    broker = _signed(
        cwd, "broker", common + f"subjectAltName={broker_names}\nextendedKeyUsage=serverAuth\n"
    )
    client = _signed(cwd, "client", common + "extendedKeyUsage=clientAuth\n")
    return Pki(cwd / "ca.pem", *broker, *client)
