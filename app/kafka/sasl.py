"""The gateway's SASL login to a broker (docs/kafka-protocol.md#sasl): PLAIN, and SCRAM-SHA-256
or SCRAM-SHA-512 (RFC 5802, RFC 7677), sent as Kafka sends them, after ApiVersions: a
SaslHandshake naming the mechanism, then the mechanism's messages, each in a SaslAuthenticate.

SCRAM never sends the password: the client proves it knows it (the proof is the client key
XOR a signature of the whole exchange), and checks that the broker knows it too (the server's
signature in its last message); a broker that cannot show it ends the login. Kafka's SCRAM has
no channel binding: the header is ``n,,``.

Any refusal (the mechanism is not enabled on the listener, the credentials are wrong, a message
that does not follow the exchange) raises ``AuthenticationError``, a ``ConnectionClosedError``:
the connection is closed, and a request that needed it fails as any request that could not
reach a broker does. The password appears in no message, error or representation.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.kafka.protocol.errors import AuthenticationError, ProtocolError, error_name
from app.kafka.protocol.messages import SaslAuthenticateRequest, SaslHandshakeRequest

if TYPE_CHECKING:
    from app.kafka.connection import BrokerConnection

PLAIN = "PLAIN"
SCRAM_SHA_256 = "SCRAM-SHA-256"
SCRAM_SHA_512 = "SCRAM-SHA-512"
MECHANISMS = (PLAIN, SCRAM_SHA_256, SCRAM_SHA_512)
# RFC 5802 and RFC 7677 name their hash by mechanism; SHA-1 only for RFC 5802's own example
_HASHES = {"SCRAM-SHA-1": "sha1", SCRAM_SHA_256: "sha256", SCRAM_SHA_512: "sha512"}
# Kafka's bounds for the iterations of a SCRAM credential: fewer would make a stolen exchange
# cheap to guess from, and more, asked by a broker, would hold the event loop for seconds
MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384


@dataclass(frozen=True, slots=True)
class SaslLogin:
    """Who the gateway logs in as, and how."""

    mechanism: str
    username: str
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"SASL mechanism {self.mechanism!r}: expected one of {MECHANISMS}")


class ScramError(ProtocolError):
    """A SCRAM message that does not follow the exchange (the broker's, or a broker that could
    not prove it knows the password)."""


def _saslname(name: str) -> str:
    # RFC 5802: ',' and '=' in a user name are written =2C and =3D
    return name.replace("=", "=3D").replace(",", "=2C")


def _attributes(message: bytes) -> dict[str, str]:
    try:
        text = message.decode("utf-8")
    except UnicodeDecodeError:
        raise ScramError("a SCRAM message that is not UTF-8") from None
    out: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or len(key) != 1:
            raise ScramError(f"a SCRAM message with a malformed attribute {part[:20]!r}")
        out.setdefault(key, value)
    return out


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise ScramError(f"a SCRAM {what} that is not base64") from None


class ScramClient:
    """One SCRAM exchange, as the client: ``first()``, then ``final(server_first)``, then
    ``verify(server_final)``. ``nonce`` is for tests of the RFCs' examples; a login draws one."""

    def __init__(
        self, mechanism: str, username: str, password: str, *, nonce: str | None = None
    ) -> None:
        if mechanism not in _HASHES:
            raise ValueError(f"not a SCRAM mechanism: {mechanism!r}")
        self.mechanism = mechanism
        self._hash = _HASHES[mechanism]
        self._username = username
        self._password = password.encode("utf-8")
        # base64url draws no ','; 24 random bytes as Kafka's own client draws
        self._nonce = nonce if nonce is not None else secrets.token_urlsafe(24)
        self._first_bare = f"n={_saslname(username)},r={self._nonce}"
        self._server_signature: bytes | None = None

    def __repr__(self) -> str:
        return f"ScramClient({self.mechanism}, {self._username!r})"

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()

    def first(self) -> bytes:
        return ("n,," + self._first_bare).encode("utf-8")

    def final(self, server_first: bytes) -> bytes:
        attrs = _attributes(server_first)
        if "e" in attrs:
            raise ScramError(f"the broker refused the login: {attrs['e']}")
        if "m" in attrs:
            raise ScramError("the broker asks for a SCRAM extension this client does not have")
        nonce, salt_text, iterations_text = attrs.get("r"), attrs.get("s"), attrs.get("i")
        if nonce is None or salt_text is None or iterations_text is None:
            raise ScramError("the broker's first SCRAM message lacks r, s or i")
        if not nonce.startswith(self._nonce) or len(nonce) == len(self._nonce):
            raise ScramError("the broker's nonce does not extend the client's")
        if (
            not iterations_text.isdigit()
            or not MIN_ITERATIONS <= int(iterations_text) <= MAX_ITERATIONS
        ):
            raise ScramError(f"the broker asks for {iterations_text!r} iterations")
        salt = _b64decode(salt_text, "salt")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password, salt, int(iterations_text))
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"  # biws: base64 of the header "n,,"
        auth_message = ",".join(
            (self._first_bare, server_first.decode("utf-8"), without_proof)
        ).encode("utf-8")
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        server_key = self._hmac(salted, b"Server Key")
        self._server_signature = self._hmac(server_key, auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode('ascii')}".encode("ascii")

    def verify(self, server_final: bytes) -> None:
        """Check the broker's signature: a broker that does not know the password cannot make
        it, so a login to an impostor ends here."""
        attrs = _attributes(server_final)
        if "e" in attrs:
            raise ScramError(f"the broker refused the login: {attrs['e']}")
        if self._server_signature is None:
            raise ScramError("the broker's last SCRAM message came before its first")
        theirs = _b64decode(attrs.get("v", ""), "server signature")
        if not hmac.compare_digest(theirs, self._server_signature):
            raise ScramError("the broker's SCRAM signature is wrong: it does not know the password")


