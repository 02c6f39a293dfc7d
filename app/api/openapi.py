"""The OpenAPI document (``/openapi.json``): what every route declares, with the request bodies'
schemas generated from their declarations (``app.api.wire``), and completed where a number's
bounds are the server's settings or a parameter's rule is checked in code.

A request body's schema is its declaration's (``msgspec.json.schema_components``), with the
body's examples and the rules between its fields; only bounds that are settings are added here
(``settings_bounds``). Path and query parameters are declared as plain strings and integers by
the routes, so the names and numbers they take are stated here (``describe_parameters``).
Fuzzing against the document (benchmarks/fuzz.py) checks the server against it: a request the
document allows and the server refuses fails it, and the reverse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.api.schemas import REQUEST_BODIES
from app.api.wire.body import Part
from app.config import Settings
from app.security import permissions
from app.security.authentication import is_public
from app.topics import NAME_PATTERN
from app.transactions.state import TxnState

# The names and numbers the API takes in path and query parameters (the routes check them in
# code: app.topics.validate_name, app.api.wire, app.security.keys).
NAME: dict[str, Any] = {"pattern": NAME_PATTERN, "maxLength": 249}
STRINGS: dict[str, dict[str, Any]] = {
    "topic": NAME,
    "group_id": NAME,
    "tid": NAME,
    "principal": {"pattern": r"^[A-Za-z0-9._@:-]{1,255}$", "maxLength": 255},
    "member_id": {"minLength": 1, "maxLength": 255},
    # ListOffsets: a timestamp in ms (a negative one is INVALID_TIMESTAMP)
    "at": {"pattern": r"^(earliest|latest|[0-9]{1,18})$"},
}
PARTITION: dict[str, Any] = {"minimum": 0, "maximum": 2**31 - 1}
INTEGERS: dict[str, dict[str, Any]] = {"partition": PARTITION}
# every integer parameter is a 64-bit one
INT64: dict[str, Any] = {"minimum": -(2**63), "maximum": 2**63 - 1}
# query parameters with a closed set of values that the route declares as a plain string
QUERY_ENUMS: dict[str, dict[str, Any]] = {"state": {"enum": [s.value for s in TxnState]}}


def settings_bounds(settings: Settings) -> dict[str, dict[str, Any]]:
    """Numbers whose bounds are the server's settings (request-body properties by name)."""
    return {
        "transaction_timeout_ms": {"minimum": 1, "maximum": settings.txn_max_timeout_ms},
        "record_lock_duration_ms": {
            "minimum": settings.share_min_record_lock_duration_ms,
            "maximum": settings.share_max_record_lock_duration_ms,
        },
        "delay_ms": {"minimum": 0, "maximum": settings.share_max_release_delay_ms},
        "partitions": {"minimum": 1, "maximum": settings.max_partitions},
    }


def _declared(base: type[Part]) -> Iterator[type[Part]]:
    for cls in base.__subclasses__():
        yield cls
        yield from _declared(cls)


def body_components() -> dict[str, dict[str, Any]]:
    """The schemas of the request bodies and their parts, as declared, each with its examples
    and the rules between its fields."""
    _, components = msgspec.json.schema_components(
        REQUEST_BODIES, ref_template="#/components/schemas/{name}"
    )
    for cls in _declared(Part):
        schema = components.get(cls.__name__)
        if schema is None:
            continue
        if cls.examples:
            schema["examples"] = cls.examples
        if cls.rules:
            schema["allOf"] = cls.rules
    return components


def openapi_document(app: FastAPI, settings: Settings) -> dict[str, Any]:
    doc = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    bodies = body_components()
    bounds = settings_bounds(settings)
    for schema in bodies.values():
        _settings_bounds(schema, bounds)
    clash = set(bodies) & set(components)
    assert not clash, f"request bodies and answers share component names: {clash}"
    components.update(bodies)
    # an answer shaped as a body: a share group's config is every key its PATCH takes
    components["ShareGroupDescription"]["properties"]["config"] = {
        "$ref": "#/components/schemas/ShareGroupConfig"
    }
    # Malformed requests are 400 INVALID_REQUEST (see ErrorBody), never 422. Once API keys exist
    # every non-public operation needs one (401 without), and the ACLs its entry in
    # app.security.permissions names (403 without).
    doc["components"]["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
    unauthenticated = {
        "description": "no valid API key (the server requires keys)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    }
    forbidden = {
        "description": "the key's principal lacks the ACL the operation needs "
        "(*_AUTHORIZATION_FAILED)",
        "content": unauthenticated["content"],
    }
    for path, operations in doc.get("paths", {}).items():
        for method, operation in operations.items():
            operation.get("responses", {}).pop("422", None)
            if not is_public(path):
                operation["security"] = [{"apiKey": []}, {}]
                operation.setdefault("responses", {})["401"] = unauthenticated
            need = permissions.need_of(method.upper(), path)
            if need is not None and need.access == "checked":
                operation.setdefault("responses", {})["403"] = forbidden
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    describe_parameters(doc)
    return doc


def describe_parameters(doc: dict[str, Any]) -> None:
    """Give the name and number parameters of the document the rules their checks apply."""
    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            for param in operation.get("parameters", ()):
                name, where = param.get("name", ""), param.get("in")
                schema = param.setdefault("schema", {})
                if where in ("path", "query"):
                    _constrain_named(name, schema)
                    _int64(schema)
                if where == "query" and name in QUERY_ENUMS:
                    _constrain(schema, "string", QUERY_ENUMS[name])


def _settings_bounds(node: Any, bounds: dict[str, dict[str, Any]]) -> None:
    """The bounds that are settings, on the properties of those names (the tighter of the
    declared and the setting's)."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for name, schema in props.items():
                if name in bounds and isinstance(schema, dict):
                    _bound(schema, bounds[name])
        for value in node.values():
            _settings_bounds(value, bounds)
    elif isinstance(node, list):
        for value in node:
            _settings_bounds(value, bounds)


def _int64(schema: dict[str, Any]) -> None:
    """The missing bounds of an integer schema: those of a 64-bit integer."""
    if schema.get("type") == "integer":
        for key, bound in INT64.items():
            schema.setdefault(key, bound)
    for alt in schema.get("anyOf", ()):
        if isinstance(alt, dict):
            _int64(alt)


def _constrain(schema: dict[str, Any], kind: str, extra: dict[str, Any]) -> None:
    if schema.get("type") == kind and "enum" not in schema and "pattern" not in schema:
        schema.update(extra)
    for alt in schema.get("anyOf", ()):
        _constrain(alt, kind, extra)


def _bound(schema: dict[str, Any], bounds: dict[str, Any]) -> None:
    """The tighter of the declared and the given bounds, on an integer schema."""
    if schema.get("type") == "integer":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        schema["minimum"] = bounds["minimum"] if lo is None else max(lo, bounds["minimum"])
        schema["maximum"] = bounds["maximum"] if hi is None else min(hi, bounds["maximum"])
    for alt in schema.get("anyOf", ()):
        _bound(alt, bounds)


def _constrain_named(name: str, schema: dict[str, Any]) -> None:
    if name in STRINGS:
        _constrain(schema, "string", STRINGS[name])
    elif name in INTEGERS:
        _constrain(schema, "integer", INTEGERS[name])
