"""The one idiom of the state machines: per target state, the states it may be reached from.

Each machine (``share.record_state``, ``groups.state``, ``transactions.state``) keeps one
module-level table ``VALID_PREVIOUS: dict[State, frozenset[State]]`` (Kafka's
``validPreviousStates``) and moves only through ``validate_transition``. A move the table does
not list raises ``IllegalTransition``: a bug in the code asking for it, never a client error.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TypeVar

S = TypeVar("S", bound=enum.Enum)


class IllegalTransition(Exception):
    """A state change the table does not allow: a bug, never a client error."""


def validate_transition(table: Mapping[S, frozenset[S]], current: S, target: S) -> S:
    """``target`` when ``table`` lists ``current`` among its previous states; raises
    ``IllegalTransition`` otherwise."""
    if current not in table[target]:
        raise IllegalTransition(
            f"{type(target).__name__} {current.name} → {target.name} is not allowed"
        )
    return target
