"""Server settings: one frozen object, read once from ``SLUICE_*`` variables and flags.

Every field has a default, a line of documentation and bounds; ``Settings.from_env`` refuses
values outside them with a message naming the variable.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
DAY_MS = 24 * 60 * 60 * 1000


def _setting(
    default: Any,
    doc: str,
    lo: int | None = None,
    hi: int | None = None,
    choices: tuple[str, ...] | None = None,
    secret: bool = False,
) -> Any:
    # a secret stays out of the object's representation, so that no log or traceback shows it
    return field(
        default=default,
        repr=not secret,
        metadata={"doc": doc, "lo": lo, "hi": hi, "choices": choices},
    )


_BOOLEANS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


class SettingsError(ValueError):
    """A setting is missing its form or is out of bounds."""


@dataclass(frozen=True)
class Settings:
    backend: str = _setting(
        "embedded",
        "'embedded': the server's own log, metadata database and data directory; 'kafka': a "
        "gateway serving the same routes from the Kafka cluster of kafka_bootstrap, with no "
        "data directory (docs/kafka.md says which routes it serves)",
        choices=("embedded", "kafka"),
    )
    kafka_bootstrap: str = _setting(
        "",
        "brokers the Kafka backend connects to first, 'host:port,host:port' (required with "
        "backend=kafka)",
    )
    kafka_request_timeout_ms: int = _setting(
        30_000,
        "how long the Kafka backend waits for a broker's answer to one request (a long poll's "
        "wait comes on top)",
        100,
        600_000,
    )
    kafka_security_protocol: str = _setting(
        "PLAINTEXT",
        "how the Kafka backend connects to the brokers: PLAINTEXT, SSL (TLS), SASL_PLAINTEXT "
        "(a SASL login without TLS) or SASL_SSL (a SASL login over TLS)",
        choices=("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
    )
    kafka_sasl_mechanism: str = _setting(
        "SCRAM-SHA-512",
        "the SASL mechanism of the Kafka backend's login (SASL_PLAINTEXT, SASL_SSL)",
        choices=("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"),
    )
    kafka_sasl_username: str = _setting(
        "", "the user the Kafka backend logs in to the brokers as (required with SASL)"
    )
    kafka_sasl_password: str = _setting(
        "",
        "that user's password (or kafka_sasl_password_file); never logged nor answered",
        secret=True,
    )
    kafka_sasl_password_file: str = _setting(
        "",
        "a file holding that user's password (one trailing newline is not part of it), read at "
        "start, so that the password need not be in the environment",
    )
    kafka_tls_cafile: str = _setting(
        "",
        "PEM certificates of the authorities that vouch for the brokers (SSL, SASL_SSL); "
        "empty: the system's",
    )
    kafka_tls_certfile: str = _setting(
        "",
        "PEM certificate (chain) the Kafka backend shows brokers that ask for one; empty: none",
    )
    kafka_tls_keyfile: str = _setting(
        "", "PEM private key of kafka_tls_certfile, unencrypted (empty: in kafka_tls_certfile)"
    )
    kafka_tls_check_hostname: bool = _setting(
        True,
        "whether a broker's certificate must name the host it was reached by (its bootstrap or "
        "advertised address); its chain is checked either way",
    )
    gateway_advertised_url: str = _setting(
        "",
        "the address other gateways of the cluster reach this gateway at, 'http://host:port' "
        "(backend=kafka; empty: http://<host>:<port> it serves on, the machine's name for a "
        "wildcard host); a share-group member's requests that reach another gateway are "
        "forwarded there",
    )
    host: str = _setting("127.0.0.1", "address to listen on")
    port: int = _setting(8080, "port to listen on", 0, 65535)
    data_dir: str = _setting("./data", "directory holding the logs and the metadata database")
    fsync: str = _setting(
        "always",
        "'always': every answered write is fsynced (group commit); 'interval': fsync every "
        "fsync_interval_ms, faster, may lose the last interval on power loss, never corrupts",
        choices=("always", "interval"),
    )
    fsync_interval_ms: int = _setting(200, "fsync period when fsync=interval", 1, 60_000)
    max_request_bytes: int = _setting(16 * MiB, "largest request body", 1 * KiB, 1 * GiB)
    # connections (app/api/connections.py) and request bodies (app/api/deps.py)
    max_connections: int = _setting(
        10_000,
        "most open connections, WebSockets included; at the limit a new connection closes the "
        "one that has waited longest for a request (the open-files limit is raised to fit)",
        16,
        1_000_000,
    )
    header_timeout_ms: int = _setting(
        10_000,
        "a connection must send a request's line and headers within this long of opening or "
        "of its previous answer (408 and closed otherwise)",
        100,
        600_000,
    )
    body_timeout_ms: int = _setting(
        60_000,
        "a request body must arrive within this long of its headers (408 and closed otherwise)",
        100,
        3_600_000,
    )
    max_header_bytes: int = _setting(
        64 * KiB, "largest request line and headers (431 and closed above)", 1 * KiB, 1 * MiB
    )
    max_headers: int = _setting(
        100, "most header fields of a request (431 and closed above)", 8, 10_000
    )
    # the parse of a JSON body or frame (app/api/wire/bounded_json.py): the parser builds an
    # object of about 100 bytes for every value, however few bytes it takes on the wire
    max_json_values: int = _setting(
        1_000_000,
        "most JSON values (array items, object members and their keys) of a request body or "
        "WebSocket frame, counted before it is parsed (413 REQUEST_TOO_COMPLEX above): 100 a "
        "record for a produce request of 10,000 records",
        1000,
        100_000_000,
    )
    max_json_depth: int = _setting(
        64,
        "deepest nesting of arrays and objects in a request body or WebSocket frame, record "
        "values included (413 REQUEST_TOO_COMPLEX above); at most 200, so that a record value "
        "sent as JSON can be read back as JSON",
        8,
        200,
    )
    max_record_bytes: int = _setting(
        1 * MiB, "largest record (key + value + headers)", 64, 64 * MiB
    )
    max_records_per_request: int = _setting(
        10_000, "most records in one produce request", 1, 1_000_000
    )
    max_read_records: int = _setting(10_000, "max_records above this is clamped", 1, 1_000_000)
    max_wait_ms: int = _setting(
        60_000, "longer max_wait_ms of long polls is clamped to this", 0, 600_000
    )
    idempotency_key_retention_ms: int = _setting(
        DAY_MS, "how long an Idempotency-Key is remembered", 1000, 30 * DAY_MS
    )
    retention_check_interval_ms: int = _setting(
        60_000, "how often retention deletes old segments", 100, DAY_MS
    )
    checkpoint_interval_ms: int = _setting(
        1000, "how often the recovery checkpoint is written", 10, 3_600_000
    )
    max_partitions: int = _setting(1000, "most partitions a topic may have", 1, 100_000)
    default_partitions: int = _setting(
        1, "partitions of a topic created without a count", 1, 100_000
    )
    # idempotent producer and transactions
    producer_id_expiration_ms: int = _setting(
        DAY_MS,
        "producer state of a partition is forgotten after this long without writes "
        "(never while its transaction is open)",
        1000,
        365 * DAY_MS,
    )
    producer_id_block_size: int = _setting(
        1000, "producer ids reserved in the metadata at a time", 1, 1_000_000
    )
    txn_timeout_check_interval_ms: int = _setting(
        10_000, "how often timed-out transactions are aborted", 10, 3_600_000
    )
    txn_answer: str = _setting(
        "complete",
        "when a commit or abort is answered: 'prepare', once the decision is durable (the "
        "markers follow at once; later requests of the same transactional id wait for them), "
        "or 'complete', once the markers and the participants' endings are durable too",
        choices=("prepare", "complete"),
    )
    txn_max_timeout_ms: int = _setting(
        900_000, "largest transaction_timeout_ms accepted", 1000, 7 * DAY_MS
    )
    transactional_id_expiration_ms: int = _setting(
        7 * DAY_MS,
        "a transactional id idle this long with no transaction open is forgotten",
        1000,
        365 * DAY_MS,
    )
    txn_max_partitions: int = _setting(
        10_000, "most partitions one transaction may write", 1, 1_000_000
    )
    txn_commit_all_max: int = _setting(
        1000, "most transactions one POST /v1/transactions:commit-all may commit", 1, 100_000
    )
    txn_commit_key_retention_ms: int = _setting(
        7 * DAY_MS,
        "how long the idempotency key of a POST /v1/transactions:commit-all is remembered",
        1000,
        90 * DAY_MS,
    )
    log_level: str = _setting("info", "log level", choices=("debug", "info", "warning", "error"))
    events_interval_ms: int = _setting(
        500,
        "how often the event feed (WebSocket /v1/events) publishes changes to its sockets",
        50,
        10_000,
    )
    # consumer groups
    group_session_timeout_ms: int = _setting(
        45_000, "consumer-group members silent this long are removed", 1000, 3_600_000
    )
    group_heartbeat_interval_ms: int = _setting(
        5000, "heartbeat interval told to consumer-group members", 1000, 3_600_000
    )
    group_max_size: int = _setting(1000, "most members of one consumer group", 1, 1_000_000)
    # share groups
    share_session_timeout_ms: int = _setting(
        45_000,
        "a share-group member that neither heartbeats nor fetches for this long is removed",
        1000,
        3_600_000,
    )
    share_heartbeat_interval_ms: int = _setting(
        5000, "heartbeat interval told to share-group members", 100, 3_600_000
    )
    share_record_lock_duration_ms: int = _setting(
        30_000, "default acquisition lock of share groups", 1000, 3_600_000
    )
    share_min_record_lock_duration_ms: int = _setting(
        1000, "smallest record_lock_duration_ms a share group may set", 1000, 3_600_000
    )
    share_max_record_lock_duration_ms: int = _setting(
        3_600_000, "largest record_lock_duration_ms a share group may set", 1000, 3_600_000
    )
    share_delivery_count_limit: int = _setting(
        5, "default delivery limit of share groups (group config bounds 2-10)", 2, 10
    )
    share_partition_max_record_locks: int = _setting(
        2000, "default in-flight window per share partition (bounds 100-10000)", 100, 10_000
    )
    share_max_group_size: int = _setting(200, "members per share group", 1, 100_000)
    share_max_release_delay_ms: int = _setting(
        DAY_MS, "largest delay_ms of a share-group release", 0, 30 * DAY_MS
    )
    # WebSocket push sessions
    ws_max_frame_bytes: int = _setting(
        1 * MiB,
        "largest frame a WebSocket client may send (larger closes with 1009)",
        1 * KiB,
        64 * MiB,
    )
    ws_allowed_origins: str = _setting(
        "",
        "origins of other sites whose pages may open WebSockets and, on a server without API "
        "keys, send requests that change something, comma-separated (e.g. "
        "'https://ops.example.com'), or '*' for any; pages of this server always may",
    )
    super_users: str = _setting(
        "",
        "principals that every ACL check allows, comma-separated (e.g. 'admin,ops')",
    )
    ws_max_credits: int = _setting(
        10_000,
        "widest credit window of a push session (larger credits are clamped)",
        1,
        1_000_000,
    )
    # security (docs/security.md)
    allow_anonymous: bool = _setting(
        False,
        "serve without API keys on an address other than loopback (otherwise the server "
        "refuses to start while no key exists)",
    )
    allowed_hosts: str = _setting(
        "",
        "host names besides localhost, 127.0.0.1 and [::1] by which a server without API keys "
        "may be reached (the Host of its requests), comma-separated (e.g. 'sluice.internal'), "
        "or '*' for any",
    )
    ws_token_ttl_ms: int = _setting(
        30_000,
        "how long a token of POST /v1/auth/ws-token may open a WebSocket",
        1000,
        600_000,
    )
    tls_certfile: str = _setting(
        "", "PEM certificate (chain) to serve HTTPS and wss:// with; empty: plain HTTP"
    )
    tls_keyfile: str = _setting("", "PEM private key of tls_certfile")
    # quotas (docs/security.md#quotas)
    quota_producer_byte_rate: int = _setting(
        0,
        "produce quota of every principal without its own, in bytes/s (0: unlimited); own "
        "quotas: python -m app quotas set",
        0,
        2**40,
    )
    quota_consumer_byte_rate: int = _setting(
        0,
        "fetch quota (reads, share fetches, WebSocket pushes) of every principal without its "
        "own, in bytes/s (0: unlimited)",
        0,
        2**40,
    )
    quota_windows: int = _setting(
        11,
        "sample windows over which a quota's rate is measured (Kafka's quota.window.num)",
        2,
        100,
    )
    quota_window_ms: int = _setting(
        1000, "length of one quota sample window (Kafka's quota.window.size.seconds)", 10, 60_000
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read ``SLUICE_<FIELD>`` variables; explicit overrides (flags) win."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            name = "SLUICE_" + f.name.upper()
            if f.name in overrides and overrides[f.name] is not None:
                values[f.name] = overrides[f.name]
            elif name in env:
                raw = env[name]
                if f.type in ("bool", bool):
                    if raw.strip().lower() not in _BOOLEANS:
                        raise SettingsError(f"{name}={raw!r} is not a boolean (true or false)")
                    values[f.name] = _BOOLEANS[raw.strip().lower()]
                elif f.type in ("int", int):
                    try:
                        values[f.name] = int(raw)
                    except ValueError:
                        raise SettingsError(f"{name}={raw!r} is not an integer") from None
                else:
                    values[f.name] = raw
        return cls(**values)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            meta = f.metadata
            name = "SLUICE_" + f.name.upper()
            if meta["choices"] is not None and value not in meta["choices"]:
                raise SettingsError(f"{name}={value!r}: expected one of {meta['choices']}")
            if meta["lo"] is not None and not meta["lo"] <= value <= meta["hi"]:
                raise SettingsError(f"{name}={value!r}: expected {meta['lo']} to {meta['hi']}")
        if self.backend == "kafka":
            if not self.kafka_bootstrap.strip():
                raise SettingsError(
                    "SLUICE_BACKEND=kafka needs SLUICE_KAFKA_BOOTSTRAP (host:port,...)"
                )
            # imported here: the embedded server never loads the Kafka client
            from app.kafka.cluster import parse_bootstrap

            try:
                parse_bootstrap(self.kafka_bootstrap)
            except ValueError as exc:
                raise SettingsError(f"SLUICE_KAFKA_BOOTSTRAP: {exc}") from None
            from app.kafka.credentials import check

            check(self)
            url = self.gateway_advertised_url
            scheme, _, rest = url.partition("://")
            if url and (scheme not in ("http", "https") or not rest.strip("/")):
                raise SettingsError(
                    f"SLUICE_GATEWAY_ADVERTISED_URL={url!r}: expected http://host:port"
                )

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def describe() -> list[tuple[str, Any, str]]:
    """(variable, default, doc) of every setting, for `serve --help` and the README."""
    return [
        ("SLUICE_" + f.name.upper(), f.default, f.metadata["doc"])
        for f in dataclasses.fields(Settings)
    ]
