"""The authorizer and the ACL model, pure: Kafka's rules of deciding, and bindings' checks."""

from __future__ import annotations

import pytest

from app.errors import ErrorCode, InvalidRequest
from app.security import authorizer as authorizer_module
from app.security.acls import (
    AclBinding,
    Operation,
    PatternType,
    ResourceType,
    acl_filter,
    binding,
)
from app.security.authorizer import Authorizer

TOPIC, GROUP, TXN, CLUSTER = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.TRANSACTIONAL_ID,
    ResourceType.CLUSTER,
)
READ, WRITE, DESCRIBE, DELETE, ALTER, CREATE, ALL = (
    Operation.READ,
    Operation.WRITE,
    Operation.DESCRIBE,
    Operation.DELETE,
    Operation.ALTER,
    Operation.CREATE,
    Operation.ALL,
)


def b(
    who: str,
    rtype: str,
    name: str | None,
    op: str,
    permission: str = "ALLOW",
    pattern: str | None = None,
) -> AclBinding:
    return binding(who, rtype, name, op, permission, pattern)


def test_no_principal_is_always_allowed_and_no_acl_is_refused() -> None:
    a = Authorizer()
    assert a.authorize(None, DELETE, TOPIC, "orders")
    assert not a.authorize("alice", READ, TOPIC, "orders")


def test_literal_allow_matches_only_its_name_and_operation() -> None:
    a = Authorizer([b("alice", "TOPIC", "orders", "READ")])
    assert a.authorize("alice", READ, TOPIC, "orders")
    assert not a.authorize("alice", READ, TOPIC, "orders2")
    assert not a.authorize("alice", WRITE, TOPIC, "orders")
    assert not a.authorize("alice", READ, GROUP, "orders")
    assert not a.authorize("bob", READ, TOPIC, "orders")


def test_deny_wins_over_allow_even_a_wider_allow() -> None:
    a = Authorizer(
        [
            b("alice", "TOPIC", "*", "ALL"),
            b("alice", "TOPIC", "orders.secret", "READ", "DENY"),
        ]
    )
    assert a.authorize("alice", READ, TOPIC, "orders")
    assert not a.authorize("alice", READ, TOPIC, "orders.secret")
    # a deny of READ does not deny DESCRIBE or WRITE
    assert a.authorize("alice", DESCRIBE, TOPIC, "orders.secret")
    assert a.authorize("alice", WRITE, TOPIC, "orders.secret")


def test_deny_all_denies_every_operation_and_a_wildcard_principal_deny_too() -> None:
    a = Authorizer(
        [
            b("alice", "TOPIC", "t", "ALL"),
            b("alice", "GROUP", "g", "ALL"),
            b("*", "GROUP", "g", "ALL", "DENY"),
            b("alice", "TOPIC", "t", "ALL", "DENY", None),
        ]
    )
    for op in (READ, WRITE, DESCRIBE, DELETE, ALTER, CREATE):
        assert not a.authorize("alice", op, TOPIC, "t")
    assert not a.authorize("alice", READ, GROUP, "g")


def test_prefixed_bindings_match_names_that_start_with_the_prefix() -> None:
    a = Authorizer(
        [
            b("alice", "GROUP", "billing-", "READ", pattern="PREFIXED"),
            b("alice", "GROUP", "billing-secret", "READ", "DENY", "PREFIXED"),
        ]
    )
    assert a.authorize("alice", READ, GROUP, "billing-")
    assert a.authorize("alice", READ, GROUP, "billing-eu")
    assert not a.authorize("alice", READ, GROUP, "billing")
    assert not a.authorize("alice", READ, GROUP, "billing-secret-2")


