"""WebSocket tokens any gateway redeems (app/kafka/ws_tokens.py): a token issued with the
shared secret is redeemed by another instance holding it, once on each, while it is valid;
a token expired, altered, signed with another secret or not a token at all is nobody."""

from __future__ import annotations

from app.clock import FakeClock
from app.kafka.ws_tokens import SignedWsTokens
from app.security.keys import Identity
from app.security.tokens import PREFIX

SECRET = b"s" * 32
TTL_MS = 30_000
ALICE = Identity("abcdefghijkl", "alice")


def test_a_token_is_redeemed_once_on_each_gateway_holding_the_secret() -> None:
    clock = FakeClock()
    a = SignedWsTokens(clock, TTL_MS, lambda: SECRET)
    b = SignedWsTokens(clock, TTL_MS, lambda: SECRET)
    token, expires = a.issue(ALICE)
    assert token.startswith(PREFIX) and expires == clock.now_ms() + TTL_MS
    assert b.redeem(token) == ALICE
    assert b.redeem(token) is None
    assert a.redeem(token) == ALICE
    assert len(b) == 1
    clock.advance(TTL_MS)
    assert b.redeem(a.issue(ALICE)[0]) == ALICE
    assert len(b) == 1  # the expired one is forgotten


def test_an_expired_altered_or_foreign_token_is_nobody() -> None:
    clock = FakeClock()
    a = SignedWsTokens(clock, TTL_MS, lambda: SECRET)
    token, _ = a.issue(ALICE)
    foreign = SignedWsTokens(clock, TTL_MS, lambda: b"o" * 32).issue(ALICE)[0]
    body, _, signature = token.partition(".")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    for bad in (foreign, f"{body}.{flipped}", token[len(PREFIX) :], "wst_!!!.x", "wst_é.x", ""):
        assert a.redeem(bad) is None, bad
    clock.advance(TTL_MS)
    assert a.redeem(token) is None
