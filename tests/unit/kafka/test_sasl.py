"""The gateway's SASL login (app/kafka/sasl.py): SCRAM's messages against the examples of RFC
5802 (SHA-1) and RFC 7677 (SHA-256) byte for byte, SCRAM-SHA-512 against a broker's side
written from the RFC (tests/unit/kafka/scram_server.py), and the whole login over a connection
to a broker of the tests' own: PLAIN and SCRAM accepted, and every refusal an
AuthenticationError that names the user and the mechanism and never the password."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator

import pytest

from app.errors import ErrorCode
from app.kafka.cluster import Cluster
from app.kafka.connection import BrokerConnection
from app.kafka.errors_map import from_protocol
from app.kafka.protocol.errors import (
    SASL_AUTHENTICATION_FAILED,
    UNSUPPORTED_SASL_MECHANISM,
    AuthenticationError,
    ConnectionClosedError,
)
from app.kafka.protocol.messages import (
    MetadataRequest,
    MetadataResponse,
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)
from app.kafka.sasl import SaslLogin, ScramClient, ScramError, plain_message
from tests.unit.kafka.fake_broker import WAIT, FakeBroker
from tests.unit.kafka.scram_server import ScramServer

PASSWORD = "pencil-of-the-tests"


def test_scram_sha_1_is_the_example_of_rfc_5802() -> None:
    client = ScramClient("SCRAM-SHA-1", "user", "pencil", nonce="fyko+d2lbbFgONRv9qkxdawL")
    assert client.first() == b"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"
    final = client.final(b"r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
    assert final == (
        b"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
    )
    client.verify(b"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")


def test_scram_sha_256_is_the_example_of_rfc_7677() -> None:
    client = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    assert client.first() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    final = client.final(
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    assert final == (
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    client.verify(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
    # a signature of another exchange is refused: the broker must know the password
    with pytest.raises(ScramError, match="signature is wrong"):
        client.verify(b"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")


def scram_sha_512_server(password: str = PASSWORD) -> ScramServer:
    return ScramServer("sha512", "gw,user=1", password, b"salt-of-the-test", 4096, "srv-nonce")


def test_scram_sha_512_round_trip_with_the_brokers_side() -> None:
    # ',' and '=' in the name travel as =2C and =3D
    server = scram_sha_512_server()
    client = ScramClient("SCRAM-SHA-512", "gw,user=1", PASSWORD)
    assert client.first().startswith(b"n,,n=gw=2Cuser=3D1,r=")
    server.username = "gw=2Cuser=3D1"
    final = server.final(client.final(server.first(client.first())))
    assert final is not None
    client.verify(final)
    # the wrong password: the broker refuses the proof
    wrong = ScramClient("SCRAM-SHA-512", "gw,user=1", "not-" + PASSWORD)
    assert server.final(wrong.final(server.first(wrong.first()))) is None


@pytest.mark.parametrize(
    ("server_first", "error"),
    [
        (b"r=someone-elses,s=c2FsdA==,i=4096", "nonce does not extend"),
        (b"r=NONCE,s=c2FsdA==,i=4096", "nonce does not extend"),  # not extended at all
        (b"r=NONCEmore,s=c2FsdA==,i=1", "iterations"),
        (b"r=NONCEmore,s=c2FsdA==,i=100000000", "iterations"),  # would hold the loop
        (b"r=NONCEmore,s=!!,i=4096", "not base64"),
        (b"r=NONCEmore,i=4096", "lacks r, s or i"),
        (b"e=unknown-user", "refused the login: unknown-user"),
        (b"m=ext,r=NONCEmore,s=c2FsdA==,i=4096", "extension"),
    ],
)
def test_a_first_server_message_off_the_exchange_is_refused(
    server_first: bytes, error: str
) -> None:
    client = ScramClient("SCRAM-SHA-256", "user", PASSWORD, nonce="NONCE")
    with pytest.raises(ScramError, match=error):
        client.final(server_first)


def test_plain_and_the_login_keep_the_password_out_of_their_representation() -> None:
    assert plain_message("gw", "pw") == b"\0gw\0pw"
    login = SaslLogin("SCRAM-SHA-512", "gw", PASSWORD)
    assert PASSWORD not in repr(login)
    assert PASSWORD not in repr(ScramClient("SCRAM-SHA-512", "gw", PASSWORD))
    with pytest.raises(ValueError, match="GSSAPI"):
        SaslLogin("GSSAPI", "gw", PASSWORD)


# -- the login over a connection ----------------------------------------------------------------


@pytest.fixture
async def broker() -> AsyncIterator[FakeBroker]:
    b = await FakeBroker().start()
    yield b
    await b.stop()


async def serve_scram(
    broker: FakeBroker, server: ScramServer, *, mechanisms: tuple[str, ...] = ("SCRAM-SHA-512",)
) -> list[str]:
    """Answer one login as a broker does; then one Metadata request. Returns what happened."""
    seen: list[str] = []
    handshake = await broker.next()
    assert isinstance(handshake.request, SaslHandshakeRequest)
    assert handshake.version == 1
    mechanism = handshake.request.mechanism
    seen.append(mechanism)
    if mechanism not in mechanisms:
        broker.answer(
            handshake,
            SaslHandshakeResponse(
                error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=list(mechanisms)
            ),
        )
        return seen
    broker.answer(handshake, SaslHandshakeResponse(mechanisms=list(mechanisms)))
    first = await broker.next()
    assert isinstance(first.request, SaslAuthenticateRequest)
    if mechanism == "PLAIN":
        ok = first.request.auth_bytes == plain_message(server.username, server.password)
        final_answer: bytes | None = b"" if ok else None
        last = first
    else:
        broker.answer(
            first, SaslAuthenticateResponse(auth_bytes=server.first(first.request.auth_bytes))
        )
        last = await broker.next()
        assert isinstance(last.request, SaslAuthenticateRequest)
        final_answer = server.final(last.request.auth_bytes)
    if final_answer is None:
        broker.answer(
            last,
            SaslAuthenticateResponse(
                error_code=SASL_AUTHENTICATION_FAILED,
                error_message=f"Authentication failed due to invalid credentials with SASL "
                f"mechanism {mechanism}",
            ),
        )
        seen.append("refused")
        return seen
    broker.answer(last, SaslAuthenticateResponse(auth_bytes=final_answer))
    seen.append("logged in")
    request = await broker.next()
    assert isinstance(request.request, MetadataRequest)
    broker.answer(request, MetadataResponse(cluster_id="after-login"))
    seen.append("metadata")
    return seen


async def open_as(broker: FakeBroker, login: SaslLogin) -> BrokerConnection:
    return await BrokerConnection.open("127.0.0.1", broker.port, sasl=login)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
async def test_the_connection_logs_in_before_its_first_request(
    broker: FakeBroker, mechanism: str
) -> None:
    hash_name = {"PLAIN": "sha512", "SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
    server = ScramServer(hash_name[mechanism], "gw", PASSWORD, b"salty", 4096, "srv")
    served = asyncio.create_task(serve_scram(broker, server, mechanisms=(mechanism,)))
    conn = await open_as(broker, SaslLogin(mechanism, "gw", PASSWORD))
    try:
        answer = await conn.send(MetadataRequest(topics=None))
        assert answer.cluster_id == "after-login"
        assert await served == [mechanism, "logged in", "metadata"]
    finally:
        await conn.close()


async def test_wrong_credentials_fail_the_opening_without_the_password(
    broker: FakeBroker,
) -> None:
    server = scram_sha_512_server()
    server.username = "gw"
    served = asyncio.create_task(serve_scram(broker, server))
    wrong = "wrong-" + PASSWORD
    with pytest.raises(AuthenticationError) as info:
        await open_as(broker, SaslLogin("SCRAM-SHA-512", "gw", wrong))
    assert await served == ["SCRAM-SHA-512", "refused"]
    text = str(info.value)
    assert "SCRAM-SHA-512 login of 'gw'" in text
    assert "SASL_AUTHENTICATION_FAILED" in text and "invalid credentials" in text
    assert wrong not in text and PASSWORD not in text
    # answered as any broker that cannot be reached
    assert isinstance(info.value, ConnectionClosedError)


async def test_a_mechanism_the_listener_lacks_names_the_ones_it_has(broker: FakeBroker) -> None:
    server = scram_sha_512_server()
    served = asyncio.create_task(serve_scram(broker, server, mechanisms=("SCRAM-SHA-256",)))
    with pytest.raises(AuthenticationError, match=r"UNSUPPORTED_SASL_MECHANISM.*SCRAM-SHA-256"):
        await open_as(broker, SaslLogin("SCRAM-SHA-512", "gw", PASSWORD))
    assert await served == ["SCRAM-SHA-512"]


async def test_a_broker_that_does_not_know_the_password_is_not_trusted(
    broker: FakeBroker,
) -> None:
    # a broker (or one in the middle) that takes any proof but cannot sign the exchange
    async def impostor() -> None:
        handshake = await broker.next()
        broker.answer(handshake, SaslHandshakeResponse(mechanisms=["SCRAM-SHA-512"]))
        first = await broker.next()
        assert isinstance(first.request, SaslAuthenticateRequest)
        nonce = dict(p.split("=", 1) for p in first.request.auth_bytes.decode()[3:].split(","))["r"]
        salt = base64.b64encode(b"salt").decode()
        broker.answer(
            first, SaslAuthenticateResponse(auth_bytes=f"r={nonce}x,s={salt},i=4096".encode())
        )
        last = await broker.next()
        forged = base64.b64encode(b"\0" * 64).decode()
        broker.answer(last, SaslAuthenticateResponse(auth_bytes=f"v={forged}".encode()))

    task = asyncio.create_task(impostor())
    with pytest.raises(AuthenticationError, match="signature is wrong"):
        await open_as(broker, SaslLogin("SCRAM-SHA-512", "gw", PASSWORD))
    await task


async def test_a_refused_login_is_answered_as_a_broker_that_cannot_be_reached(
    broker: FakeBroker,
) -> None:
    # at start: the cluster tries each bootstrap broker and says why each failed
    server = scram_sha_512_server()
    server.username = "gw"
    served = asyncio.create_task(serve_scram(broker, server))
    cluster = Cluster(
        f"127.0.0.1:{broker.port}", sasl=SaslLogin("SCRAM-SHA-512", "gw", "wrong-" + PASSWORD)
    )
    with pytest.raises(ConnectionClosedError) as info:
        await cluster.start()
    await served
    await cluster.close()
    assert str(info.value).startswith("no broker answered: SCRAM-SHA-512 login of 'gw' to ")
    assert "SASL_AUTHENTICATION_FAILED" in str(info.value)
    # later, a request that needed a new connection: the retriable 503 of a broker that
    # cannot be reached, not the 401 of a client's own credentials
    error = from_protocol(info.value)
    assert error.code is ErrorCode.CLUSTER_UNAVAILABLE and error.code.retriable
    assert "login of 'gw'" in error.message and PASSWORD not in error.message


async def test_a_login_refused_after_the_start_fails_the_request_that_needed_it(
    broker: FakeBroker,
) -> None:
    server = scram_sha_512_server()
    server.username = "gw"
    login = SaslLogin("SCRAM-SHA-512", "gw", PASSWORD)
    served = asyncio.create_task(serve_scram(broker, server))
    cluster = Cluster(f"127.0.0.1:{broker.port}", sasl=login)
    try:
        await cluster.start()
        assert await served == ["SCRAM-SHA-512", "logged in", "metadata"]
        assert cluster.cluster_id == "after-login"
        # the broker restarts, and the user's password has changed meanwhile
        conn = await cluster.any_connection()
        broker.drop()
        async with asyncio.timeout(WAIT):  # the connection sees its end
            while not conn.closed:
                await asyncio.sleep(0.01)
        server.password = "changed-" + PASSWORD
        server.__post_init__()
        served = asyncio.create_task(serve_scram(broker, server))
        with pytest.raises(ConnectionClosedError, match=r"login of 'gw' .* failed") as info:
            await cluster.refresh_metadata()
        assert await served == ["SCRAM-SHA-512", "refused"]
        assert from_protocol(info.value).code is ErrorCode.CLUSTER_UNAVAILABLE
    finally:
        await cluster.close()
