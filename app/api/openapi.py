"""The OpenAPI document (``/openapi.json``): what every route and request model declares, made
exact where the declarations say less than the parsers check.

Request bodies are parsed by hand (``app.api.wire``), and the routes and models declare most
names and numbers as plain strings and integers; so the document is completed here with what the
parsers accept: the name patterns, the bounds of numbers (some of them the server's settings),
the closed sets of values. Fuzzing against the document (benchmarks/fuzz.py) is what keeps the
two in step: a request the document allows and the server refuses fails it, and the reverse.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.api.schemas import REQUEST_MODELS
from app.config import Settings
from app.security import permissions
from app.security.authentication import is_public
from app.topics import NAME_PATTERN
from app.transactions.state import TxnState

# The names and numbers the API takes wherever they appear (a path or query parameter, or a
# property of a request body): app.topics.validate_name, app.api.wire, app.security.keys.
NAME: dict[str, Any] = {"pattern": NAME_PATTERN, "maxLength": 249}
STRINGS: dict[str, dict[str, Any]] = {
    "topic": NAME,
    "group_id": NAME,
    "tid": NAME,
    "transactional_id": NAME,
    "dead_letter_topic": NAME,
    "principal": {"pattern": r"^[A-Za-z0-9._@:-]{1,255}$", "maxLength": 255},
    "member_id": {"minLength": 1, "maxLength": 255},
    "group_instance_id": NAME,
    # ListOffsets: a timestamp in ms (a negative one is INVALID_TIMESTAMP)
    "at": {"pattern": r"^(earliest|latest|[0-9]{1,18})$"},
}
PARTITION: dict[str, Any] = {"minimum": 0, "maximum": 2**31 - 1}
INTEGERS: dict[str, dict[str, Any]] = {
    "producer_id": {"minimum": 0, "maximum": 2**63 - 1},
    "producer_epoch": {"minimum": 0, "maximum": 32767},
    "partition": PARTITION,
}
# every integer the parsers take is a 64-bit one (app.api.wire._fields.integer)
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


def openapi_document(app: FastAPI, settings: Settings) -> dict[str, Any]:
    doc = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    for model in REQUEST_MODELS:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[model.__name__] = schema
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
    describe_names(doc, settings_bounds(settings))
    return doc


def describe_names(doc: dict[str, Any], bounds: dict[str, dict[str, Any]]) -> None:
    """Give the name and number parameters and request-body properties of the OpenAPI document
    the bounds their parsers apply (``bounds``: more, for request-body properties). Response
    schemas are left as they are."""
    components = doc.get("components", {}).get("schemas", {})
    requested: set[str] = set()

    def refs(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in requested:
                    requested.add(name)
                    refs(components.get(name))
            for value in node.values():
                refs(value)
        elif isinstance(node, list):
            for value in node:
                refs(value)

    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            refs(operation.get("requestBody"))
            for param in operation.get("parameters", ()):
                name, where = param.get("name", ""), param.get("in")
                schema = param.setdefault("schema", {})
                if where in ("path", "query"):
                    _constrain_named(name, schema)
                    _int64(schema)
                if where == "query" and name in QUERY_ENUMS:
                    _constrain(schema, "string", QUERY_ENUMS[name])

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            _int64(node)
            props = node.get("properties")
            if isinstance(props, dict):
                required = set(node.get("required", ()))
                for name, schema in props.items():
                    if not isinstance(schema, dict):
                        continue
                    if name not in required and not _takes_null(schema):
                        # the parsers read a null as absent (app.api.wire._fields)
                        props[name] = schema = {"anyOf": [schema, {"type": "null"}]}
                    _constrain_named(name, schema)
                    if name in bounds:
                        _bound(schema, bounds[name])
                    for alt in [schema, *schema.get("anyOf", ())]:
                        items = alt.get("items")
                        if not isinstance(items, dict):
                            continue
                        if name in ("subscribed_topics", "topics"):
                            _constrain(items, "string", NAME)
                        elif name == "partitions":
                            _constrain(items, "integer", PARTITION)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for name in requested:
        walk(components.get(name))
    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            walk(operation.get("requestBody"))


def _takes_null(schema: dict[str, Any]) -> bool:
    """Whether a property schema allows null (or anything: no type given)."""
    if "$ref" in schema:
        return False
    if "anyOf" in schema:
        return any(_takes_null(alt) for alt in schema["anyOf"])
    if "enum" in schema:
        return None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    kind = schema.get("type")
    return kind is None or kind == "null" or (isinstance(kind, list) and "null" in kind)


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
