"""API keys: who a request is, checked in a dictionary lookup (docs/security.md).

A key is ``sk_<key_id>_<secret>``: a 12-character id and 256 random bits, both in URL-safe
base64, so every character is valid in an HTTP token (a key can travel in
``Sec-WebSocket-Protocol``). The table ``api_keys`` keeps the id, the principal the key names,
a random salt and ``sha256(salt || secret)``, never the secret. A slow password hash would add
nothing: a secret of 256 random bits cannot be guessed however fast the hash is, and a slow one
would cost every new connection its time.

``KeyStore`` holds the rows in memory. ``authenticate`` is a dictionary lookup for a key it has
verified before; an unseen key is verified (its hash compared with ``hmac.compare_digest``; an
unknown id is compared against a dummy so that the time taken does not tell which ids exist)
and remembered, once per key however its ``Authorization`` header was spelt, and at most
``REMEMBERED_KEYS`` of them (the oldest is forgotten first). Invalid values are never
remembered. Revoking a key, here or from another process (the ``keys`` command, seen by
``watch`` within about a second), forgets every verified key and closes the sockets opened with
the revoked one (``OpenSockets``).

Keys are required as soon as the table holds a row, revoked or not: revoking every key never
opens the server to anonymous access again.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.clock import Clock
from app.errors import ErrorCode, InvalidRequest, NotFound
from app.metadata.db import Database
from app.security.open_sockets import KEY_ID, REQUIRED, REVOKED, OpenSockets

__all__ = ["KEY_ID", "Identity", "KeyRow", "KeyStore"]

T = TypeVar("T")

PREFIX = "sk_"
ID_CHARS = 12  # letters and digits: 71 bits; never a leading "-" that a command line would
# take for an option
_ID_ALPHABET = string.ascii_letters + string.digits
SECRET_BYTES = 32  # 256 bits: 43 characters
SALT_BYTES = 16
PRINCIPAL_PATTERN = re.compile(r"^[A-Za-z0-9._@:-]{1,255}$")
_KEY_SHAPE = re.compile(r"^sk_[A-Za-z0-9_-]{12}_[A-Za-z0-9_-]{43}$")
_DUMMY_SALT = os.urandom(SALT_BYTES)
_DUMMY_HASH = hashlib.sha256(_DUMMY_SALT + os.urandom(SECRET_BYTES)).digest()
WATCH_INTERVAL_S = 1.0
# Verified keys remembered at most: a remembered key costs about 300 bytes, and only an active
# key can be remembered, so this bounds the memory even of a server with very many keys.
REMEMBERED_KEYS = 10_000
BEARER = b"Bearer "  # how clients spell the scheme: the header value as it comes is the entry
_BLANKS = b" \t"


def digest(salt: bytes, secret: str) -> bytes:
    return hashlib.sha256(salt + secret.encode()).digest()


def new_key() -> tuple[str, str, str]:
    """(key id, secret, the key as clients send it) of a fresh key."""
    key_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(ID_CHARS))
    secret = secrets.token_urlsafe(SECRET_BYTES)
    return key_id, secret, f"{PREFIX}{key_id}_{secret}"


def bearer_key(value: bytes) -> bytes | None:
    """The key of an ``Authorization`` value ``Bearer <key>``: the scheme in any case, any run
    of spaces or tabs after it, whitespace around the whole ignored; None for any other
    value."""
    value = value.strip(_BLANKS)
    if value[:6].lower() != b"bearer":
        return None
    key = value[6:].lstrip(_BLANKS)
    if not key or len(key) == len(value) - 6:  # nothing after the scheme, or no blank
        return None
    return key


def split(key: str) -> tuple[str, str] | None:
    """(key id, secret) of a string shaped like a key, None otherwise."""
    if _KEY_SHAPE.match(key) is None:
        return None
    return key[3 : 3 + ID_CHARS], key[4 + ID_CHARS :]


def check_principal(principal: object) -> str:
    if not isinstance(principal, str) or PRINCIPAL_PATTERN.match(principal) is None:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST,
            "principal must be 1 to 255 characters of letters, digits and ._@:-",
        )
    return principal


def check_description(description: object) -> str:
    if not isinstance(description, str) or len(description) > 1000:
        raise InvalidRequest(
            ErrorCode.INVALID_REQUEST, "description must be a string of at most 1000 characters"
        )
    return description


@dataclass(frozen=True, slots=True)
class KeyRow:
    key_id: str
    principal: str
    salt: bytes
    hash: bytes
    description: str
    created_ms: int
    revoked_ms: int | None

    def public(self) -> dict[str, Any]:
        """What may be shown of a key: never its salt or hash."""
        return {
            "key_id": self.key_id,
            "principal": self.principal,
            "description": self.description,
            "created_ms": self.created_ms,
            "revoked_ms": self.revoked_ms,
        }


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a verified key is."""

    key_id: str
    principal: str


# --- statements, on any sqlite3 connection (the server's or the keys command's) ---


def select_keys(conn: sqlite3.Connection) -> list[KeyRow]:
    rows = conn.execute(
        "SELECT key_id, principal, salt, hash, description, created_ms, revoked_ms"
        " FROM api_keys ORDER BY created_ms, key_id"
    ).fetchall()
    return [KeyRow(*row) for row in rows]


