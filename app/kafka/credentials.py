"""The gateway's credentials for the brokers, from the settings (docs/kafka.md#choosing): the
TLS context of SSL and SASL_SSL, and the SASL login of SASL_PLAINTEXT and SASL_SSL.

``check`` runs when the settings are read, so that a gateway whose settings do not fit
together, or whose files cannot be read, stops at start with a message naming the variable
(``SettingsError``), before it tries a broker. The password, from the environment or its file,
appears in no message.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from app.config import Settings, SettingsError
from app.kafka.cluster import Cluster
from app.kafka.sasl import SaslLogin

TLS_PROTOCOLS = frozenset({"SSL", "SASL_SSL"})
SASL_PROTOCOLS = frozenset({"SASL_PLAINTEXT", "SASL_SSL"})


def uses_tls(settings: Settings) -> bool:
    return settings.kafka_security_protocol in TLS_PROTOCOLS


def uses_sasl(settings: Settings) -> bool:
    return settings.kafka_security_protocol in SASL_PROTOCOLS


def check(settings: Settings) -> None:
    """Refuse settings that do not fit together, and files that cannot be read."""
    protocol = f"SLUICE_KAFKA_SECURITY_PROTOCOL={settings.kafka_security_protocol}"
    sasl_set = [
        name
        for name, value in (
            ("SLUICE_KAFKA_SASL_USERNAME", settings.kafka_sasl_username),
            ("SLUICE_KAFKA_SASL_PASSWORD", settings.kafka_sasl_password),
            ("SLUICE_KAFKA_SASL_PASSWORD_FILE", settings.kafka_sasl_password_file),
        )
        if value
    ]
    tls_set = [
        name
        for name, value in (
            ("SLUICE_KAFKA_TLS_CAFILE", settings.kafka_tls_cafile),
            ("SLUICE_KAFKA_TLS_CERTFILE", settings.kafka_tls_certfile),
            ("SLUICE_KAFKA_TLS_KEYFILE", settings.kafka_tls_keyfile),
            ("SLUICE_KAFKA_TLS_CHECK_HOSTNAME", not settings.kafka_tls_check_hostname),
        )
        if value
    ]
    # a setting that would be ignored is refused: the operator meant something by it
    if sasl_set and not uses_sasl(settings):
        raise SettingsError(
            f"{', '.join(sasl_set)} set, but {protocol} logs in with no SASL "
            "(SASL_PLAINTEXT or SASL_SSL do)"
        )
    if tls_set and not uses_tls(settings):
        raise SettingsError(
            f"{', '.join(tls_set)} set, but {protocol} connects without TLS (SSL or SASL_SSL do)"
        )
    if uses_sasl(settings):
        if not settings.kafka_sasl_username:
            raise SettingsError(f"{protocol} needs SLUICE_KAFKA_SASL_USERNAME")
        if settings.kafka_sasl_password and settings.kafka_sasl_password_file:
            raise SettingsError(
                "SLUICE_KAFKA_SASL_PASSWORD and SLUICE_KAFKA_SASL_PASSWORD_FILE are both set: "
                "set one"
            )
        if not settings.kafka_sasl_password and not settings.kafka_sasl_password_file:
            raise SettingsError(
                f"{protocol} needs SLUICE_KAFKA_SASL_PASSWORD or SLUICE_KAFKA_SASL_PASSWORD_FILE"
            )
        password(settings)
    if uses_tls(settings):
        if settings.kafka_tls_keyfile and not settings.kafka_tls_certfile:
            raise SettingsError(
                "SLUICE_KAFKA_TLS_KEYFILE set without SLUICE_KAFKA_TLS_CERTFILE, its certificate"
            )
        tls_context(settings)


def password(settings: Settings) -> str:
    """The SASL password: the setting, or the contents of its file less one trailing newline."""
    if not settings.kafka_sasl_password_file:
        return settings.kafka_sasl_password
    path = settings.kafka_sasl_password_file
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        # the error names the file and why, never its contents
        reason = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise SettingsError(
            f"SLUICE_KAFKA_SASL_PASSWORD_FILE: cannot read {path}: {reason}"
        ) from None
    if text.endswith("\n"):
        text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
    if not text:
        raise SettingsError(f"SLUICE_KAFKA_SASL_PASSWORD_FILE: {path} is empty")
    return text


def sasl_login(settings: Settings) -> SaslLogin | None:
    """The login of SASL_PLAINTEXT and SASL_SSL; None for the other protocols."""
    if not uses_sasl(settings):
        return None
    return SaslLogin(
        settings.kafka_sasl_mechanism, settings.kafka_sasl_username, password(settings)
    )


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """The TLS context of SSL and SASL_SSL (None for the others): the brokers' certificates
    checked against the CA file (or the system's authorities), and their host names unless
    ``kafka_tls_check_hostname`` is false; the client certificate when one is set."""
    if not uses_tls(settings):
        return None
    cafile = settings.kafka_tls_cafile or None
    try:
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=cafile)
    except (OSError, ssl.SSLError) as e:
        raise SettingsError(
            f"SLUICE_KAFKA_TLS_CAFILE: cannot load {cafile}: {_reason(e)}"
        ) from None
    # the chain is checked either way (CERT_REQUIRED): without the name check a certificate of
    # any host the authority vouches for is taken
    context.check_hostname = settings.kafka_tls_check_hostname
    if settings.kafka_tls_certfile:
        try:
            # an encrypted key would make the library ask for its passphrase on the terminal:
            # the empty one given instead makes loading it fail with a message
            context.load_cert_chain(
                settings.kafka_tls_certfile, settings.kafka_tls_keyfile or None, password=""
            )
        except (OSError, ssl.SSLError) as e:
            raise SettingsError(
                "SLUICE_KAFKA_TLS_CERTFILE and SLUICE_KAFKA_TLS_KEYFILE: cannot load "
                f"{settings.kafka_tls_certfile}: {_reason(e)} (the key must be PEM, "
                "unencrypted, and belong to the certificate)"
            ) from None
    return context


def _reason(e: OSError) -> str:
    return str(e.strerror or e)


def cluster_for(
    settings: Settings,
    client_id: str,
    *,
    tls: ssl.SSLContext | None = None,
    login: SaslLogin | None = None,
) -> Cluster:
    """A cluster of the settings' brokers, with their TLS and login (``tls`` and ``login``
    when the caller made them once for many clusters), not started."""
    return Cluster(
        settings.kafka_bootstrap,
        client_id=client_id,
        request_timeout=settings.kafka_request_timeout_ms / 1000,
        ssl=tls if tls is not None else tls_context(settings),
        sasl=login if login is not None else sasl_login(settings),
    )
