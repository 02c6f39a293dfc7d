"""KeyStore on a real metadata database: the key's shape, what is stored, verification, the
cache, revocation, keys required once any row exists, and reloading changes of another
connection."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

import orjson
import pytest

from app.api.wire.keys import parse_create
from app.clock import FakeClock
from app.config import Settings
from app.errors import SluiceError
from app.metadata.db import Database
from app.security.keys import Identity, KeyStore, insert_key, revoke_key, split
from app.security.open_sockets import KEY_ID, REQUIRED, REVOKED
from app.security.tokens import WsTokens

HTTP_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 token characters


async def test_a_new_key_is_shaped_and_stored_as_a_salted_hash_only(
    metadata_db: Database, clock: FakeClock
) -> None:
    keys = KeyStore(metadata_db, clock)
    await keys.load()
    assert keys.required is False
    row, key = await keys.create("alice", "ci")
    assert HTTP_TOKEN.match(key) and key.startswith("sk_")
    key_id, secret = split(key) or ("", "")
    assert key_id == row.key_id and len(key_id) == 12
    assert len(secret) >= 43  # 256 bits in base64
    assert row.created_ms == clock.now_ms()
    with sqlite3.connect(metadata_db.path) as conn:
        ((salt, stored, principal),) = conn.execute("SELECT salt, hash, principal FROM api_keys")
        dumped = "\n".join(conn.iterdump())
    assert principal == "alice"
    assert stored == hashlib.sha256(salt + secret.encode()).digest()
    assert secret not in dumped and key not in dumped
    assert "salt" not in row.public() and "hash" not in row.public()


async def test_authenticate_accepts_the_key_only(metadata_db: Database, clock: FakeClock) -> None:
    keys = KeyStore(metadata_db, clock)
    await keys.load()
    _, alice = await keys.create("alice")
    _, bob = await keys.create("bob")
    assert keys.required
    who = keys.authenticate(alice)
    assert who is not None and who.principal == "alice"
    assert keys.authenticate(alice) is who  # the second time from the cache
    assert (keys.authenticate(bob) or who).principal == "bob"
    key_id, secret = split(alice) or ("", "")
    flipped = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for bad in (
        "",
        "sk_",
        alice[:-1],
        alice + "x",
        f"sk_{key_id}_{flipped}",
        f"sk_{'x' * 12}_{secret}",  # an unknown id (compared against the dummy)
        "Bearer " + alice,
    ):
        assert keys.authenticate(bad) is None, bad


async def test_revoked_keys_are_refused_and_keys_stay_required(
    metadata_db: Database, clock: FakeClock
) -> None:
    keys = KeyStore(metadata_db, clock)
    await keys.load()
    row, key = await keys.create("alice")
    assert keys.authenticate(key) is not None
    clock.advance(5)
    await keys.revoke(row.key_id)
    assert keys.authenticate(key) is None
    assert keys.required  # revoking every key never reopens the server
    (listed,) = keys.list()
    assert listed.revoked_ms == clock.now_ms()
    await keys.revoke(row.key_id)  # twice: the first time stays
    assert keys.list()[0].revoked_ms == listed.revoked_ms
    with pytest.raises(SluiceError) as err:
        await keys.revoke("nonexistent0")
    assert err.value.code.name == "NOT_FOUND"


@pytest.mark.parametrize(
    ("principal", "description"), [("", ""), ("a b", ""), ("x" * 256, ""), (7, ""), ("ok", 5)]
)
async def test_bad_principals_and_descriptions_are_refused(
    metadata_db: Database, clock: FakeClock, principal: object, description: object
) -> None:
    with pytest.raises(SluiceError) as err:
        parse_create(orjson.dumps({"principal": principal, "description": description}), Settings())
    assert err.value.code.name == "INVALID_REQUEST"
    if isinstance(principal, str) and isinstance(description, str):
        with pytest.raises(SluiceError):
            await KeyStore(metadata_db, clock).create(principal, description)


async def test_changes_of_another_connection_are_seen_by_reload(
    metadata_db: Database, clock: FakeClock, tmp_path: Path
) -> None:
    keys = KeyStore(metadata_db, clock)
    assert await keys.reload_if_changed()  # the first look loads
    assert not await keys.reload_if_changed()  # nothing changed since
    assert not keys.required
    with sqlite3.connect(metadata_db.path) as other:  # as the keys command does
        row, key = insert_key(other, "carol", "", 1)
    assert await keys.reload_if_changed()
    assert keys.required and (keys.authenticate(key) or row).principal == "carol"
    scope = {KEY_ID: row.key_id}
    with keys.sockets.watch(scope) as revocation, keys.sockets.watch({}) as anonymous:
        assert len(keys.sockets) == 2
        with sqlite3.connect(metadata_db.path) as other:
            assert revoke_key(other, row.key_id, 2)
            assert not revoke_key(other, "nonexistent0", 2)
        assert await keys.reload_if_changed()
        assert keys.authenticate(key) is None
        assert revocation.event.is_set() and await revocation.wait() == REVOKED
        assert anonymous.event.is_set() and anonymous.reason == REQUIRED
    assert len(keys.sockets) == 0


async def test_a_change_of_another_table_keeps_the_verified_keys(
    metadata_db: Database, clock: FakeClock
) -> None:
    keys = KeyStore(metadata_db, clock)
    assert keys.required  # until loaded, nothing but the public paths
    await keys.reload_if_changed()
    assert not keys.required
    _, key = await keys.create("alice")
    identity = keys.authenticate(key)
    with sqlite3.connect(metadata_db.path) as other:
        other.execute("INSERT INTO quotas (principal, updated_ms) VALUES ('x', 1)")
    assert await keys.reload_if_changed()
    assert keys.authenticate(key) is identity  # still the remembered one


def test_ws_tokens_are_used_once_and_expire(clock: FakeClock) -> None:
    tokens = WsTokens(clock, ttl_ms=1000)
    alice = Identity("k1", "alice")
    first, expires = tokens.issue(alice)
    assert expires == clock.now_ms() + 1000 and first.startswith("wst_")
    assert tokens.redeem(first) == alice
    assert tokens.redeem(first) is None  # once
    late, _ = tokens.issue(alice)
    clock.advance(1000)
    assert tokens.redeem(late) is None
    for _ in range(5):
        tokens.issue(alice)
    clock.advance(1000)
    tokens.issue(alice)  # the expired ones are forgotten as new ones are issued
    assert len(tokens) == 1


async def test_spellings_of_one_key_and_invalid_values_are_not_remembered_each(
    metadata_db: Database, clock: FakeClock
) -> None:
    """100,000 spellings of one valid key's Authorization header (the scheme in any case, runs
    of spaces and tabs after it, whitespace after the key), and 100,000 invalid values, leave
    one key remembered: each was an entry of its own, kept until the keys changed."""
    keys = KeyStore(metadata_db, clock)
    await keys.load()
    _, key = await keys.create("alice")
    schemes = (b"Bearer", b"bearer", b"BEARER", b"bEaReR")
    for i in range(100_000):
        j = i // len(schemes)
        gap = b" " + b" " * (j % 100) + b"\t" * (j // 100 % 250)
        value = schemes[i % len(schemes)] + gap + key.encode() + b" " * (i % 3)
        assert (keys.authenticate_header(value) or Identity("", "")).principal == "alice"
    key_id, secret = split(key) or ("", "")
    for i in range(100_000):
        wrong = f"sk_{key_id}_{secret[:-8]}{i:08d}" if i % 2 else f"sk_{i:012d}_{secret}"
        assert keys.authenticate_header(b"Bearer " + wrong.encode()) is None
    assert keys.remembered <= 2


async def test_the_authorization_header_is_read_whatever_its_spacing(
    metadata_db: Database, clock: FakeClock
) -> None:
    keys = KeyStore(metadata_db, clock)
    await keys.load()
    _, key = await keys.create("alice")
    k = key.encode()
    for value in (
        b"Bearer " + k,
        b"bearer\t" + k,
        b"  BEARER \t  " + k + b" \t",
        b"\tBearer\t\t" + k,
    ):
        assert (keys.authenticate_header(value) or Identity("", "")).principal == "alice", value
    for value in (
        b"Bearer" + k,  # no separator
        b"Bearer " + k + b"x",
        b"Basic " + k,
        b"Bearer " + k + b" extra",
        b"Bearer",
        b"",
        k,
    ):
        assert keys.authenticate_header(value) is None, value
    assert keys.remembered == 1


async def test_the_remembered_keys_are_bounded(metadata_db: Database, clock: FakeClock) -> None:
    keys = KeyStore(metadata_db, clock, remember=3)
    await keys.load()
    created = [(await keys.create(f"p{i}"))[1] for i in range(5)]
    for key in created * 2:
        assert (keys.authenticate(key) or Identity("", "")).principal == f"p{created.index(key)}"
        assert keys.remembered <= 3
    await keys.create("another")  # the keys changed: everything is forgotten
    assert keys.remembered == 0