def insert_key(
    conn: sqlite3.Connection, principal: str, description: str, now_ms: int
) -> tuple[KeyRow, str]:
    """A new key for ``principal``: its row and the key itself (shown once)."""
    key_id, secret, key = new_key()
    salt = os.urandom(SALT_BYTES)
    row = KeyRow(key_id, principal, salt, digest(salt, secret), description, now_ms, None)
    conn.execute(
        "INSERT INTO api_keys (key_id, principal, salt, hash, description, created_ms)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (row.key_id, row.principal, row.salt, row.hash, row.description, row.created_ms),
    )
    return row, key


def revoke_key(conn: sqlite3.Connection, key_id: str, now_ms: int) -> bool:
    """Revoke a key; False when there is no such key. Revoking twice keeps the first time."""
    found = conn.execute("SELECT 1 FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
    if found is None:
        return False
    conn.execute(
        "UPDATE api_keys SET revoked_ms = ? WHERE key_id = ? AND revoked_ms IS NULL",
        (now_ms, key_id),
    )
    return True


class KeyStore:
    def __init__(self, db: Database, clock: Clock, remember: int = REMEMBERED_KEYS) -> None:
        self.db = db
        self.clock = clock
        self.sockets = OpenSockets(self._socket_closed)
        # until loaded, nothing but the public paths is served
        self.required = True
        self._rows: dict[str, KeyRow] = {}
        # verified keys, each under ``Bearer <key>``: the header value itself in the usual
        # spelling, so that a request costs one lookup. Insertion order is age: the oldest
        # entry is the first one dropped when the table is full.
        self._known: dict[bytes, Identity] = {}
        self._remember = remember
        self._data_version: int | None = None
        self._loaded = False

    @property
    def remembered(self) -> int:
        """How many verified keys are remembered (at most ``remember``)."""
        return len(self._known)

    # --- the hot path ---

    def authenticate_header(self, value: bytes) -> Identity | None:
        """Who an ``Authorization`` header value (``Bearer <key>``) is: for a key verified
        before and spelt the usual way, one dictionary lookup of the value as it came."""
        found = self._known.get(value)
        if found is not None:
            return found
        key = bearer_key(value)
        return None if key is None else self._identify(key)

    def authenticate(self, key: str) -> Identity | None:
        """Who ``key`` is; None for anything but an active key."""
        try:
            return self._identify(key.encode("latin-1"))
        except UnicodeEncodeError:
            return None  # not a key: keys are ASCII

    def _identify(self, key: bytes) -> Identity | None:
        entry = BEARER + key
        found = self._known.get(entry)
        if found is not None:
            return found
        found = self._verify(key.decode("latin-1"))
        if found is not None:
            if len(self._known) >= self._remember:
                del self._known[next(iter(self._known))]
            self._known[entry] = found
        return found

    def _verify(self, key: str) -> Identity | None:
        parts = split(key)
        key_id, secret = parts if parts is not None else ("", key)
        row = self._rows.get(key_id)
        salt, expected = (row.salt, row.hash) if row is not None else (_DUMMY_SALT, _DUMMY_HASH)
        matches = hmac.compare_digest(digest(salt, secret), expected)
        if row is None or not matches or row.revoked_ms is not None:
            return None
        return Identity(row.key_id, row.principal)

    def active(self, key_id: str) -> bool:
        row = self._rows.get(key_id)
        return row is not None and row.revoked_ms is None

    def _socket_closed(self, key_id: str | None) -> str | None:
        """Why a socket opened with ``key_id`` must close now (None: it may stay)."""
        if key_id is None:
            return REQUIRED if self.required and self._loaded else None
        return None if self.active(key_id) else REVOKED

    # --- changes ---

    async def load(self) -> None:
        """Read every key; forget what was verified; close the sockets of revoked keys."""
        rows = await self._read(select_keys)
        self._apply(rows)

    def _apply(self, rows: list[KeyRow]) -> None:
        if self._loaded and rows == list(self._rows.values()):
            return  # another table changed (the server's own writes): keep what is verified
        self._loaded = True
        self._rows = {r.key_id: r for r in rows}
        self._known = {}
        self.required = bool(rows)
        gone = {r.key_id for r in rows if r.revoked_ms is not None}
        self.sockets.revoke(gone, anonymous=self.required)

    async def create(self, principal: str, description: str = "") -> tuple[KeyRow, str]:
        name, text = check_principal(principal), check_description(description)
        now = self.clock.now_ms()
        row, key = await self.db.run(lambda conn: insert_key(conn, name, text, now))
        await self.load()
        return row, key

    async def revoke(self, key_id: str) -> None:
        now = self.clock.now_ms()
        if not await self.db.run(lambda conn: revoke_key(conn, key_id, now)):
            raise NotFound(ErrorCode.NOT_FOUND, f"no API key {key_id!r}")
        await self.load()

    def list(self) -> list[KeyRow]:
        return list(self._rows.values())

    async def watch(self) -> None:
        """Reload the keys whenever another connection (the ``keys`` command) changed the
        database: ``PRAGMA data_version`` on the read connection, about once a second."""
        while True:
            await asyncio.sleep(WATCH_INTERVAL_S)
            await self.reload_if_changed()

    async def reload_if_changed(self) -> bool:
        version = await self._read(_data_version)
        if version == self._data_version:
            return False
        self._data_version = version
        await self.load()
        return True

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self.db.reader.run(fn)


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])
