"""Today's embedded objects satisfy the seam's interfaces (``app.engine``).

Statically: ``conformance.py`` assigns each object to its protocol, and mypy (strict, over
``tests``) checks the assignments. At run time, here: every member a protocol declares exists
on the object a ``Broker`` builds, and every method has the protocol's parameters (names,
kinds, which have defaults) and is a coroutine exactly when the protocol's is. A method renamed
or reshaped on either side fails both.
"""

from __future__ import annotations

import inspect
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app import engine
from app.config import Settings
from app.engine.embedded.engine import EmbeddedEngine
from app.engine.embedded.topics import EmbeddedTopics
from app.runtime import Broker

from . import conformance

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def broker(settings_factory: Callable[..., Settings]) -> Broker:
    """A Broker as the server builds it; not started (nothing here needs its data)."""
    return Broker(settings_factory())


def implementations(b: Broker) -> list[tuple[type[Any], object]]:
    """Each protocol with the embedded object that implements it today."""
    return [
        (engine.Topics, b.engine.topics),
        (engine.Produce, b.producers),
        (engine.Reads, b.reads),
        (engine.Transactions, b.transactions),
        (engine.Groups, b.groups),
        (engine.ShareGroups, b.share),
        (engine.ShareMembership, b.share.membership),
        (engine.ShareAdmin, b.share_admin),
        (engine.ShareAcquisitions, b.acquisitions),
        (engine.PushSession, b.share.open_push("g", 10, None)),
        (engine.FeedState, b.feed_state),
        (engine.Keys, b.keys),
        (engine.Acls, b.acls),
        (engine.QuotaAdmin, b.quota_admin),
        (engine.StorageState, b.storage_health),
    ]


def members(protocol: type[Any]) -> Iterator[tuple[str, object]]:
    """The members ``protocol`` declares itself (methods and properties)."""
    for name, value in vars(protocol).items():
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
            yield name, value


def shape(fn: Callable[..., Any]) -> tuple[bool, list[tuple[str, str, bool]]]:
    """Whether ``fn`` is a coroutine function, and its parameters after ``self``: name, kind,
    and whether it has a default."""
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    return inspect.iscoroutinefunction(fn), [
        (p.name, p.kind.name, p.default is not inspect.Parameter.empty) for p in params
    ]


def mismatches(protocol: type[Any], obj: object) -> list[str]:
    """What of ``protocol`` ``obj`` lacks or has in another shape (empty: it conforms)."""
    found = []
    for name, declared in members(protocol):
        if not hasattr(obj, name):
            found.append(f"{type(obj).__name__} has no {name!r}")
            continue
        if isinstance(declared, property):
            continue
        assert inspect.isfunction(declared)
        actual = getattr(type(obj), name, None)
        if not callable(actual):
            found.append(f"{type(obj).__name__}.{name} is not a method")
        elif shape(actual) != shape(declared):
            found.append(f"{type(obj).__name__}.{name}{shape(actual)} is not {shape(declared)}")
    return found


def test_every_interface_has_an_embedded_implementation(broker: Broker) -> None:
    """``implementations`` covers every protocol of the seam but the bundle and the views of a
    topic (values the face reads, checked by mypy in ``conformance.py``)."""
    protocols = {
        getattr(engine, name)
        for name in engine.__all__
        if getattr(getattr(engine, name), "_is_protocol", False)
    }
    views = {engine.Engine, engine.TopicView, engine.PartitionOffsets}
    assert protocols - views == {p for p, _ in implementations(broker)}
    assert len(protocols - views) == 15


def test_embedded_objects_have_every_method_with_its_signature(broker: Broker) -> None:
    pairs = implementations(broker)
    assert all(list(members(p)) for p, _ in pairs)  # no protocol is empty
    assert {p: mismatches(p, obj) for p, obj in pairs} == {p: [] for p, _ in pairs}


def test_the_broker_gives_every_member_of_the_engine(broker: Broker) -> None:
    """The routes' engine (``deps.engine_of``) has every member; each is the Broker's object of
    that name, but topics, which is the registry behind the seam's ``Topics``; its storage is
    the Broker's ``storage_health``."""
    assert isinstance(broker.engine, EmbeddedEngine)
    assert mismatches(engine.Engine, broker.engine) == []
    assert broker.engine.storage() is broker.storage_health
    names = {name for name, m in members(engine.Engine) if isinstance(m, property)}
    assert {n for n in names if getattr(broker.engine, n) is not getattr(broker, n)} == {"topics"}
    assert isinstance(broker.engine.topics, EmbeddedTopics)
    assert broker.engine.topics.registry is broker.topics
    assert broker.feed.state_source is broker.feed_state


def test_the_engine_is_ready_when_the_broker_is(broker: Broker) -> None:
    assert not broker.engine.ready
    broker.ready = True
    assert broker.engine.ready


def test_a_renamed_or_reshaped_method_is_found(broker: Broker) -> None:
    """The check itself: an object without a method, or with a parameter renamed, fails."""

    class Renamed:
        def get2(self, name: str) -> None: ...

    class Reshaped:
        def get(self, topic: str) -> None: ...

    class Synchronous:
        def get(self, name: str) -> None: ...

    assert mismatches(engine.Topics, Renamed()) != []
    assert any("get" in m for m in mismatches(engine.Topics, Reshaped()))
    assert any(m.startswith("Synchronous.get") for m in mismatches(engine.Topics, Synchronous()))


def test_mypy_checks_the_static_conformance() -> None:
    """``conformance.py`` is inside what ``mypy`` (strict) checks: the packages of pyproject.toml
    include ``tests``, and every directory down to it is a package."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and "tests" in config["packages"]
    module = Path(conformance.__file__).resolve()
    for directory in module.relative_to(ROOT).parents:
        if directory != Path("."):
            assert (ROOT / directory / "__init__.py").is_file(), directory