def test_implied_describe_from_read_write_delete_alter_but_not_create() -> None:
    for op in ("READ", "WRITE", "DELETE", "ALTER", "ALL", "DESCRIBE"):
        assert Authorizer([b("a", "TOPIC", "t", op)]).authorize("a", DESCRIBE, TOPIC, "t"), op
    assert not Authorizer([b("a", "TOPIC", "t", "CREATE")]).authorize("a", DESCRIBE, TOPIC, "t")
    # and nothing else is implied
    assert not Authorizer([b("a", "TOPIC", "t", "READ")]).authorize("a", WRITE, TOPIC, "t")
    assert not Authorizer([b("a", "TOPIC", "t", "DESCRIBE")]).authorize("a", READ, TOPIC, "t")


def test_wildcard_principal_and_wildcard_name() -> None:
    a = Authorizer([b("*", "TOPIC", "public", "READ"), b("ops", "TOPIC", "*", "DESCRIBE")])
    assert a.authorize("anyone", READ, TOPIC, "public")
    assert a.authorize("ops", DESCRIBE, TOPIC, "whatever")
    assert not a.authorize("ops", READ, TOPIC, "whatever")


def test_super_users_may_do_everything_even_against_a_deny() -> None:
    a = Authorizer([b("root", "TOPIC", "*", "ALL", "DENY")], super_users=["root"])
    assert a.authorize("root", DELETE, TOPIC, "orders")
    assert a.authorize("root", ALTER, CLUSTER, "kafka-cluster")
    assert a.authorize_any("root", WRITE, TOPIC)


def test_decisions_are_cached_and_a_change_of_bindings_starts_over() -> None:
    a = Authorizer([b("alice", "TOPIC", "orders", "READ")])
    assert a.authorize("alice", READ, TOPIC, "orders")
    version = a.version
    assert not a.load(a.bindings)  # the same bindings: nothing changes, the cache stays
    assert a.version == version and a._cache
    assert a.load([b("alice", "TOPIC", "orders", "READ", "DENY")])
    assert a.version == version + 1
    assert not a.authorize("alice", READ, TOPIC, "orders")


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(authorizer_module, "CACHE_MAX", 10)
    a = Authorizer([b("alice", "TOPIC", "*", "READ")])
    for i in range(25):
        assert a.authorize("alice", READ, TOPIC, f"t{i}")
    assert len(a._cache) <= 10


def test_authorize_any_for_an_idempotent_producer() -> None:
    assert not Authorizer().authorize_any("p", WRITE, TOPIC)
    assert Authorizer([b("p", "TOPIC", "x-", "WRITE", pattern="PREFIXED")]).authorize_any(
        "p", WRITE, TOPIC
    )
    assert not Authorizer([b("p", "TOPIC", "x", "READ")]).authorize_any("p", WRITE, TOPIC)
    # an allow whose whole pattern a deny covers does not count
    covered = [
        [b("p", "TOPIC", "x", "WRITE"), b("p", "TOPIC", "x", "WRITE", "DENY")],
        [b("p", "TOPIC", "x-a", "WRITE"), b("p", "TOPIC", "x-", "ALL", "DENY", "PREFIXED")],
        [b("p", "TOPIC", "x", "WRITE"), b("*", "TOPIC", "*", "WRITE", "DENY")],
    ]
    for bindings in covered:
        assert not Authorizer(bindings).authorize_any("p", WRITE, TOPIC), bindings
    partly = [b("p", "TOPIC", "*", "WRITE"), b("p", "TOPIC", "x", "WRITE", "DENY")]
    assert Authorizer(partly).authorize_any("p", WRITE, TOPIC)
    literal_vs_prefix = [
        b("p", "TOPIC", "x", "WRITE", pattern="PREFIXED"),
        b("p", "TOPIC", "x", "WRITE", "DENY"),
    ]
    assert Authorizer(literal_vs_prefix).authorize_any("p", WRITE, TOPIC)
    assert Authorizer().authorize_any(None, WRITE, TOPIC)


