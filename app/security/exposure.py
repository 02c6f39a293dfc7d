"""The safe default of ``serve``: without API keys, only loopback.

A server whose data directory holds no API key serves everyone anonymously; that is only
allowed on a loopback address, unless the operator says otherwise (``--allow-anonymous``,
``SLUICE_ALLOW_ANONYMOUS``). TLS needs its certificate and key together, both readable.
"""

from __future__ import annotations

import ipaddress
import os
import sqlite3
from collections.abc import Callable

from app.config import Settings

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost: it may resolve to anything


def has_keys(metadata_path: str) -> bool:
    """Whether the metadata database holds an API key (revoked ones count: keys stay
    required). Read-only; a database that does not exist yet holds none."""
    if not os.path.exists(metadata_path):
        return False
    conn = sqlite3.connect(f"file:{metadata_path}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # migrations not applied yet: no table, no keys
        return False
    finally:
        conn.close()


def refusal(settings: Settings, keyed: Callable[[], bool]) -> str | None:
    """Why ``serve`` must not start with these settings, or None. ``keyed`` tells whether
    the server has an API key (asked only for an address other than loopback): the data
    directory's metadata database, or on the Kafka backend the cluster's keys."""
    if bool(settings.tls_certfile) != bool(settings.tls_keyfile):
        return "TLS needs both --tls-certfile and --tls-keyfile (SLUICE_TLS_CERTFILE/KEYFILE)"
    for path in (settings.tls_certfile, settings.tls_keyfile):
        if path and not os.access(path, os.R_OK):
            return f"cannot read the TLS file {path}"
    if is_loopback(settings.host) or settings.allow_anonymous:
        return None
    if keyed():
        return None
    where = (
        "--kafka-bootstrap of the same cluster"
        if settings.backend == "kafka"
        else "the same --data-dir"
    )
    return (
        f"refusing to serve on {settings.host} without API keys: anyone who can reach it could "
        "read, write and delete everything. Create a key first (python -m app keys create "
        f"--principal NAME, on {where}), bind a loopback address, or pass "
        "--allow-anonymous (SLUICE_ALLOW_ANONYMOUS=true) to serve without keys anyway"
    )
