"""``python -m app keys`` and ``serve``'s refusal, run in this process on a real data
directory (the end-to-end tests run them as processes beside a server)."""

from __future__ import annotations

import sqlite3
from functools import partial
from pathlib import Path

import pytest

from app.__main__ import main
from app.config import Settings
from app.security.exposure import has_keys, is_loopback, refusal
from app.security.keys import new_key, split


def test_create_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "new" / "data")  # created, with its database and migrations
    assert main(["keys", "list", "--data-dir", data]) == 0
    assert (
        capsys.readouterr().out == "KEY ID  PRINCIPAL  CREATED (UTC)  REVOKED (UTC)  DESCRIPTION\n"
    )
    assert (
        main(["keys", "create", "--principal", "alice", "--description", "ci", "--data-dir", data])
        == 0
    )
    out = capsys.readouterr()
    key = out.out.strip()
    assert out.out == key + "\n" and key.startswith("sk_")
    key_id = key[3:15]
    assert f"created key {key_id} for principal 'alice'" in out.err
    assert main(["keys", "list", "--data-dir", data]) == 0
    listed = capsys.readouterr().out
    assert key_id in listed and "alice" in listed and "ci" in listed and key[16:] not in listed
    assert main(["keys", "revoke", key_id, "--data-dir", data]) == 0
    assert f"revoked key {key_id}" in capsys.readouterr().err
    assert main(["keys", "list", "--data-dir", data]) == 0
    (row,) = capsys.readouterr().out.splitlines()[1:]
    assert row.split()[0] == key_id and row.count(":") == 4  # created and revoked times
    assert main(["keys", "revoke", "nonexistent0", "--data-dir", data]) == 1
    assert "no API key 'nonexistent0'" in capsys.readouterr().err
    assert main(["keys", "create", "--principal", "not valid", "--data-dir", data]) == 2
    assert "principal" in capsys.readouterr().err


def test_bad_settings_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLUICE_PORT", "nope")
    assert main(["keys", "list", "--data-dir", str(tmp_path)]) == 2
    assert "SLUICE_PORT" in capsys.readouterr().err


def test_loopback_addresses() -> None:
    for host in ("127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "10.0.0.1", "example.com", ""):
        assert not is_loopback(host), host


def test_refusal_without_keys_on_a_public_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "metadata.db")
    public = Settings(host="0.0.0.0", data_dir=str(tmp_path))
    assert not has_keys(db)  # no database yet
    keyed = partial(has_keys, db)
    assert refusal(public, keyed) is not None
    assert refusal(public.replace(allow_anonymous=True), keyed) is None
    assert refusal(Settings(data_dir=str(tmp_path)), keyed) is None  # loopback
    sqlite3.connect(db).close()  # a database without the table yet
    assert not has_keys(db)
    assert main(["keys", "create", "--principal", "admin", "--data-dir", str(tmp_path)]) == 0
    assert has_keys(db) and refusal(public, keyed) is None
    cert = tmp_path / "cert.pem"
    assert "--tls-keyfile" in (refusal(public.replace(tls_certfile=str(cert)), keyed) or "")
    unreadable = public.replace(tls_certfile=str(cert), tls_keyfile=str(cert))
    assert "cannot read the TLS file" in (refusal(unreadable, keyed) or "")
    # serve itself, in this process: refused before anything starts
    empty = tmp_path / "empty"
    assert main(["serve", "--host", "0.0.0.0", "--data-dir", str(empty)]) == 2
    assert "refusing to serve on 0.0.0.0 without API keys" in capsys.readouterr().err


def test_key_ids_are_letters_and_digits() -> None:
    # an id with a leading "-" (URL-safe base64 has it) was taken by `keys revoke` for an option
    for _ in range(2000):
        key_id, _secret, key = new_key()
        assert key_id.isalnum() and len(key_id) == 12 and split(key) == (key_id, _secret)


def test_the_kafka_backend_asks_the_cluster_for_keys_only_off_loopback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    public = Settings(
        host="0.0.0.0", data_dir=str(tmp_path), backend="kafka", kafka_bootstrap="127.0.0.1:9"
    )
    asked: list[bool] = []

    def keyless() -> bool:
        asked.append(True)
        return False

    assert "--kafka-bootstrap of the same cluster" in (refusal(public, keyless) or "")
    assert refusal(public.replace(allow_anonymous=True), keyless) is None
    assert refusal(public.replace(host="127.0.0.1"), keyless) is None
    assert len(asked) == 1  # loopback and --allow-anonymous never ask the cluster
    # serve refuses, without a data directory, when the cluster cannot be asked (nothing
    # listens on port 9): saying so, not as a server without keys
    empty = tmp_path / "empty"
    args = ["serve", "--host", "0.0.0.0", "--data-dir", str(empty), "--backend", "kafka"]
    assert main([*args, "--kafka-bootstrap", "127.0.0.1:9"]) == 2
    assert "cannot read the API keys from the Kafka cluster" in capsys.readouterr().err
    assert not empty.exists()
    # a gateway without its bootstrap brokers does not start either
    assert main(["serve", "--data-dir", str(empty), "--backend", "kafka"]) == 2
    assert not empty.exists()