def test_authorize_any_is_decided_again_when_the_bindings_change() -> None:
    """Produce asks it on every request, so it is cached as decisions are, until a load."""
    a = Authorizer([b("p", "TOPIC", "x", "WRITE")])
    assert a.authorize_any("p", WRITE, TOPIC)
    a.load([b("p", "TOPIC", "x", "READ")])
    assert not a.authorize_any("p", WRITE, TOPIC)
    a.load([b("p", "TOPIC", "*", "WRITE")])
    assert a.authorize_any("p", WRITE, TOPIC)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("", "TOPIC", "t", "READ", "ALLOW"), "principal"),
        (("a b", "TOPIC", "t", "READ", "ALLOW"), "principal"),
        (("a,b", "TOPIC", "t", "READ", "ALLOW"), "principal"),
        ((None, "TOPIC", "t", "READ", "ALLOW"), "principal"),
        (("a", "QUEUE", "t", "READ", "ALLOW"), "resource_type"),
        (("a", "topic", "t", "READ", "ALLOW"), "resource_type"),
        (("a", "TOPIC", "t", "READ", "MAYBE"), "permission"),
        (("a", "TOPIC", "t", "FLY", "ALLOW"), "operation"),
        (("a", "TOPIC", None, "READ", "ALLOW"), "resource_name"),
        (("a", "TOPIC", "", "READ", "ALLOW"), "resource_name"),
        (("a", "TOPIC", "a/b", "READ", "ALLOW"), "resource_name"),
        (("a", "TOPIC", "x" * 250, "READ", "ALLOW"), "resource_name"),
        (("a", "TOPIC", "*", "READ", "ALLOW", "PREFIXED"), "literal wildcard"),
        (("a", "TOPIC", "t", "READ", "ALLOW", "GLOB"), "pattern_type"),
        (("a", "CLUSTER", "mine", "ALTER", "ALLOW"), "kafka-cluster"),
        (("a", "CLUSTER", None, "ALTER", "ALLOW", "PREFIXED"), "kafka-cluster"),
        (("a", "CLUSTER", None, "READ", "ALLOW"), "READ means nothing on a CLUSTER"),
        (("a", "GROUP", "g", "WRITE", "ALLOW"), "WRITE means nothing on a GROUP"),
        (("a", "TRANSACTIONAL_ID", "x", "READ", "ALLOW"), "TRANSACTIONAL_ID"),
    ],
)
def test_bad_bindings_are_refused_with_a_message_naming_the_field(
    args: tuple[object, ...], says: str
) -> None:
    with pytest.raises(InvalidRequest) as e:
        binding(*args)
    assert e.value.code is ErrorCode.INVALID_REQUEST
    assert says in e.value.message


def test_a_cluster_binding_names_the_cluster_by_default() -> None:
    c = binding("ops", "CLUSTER", None, "DESCRIBE", "ALLOW")
    assert c.resource_name == "kafka-cluster" and c.pattern_type is PatternType.LITERAL
    assert c.to_dict()["resource_type"] == "CLUSTER"


def test_filters_match_like_kafkas() -> None:
    lit = binding("alice", "TOPIC", "orders", "READ", "ALLOW")
    pre = binding("alice", "TOPIC", "ord", "READ", "ALLOW", "PREFIXED")
    star = binding("bob", "TOPIC", "*", "WRITE", "DENY")
    group = binding("alice", "GROUP", "orders", "READ", "ALLOW")
    every = [lit, pre, star, group]

    def found(**kw: object) -> list[AclBinding]:
        f = acl_filter(**kw)
        return [x for x in every if f.matches(x)]

    assert found(principal_name="alice") == [lit, pre, group]
    assert found(resource_type="TOPIC", resource_name="orders") == [lit]
    assert found(resource_name="ord", pattern_type="PREFIXED") == [pre]
    assert found(resource_type="TOPIC", resource_name="orders", pattern_type="MATCH") == [
        lit,
        pre,
        star,
    ]
    assert found(pattern_type="MATCH") == every
    assert found(operation="WRITE", permission="DENY") == [star]
    assert acl_filter().empty and not acl_filter(principal_name="x").empty
    for bad in (
        {"pattern_type": "SOME"},
        {"resource_name": "a b"},
        {"operation": "read"},
        {"principal_name": ""},
    ):
        with pytest.raises(InvalidRequest):
            acl_filter(**bad)
