"""WebSocket tokens that any gateway redeems (docs/kafka.md#security): what
``app.security.tokens.WsTokens`` hands out and takes back, with the token carrying who it was
issued to and when it expires, signed (HMAC-SHA256) with the secret every gateway reads from
``__sluice_keys`` (``app.kafka.keys.KafkaKeys.token_secret``). A token issued by one gateway
opens a socket on another without any state shared between them.

A token is good for one handshake on each gateway: the gateway that redeems it remembers it
until it expires. Two gateways do not tell each other what they redeemed, so behind N gateways
a token could open up to N sockets within its lifetime (``ws_token_ttl_ms``), each as the same
key, which is then checked as any socket's key is (a revoked key's socket closes).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable

from app.clock import Clock
from app.security.keys import Identity
from app.security.tokens import PREFIX

NONCE_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignedWsTokens:
    """``WsTokens``' members (``issue``, ``redeem``, ``len``), signed with ``secret()``."""

    def __init__(self, clock: Clock, ttl_ms: int, secret: Callable[[], bytes]) -> None:
        self.clock = clock
        self.ttl_ms = ttl_ms
        self.secret = secret
        # tokens redeemed here, in the order they expire, until they do
        self._redeemed: OrderedDict[str, int] = OrderedDict()

    def _sign(self, payload: bytes) -> str:
        return _b64(hmac.new(self.secret(), payload, hashlib.sha256).digest())

    def issue(self, identity: Identity) -> tuple[str, int]:
        """A new token for ``identity`` and the time it expires (ms)."""
        expires = self.clock.now_ms() + self.ttl_ms
        payload = json.dumps(
            [identity.key_id, identity.principal, expires, _b64(secrets.token_bytes(NONCE_BYTES))],
            separators=(",", ":"),
        ).encode()
        return f"{PREFIX}{_b64(payload)}.{self._sign(payload)}", expires

    def redeem(self, token: str) -> Identity | None:
        """Who ``token`` was issued to, once on this gateway, while it is valid; None
        otherwise (a token of another secret, altered, expired or redeemed here before)."""
        now = self.clock.now_ms()
        self._forget_expired(now)
        if not token.startswith(PREFIX) or token in self._redeemed:
            return None
        body, _, signature = token[len(PREFIX) :].partition(".")
        try:
            payload = _unb64(body)
        except ValueError:
            return None
        if not hmac.compare_digest(self._sign(payload), signature):
            return None
        key_id, principal, expires, _ = json.loads(payload)
        if expires <= now:
            return None
        # kept in expiry order: every token lives ttl_ms, so later issues expire later
        self._redeemed[token] = expires
        return Identity(key_id, principal)

    def _forget_expired(self, now: int) -> None:
        redeemed = self._redeemed
        while redeemed:
            token = next(iter(redeemed))
            if redeemed[token] > now:
                return
            del redeemed[token]

    def __len__(self) -> int:
        return len(self._redeemed)
