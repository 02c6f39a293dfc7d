"""The gateway's credentials for the brokers from its settings (app/kafka/credentials.py):
settings that do not fit together stop the start with a message naming the variables; the
password read from its file; and TLS to a broker of the tests' own (its certificate checked
against the CA file and, unless turned off, the host name; a client certificate shown to a
broker that asks for one)."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.config import Settings, SettingsError
from app.kafka.connection import BrokerConnection
from app.kafka.credentials import sasl_login, tls_context
from app.kafka.protocol.errors import ConnectionClosedError
from tests.unit.kafka.fake_broker import FakeBroker
from tests.unit.kafka.pki import Pki, make_pki

KAFKA = {"SLUICE_BACKEND": "kafka", "SLUICE_KAFKA_BOOTSTRAP": "127.0.0.1:9092"}
SECRET = "s3cret-of-the-tests"


def settings(**env: str) -> Settings:
    return Settings.from_env({**KAFKA, **{"SLUICE_" + k.upper(): v for k, v in env.items()}})


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"kafka_security_protocol": "SASL_SSL", "kafka_sasl_password": SECRET},
            "SLUICE_KAFKA_SECURITY_PROTOCOL=SASL_SSL needs SLUICE_KAFKA_SASL_USERNAME",
        ),
        (
            {"kafka_security_protocol": "SASL_PLAINTEXT", "kafka_sasl_username": "gw"},
            "needs SLUICE_KAFKA_SASL_PASSWORD or SLUICE_KAFKA_SASL_PASSWORD_FILE",
        ),
        (
            {
                "kafka_security_protocol": "SASL_PLAINTEXT",
                "kafka_sasl_username": "gw",
                "kafka_sasl_password": SECRET,
                "kafka_sasl_password_file": "/nonexistent/password",
            },
            "SLUICE_KAFKA_SASL_PASSWORD and SLUICE_KAFKA_SASL_PASSWORD_FILE are both set",
        ),
        (
            {
                "kafka_security_protocol": "SASL_PLAINTEXT",
                "kafka_sasl_username": "gw",
                "kafka_sasl_password_file": "/nonexistent/password",
            },
            "SLUICE_KAFKA_SASL_PASSWORD_FILE: cannot read /nonexistent/password: "
            "No such file or directory",
        ),
        (
            {"kafka_sasl_username": "gw", "kafka_sasl_password": SECRET},
            "SLUICE_KAFKA_SASL_USERNAME, SLUICE_KAFKA_SASL_PASSWORD set, but "
            "SLUICE_KAFKA_SECURITY_PROTOCOL=PLAINTEXT logs in with no SASL",
        ),
        (
            {
                "kafka_security_protocol": "SASL_PLAINTEXT",
                "kafka_tls_check_hostname": "false",
                "kafka_sasl_username": "gw",
                "kafka_sasl_password": SECRET,
            },
            "SLUICE_KAFKA_TLS_CHECK_HOSTNAME set, but "
            "SLUICE_KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT connects without TLS",
        ),
        (
            {"kafka_security_protocol": "SSL", "kafka_tls_keyfile": "/k.pem"},
            "SLUICE_KAFKA_TLS_KEYFILE set without SLUICE_KAFKA_TLS_CERTFILE",
        ),
        (
            {"kafka_security_protocol": "SSL", "kafka_tls_cafile": "/nonexistent/ca.pem"},
            "SLUICE_KAFKA_TLS_CAFILE: cannot load /nonexistent/ca.pem: No such file",
        ),
        (
            {"kafka_security_protocol": "SASL_SSL", "kafka_sasl_mechanism": "GSSAPI"},
            "SLUICE_KAFKA_SASL_MECHANISM='GSSAPI': expected one of",
        ),
    ],
)
def test_settings_that_do_not_fit_together_stop_the_start(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as info:
        settings(**env)
    assert message in str(info.value)
    assert SECRET not in str(info.value)


def test_a_certificate_without_its_key_stops_the_start(pki: Pki) -> None:
    with pytest.raises(SettingsError, match="SLUICE_KAFKA_TLS_CERTFILE and SLUICE_KAFKA_TLS_KEY"):
        settings(kafka_security_protocol="SSL", kafka_tls_certfile=str(pki.client_cert))


def test_the_password_is_read_from_its_file_and_kept_out_of_the_settings_repr(
    tmp_path: Path,
) -> None:
    path = tmp_path / "password"
    path.write_text(SECRET + "\n")
    s = settings(
        kafka_security_protocol="SASL_SSL",
        kafka_sasl_username="gw",
        kafka_sasl_password_file=str(path),
    )
    login = sasl_login(s)
    assert login is not None
    assert (login.mechanism, login.username, login.password) == ("SCRAM-SHA-512", "gw", SECRET)
    # a password given in the environment is never in the settings' representation
    direct = settings(
        kafka_security_protocol="SASL_PLAINTEXT",
        kafka_sasl_username="gw",
        kafka_sasl_password=SECRET,
    )
    assert SECRET not in repr(direct) and SECRET not in repr(sasl_login(direct))
    path.write_text("\n")
    with pytest.raises(SettingsError, match="password is empty"):
        settings(
            kafka_security_protocol="SASL_SSL",
            kafka_sasl_username="gw",
            kafka_sasl_password_file=str(path),
        )


def test_plaintext_has_neither_tls_nor_a_login() -> None:
    s = settings()
    assert tls_context(s) is None and sasl_login(s) is None


# -- TLS to a broker ------------------------------------------------------------------------


def server_side(pki: Pki, *, client_cert: bool = False) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.broker_cert, pki.broker_key)
    if client_cert:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(pki.ca)
    return context


@pytest.fixture
async def tls_broker(pki: Pki) -> AsyncIterator[FakeBroker]:
    b = await FakeBroker(tls=server_side(pki)).start()
    yield b
    await b.stop()


async def open_with(broker: FakeBroker, s: Settings, host: str = "127.0.0.1") -> None:
    conn = await BrokerConnection.open(host, broker.port, ssl=tls_context(s))
    assert conn.versions  # ApiVersions answered over TLS
    await conn.close()


async def test_tls_checks_the_brokers_certificate_against_the_ca_file(
    pki: Pki, tls_broker: FakeBroker
) -> None:
    await open_with(
        tls_broker, settings(kafka_security_protocol="SSL", kafka_tls_cafile=str(pki.ca))
    )
    # the name "localhost" is in the certificate too
    await open_with(
        tls_broker,
        settings(kafka_security_protocol="SSL", kafka_tls_cafile=str(pki.ca)),
        host="localhost",
    )
    # without the CA file, the system's authorities do not vouch for the test's
    with pytest.raises(ConnectionClosedError, match=r"TLS with 127\.0\.0\.1:.* failed.*verify"):
        await open_with(tls_broker, settings(kafka_security_protocol="SSL"))


async def test_a_certificate_for_another_name_is_refused_unless_the_check_is_off(
    tmp_path: Path,
) -> None:
    other = make_pki(tmp_path, broker_names="DNS:broker-7.internal")
    broker = await FakeBroker(tls=server_side(other)).start()
    try:
        checked = settings(kafka_security_protocol="SSL", kafka_tls_cafile=str(other.ca))
        with pytest.raises(
            ConnectionClosedError, match=r"TLS with .* failed.*(IP address|hostname)"
        ):
            await open_with(broker, checked)
        await open_with(
            broker,
            settings(
                kafka_security_protocol="SSL",
                kafka_tls_cafile=str(other.ca),
                kafka_tls_check_hostname="false",
            ),
        )
    finally:
        await broker.stop()


async def test_a_client_certificate_is_shown_to_a_broker_that_asks(pki: Pki) -> None:
    broker = await FakeBroker(tls=server_side(pki, client_cert=True)).start()
    try:
        with_cert = settings(
            kafka_security_protocol="SSL",
            kafka_tls_cafile=str(pki.ca),
            kafka_tls_certfile=str(pki.client_cert),
            kafka_tls_keyfile=str(pki.client_key),
        )
        await open_with(broker, with_cert)
        without = settings(kafka_security_protocol="SSL", kafka_tls_cafile=str(pki.ca))
        # TLS 1.3: the broker refuses the handshake after the client finished its side, so
        # the refusal comes with the first answer read
        with pytest.raises(ConnectionClosedError):
            await open_with(broker, without)
    finally:
        await broker.stop()