def plain_message(username: str, password: str) -> bytes:
    """PLAIN (RFC 4616): no authorization identity, the user name, the password."""
    return b"\0" + username.encode("utf-8") + b"\0" + password.encode("utf-8")


async def authenticate(conn: BrokerConnection, login: SaslLogin) -> None:
    """Log ``conn`` in as ``login`` (after ApiVersions, before any other request). Raises
    ``AuthenticationError`` and closes nothing: the caller closes the connection."""
    who = f"{login.mechanism} login of {login.username!r} to {conn.address}"
    # version 1: the mechanism's messages then travel in SaslAuthenticate requests (at version 0
    # they would be raw frames of their own)
    if conn.versions.get(SaslHandshakeRequest.API_KEY, 0) < 1:
        raise AuthenticationError(f"{who} failed: the broker takes no SaslHandshake version 1")
    handshake = await conn.send(SaslHandshakeRequest(mechanism=login.mechanism), 1)
    if handshake.error_code:
        raise AuthenticationError(
            f"{who} failed: {error_name(handshake.error_code)}"
            f" (the listener enables {', '.join(handshake.mechanisms) or 'none'})"
        )

    async def step(auth_bytes: bytes) -> bytes:
        answer = await conn.send(SaslAuthenticateRequest(auth_bytes=auth_bytes))
        if answer.error_code:
            detail = f": {answer.error_message}" if answer.error_message else ""
            raise AuthenticationError(f"{who} failed: {error_name(answer.error_code)}{detail}")
        return answer.auth_bytes

    if login.mechanism == PLAIN:
        await step(plain_message(login.username, login.password))
        return
    client = ScramClient(login.mechanism, login.username, login.password)
    try:
        server_first = await step(client.first())
        server_final = await step(client.final(server_first))
        client.verify(server_final)
    except ScramError as e:
        raise AuthenticationError(f"{who} failed: {e}") from None
