"""The broker's side of SCRAM (RFC 5802), written for the tests from the RFC alone: what a
broker stores for a user (salt, iterations, stored key, server key), and the checks and answers
it makes, so that the gateway's client is tested against a computation that is not its own."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass


@dataclass
class ScramServer:
    hash_name: str  # "sha1", "sha256", "sha512"
    username: str
    password: str
    salt: bytes
    iterations: int
    server_nonce: str

    def __post_init__(self) -> None:
        salted = hashlib.pbkdf2_hmac(
            self.hash_name, self.password.encode(), self.salt, self.iterations
        )
        client_key = self._hmac(salted, b"Client Key")
        self.stored_key = hashlib.new(self.hash_name, client_key).digest()
        self.server_key = self._hmac(salted, b"Server Key")
        self.client_first_bare = ""
        self.server_first = ""

    def _hmac(self, key: bytes, msg: bytes) -> bytes:
        return hmac.new(key, msg, self.hash_name).digest()

    def first(self, client_first: bytes) -> bytes:
        text = client_first.decode()
        assert text.startswith("n,,"), text  # no channel binding, no authorization id
        self.client_first_bare = text[3:]
        attrs = dict(p.split("=", 1) for p in self.client_first_bare.split(","))
        assert attrs["n"] == self.username
        nonce = attrs["r"] + self.server_nonce
        salt = base64.b64encode(self.salt).decode()
        self.server_first = f"r={nonce},s={salt},i={self.iterations}"
        return self.server_first.encode()

    def final(self, client_final: bytes) -> bytes | None:
        """The server's last message, or None when the proof is wrong."""
        text = client_final.decode()
        without_proof, _, proof_part = text.rpartition(",")
        assert proof_part.startswith("p=")
        attrs = dict(p.split("=", 1) for p in without_proof.split(","))
        assert attrs["c"] == "biws"
        assert attrs["r"].endswith(self.server_nonce)
        auth = f"{self.client_first_bare},{self.server_first},{without_proof}".encode()
        signature = self._hmac(self.stored_key, auth)
        proof = base64.b64decode(proof_part[2:])
        client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=True))
        if hashlib.new(self.hash_name, client_key).digest() != self.stored_key:
            return None
        v = base64.b64encode(self._hmac(self.server_key, auth)).decode()
        return f"v={v}".encode()
