"""Request bodies declared once: the base of every body, the field types they share, and the
decode that turns a body's bytes into its declaration or into a 400 naming the field.

Each body is a msgspec ``Struct`` (``Body``) whose annotations state every rule of its shape:
types, bounds, lengths, patterns, closed sets of values, descriptions (``msgspec.Meta``). The
same declaration is what the server decodes a body into (in C, without a dict per object) and
what the OpenAPI document shows (``msgspec.json.schema_components``, ``app.api.openapi``); a
body's examples and the rules between its fields (JSON Schema ``if``/``then``) are class
attributes next to it. What is not shape stays in code next to the declaration, in the module
of its area: a record's size and bytes, bounds that are the server's settings, rules across a
list's items.

The wire rules every body follows:

- a JSON null reads as an absent field: a field declared ``Nullable[T]`` with a default takes
  its default for a null (``Body.__post_init__``), and a required field that is null is
  refused as missing;
- a number with a zero fraction (``3.0``, ``1e2``) is the integer it is, as JSON Schema has it;
- a JSON boolean is never an integer (msgspec never takes one for an ``int``);
- a body is JSON throughout, the fields the server skips included: UTF-8, every number within
  a double's range (``strict``, ``check_json``);
- every integer is a 64-bit one (``Int64``) unless its field says less;
- a malformed body is ``InvalidRequest`` (400) with a message naming the field by its path
  (``records[3].value: expected …``) in the words of the schema the document shows; the code
  is ``INVALID_REQUEST`` unless the body's ``codes`` give a field the more specific one its
  endpoint documents (``INVALID_TOPIC``, ``INVALID_CONFIG``…).

Before a body is decoded its values and nesting are counted (``bounded_json``): a body too
complex is 413 ``REQUEST_TOO_COMPLEX`` before anything is built.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from functools import cache, partial
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Optional,
    TypeAlias,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
)

import msgspec
import orjson
from msgspec import Meta

from app.api.wire import bounded_json
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest
from app.topics import NAME_PATTERN, is_valid_name

_T = TypeVar("_T")
B = TypeVar("B", bound=msgspec.Struct)

MAX_INT32 = 2**31 - 1
MAX_INT64 = 2**63 - 1
MEMBER_ID_MAX_CHARS = 255


def whole(pattern: str) -> str:
    """``pattern`` (``^…$``) made to match whole strings in msgspec's check as in JSON Schema:
    msgspec searches with Python's ``re``, whose ``$`` also matches before a final newline, so
    that ``"orders\\n"`` would pass for a name; ``(?![\\s\\S])`` (nothing follows) means the
    same in both."""
    assert pattern.startswith("^") and pattern.endswith("$"), pattern
    return pattern[:-1] + r"(?![\s\S])"


Int64 = Annotated[int, Meta(ge=-(2**63), le=MAX_INT64)]
Int32 = Annotated[int, Meta(ge=-(2**31), le=MAX_INT32)]
Partition = Annotated[int, Meta(ge=0, le=MAX_INT32)]
NonNegative = Annotated[int, Meta(ge=0, le=MAX_INT64)]
Count = Annotated[int, Meta(ge=1, le=MAX_INT64)]
NAME_WORDS = "a name of 1-249 characters of [A-Za-z0-9._-], not . or .."
Name = Annotated[str, Meta(pattern=whole(NAME_PATTERN), max_length=249)]
MemberId = Annotated[str, Meta(min_length=1, max_length=MEMBER_ID_MAX_CHARS)]


def name(value: str, where: str) -> str:
    """A name given outside a body (a query parameter), by the rule of every name
    (``app.topics.is_valid_name``)."""
    if is_valid_name(value):
        return value
    raise InvalidRequest(ErrorCode.INVALID_REQUEST, f"{where}: expected {NAME_WORDS}")


if TYPE_CHECKING:
    # a null never outlives the decode (``Body.__post_init__``): to the type checker the field
    # holds its type
    Nullable: TypeAlias = Annotated[_T, "null reads as the default"]
else:
    Nullable = Optional[_T]  # noqa: UP045  (a generic alias: Nullable[int] is int | None)


class Part(msgspec.Struct, kw_only=True):
    """A part of a body whose fields all default to null (a record, an acknowledgement range:
    the many items of the hot bodies, spared ``Body``'s restoring of defaults). ``examples``:
    whole bodies, shown in the OpenAPI document and run through the parser by the tests;
    ``rules``: JSON Schema rules between fields that the parser applies (``when``);
    ``codes``: the error code of a field's faults where it is not ``INVALID_REQUEST``, by path
    (``[]`` for any item of a list); ``rule_codes``: the same for values of the right type that
    break the field's rule (a pattern, a bound), where a value of the wrong type stays
    ``INVALID_REQUEST``. ``codes`` and ``rule_codes`` are those of the body decoded."""

    examples: ClassVar[list[dict[str, Any]]] = []
    rules: ClassVar[list[dict[str, Any]]] = []
    codes: ClassVar[Mapping[str, ErrorCode]] = {}
    rule_codes: ClassVar[Mapping[str, ErrorCode]] = {}


class Body(Part, kw_only=True):
    """A request body, or a part of one with a field whose default is not null."""

    def __post_init__(self) -> None:
        for name, fill in _defaults(type(self)):
            if getattr(self, name) is None:
                setattr(self, name, fill())


@cache
def _defaults(cls: type[msgspec.Struct]) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """The fields of ``cls`` whose default is not null, with a maker of their default: a null
    sent for one of them reads as absent."""
    out: list[tuple[str, Callable[[], Any]]] = []
    for f in msgspec.structs.fields(cls):
        if f.default_factory is not msgspec.NODEFAULT:
            out.append((f.name, f.default_factory))
        elif f.default is not msgspec.NODEFAULT and f.default is not None:
            out.append((f.name, partial(copy.copy, f.default)))  # [] and {}: one for each
    return tuple(out)


# -- rules between fields, in JSON Schema --------------------------------------------------------


def when(condition: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    return {"if": condition, "then": then}


def is_(field: str, *values: Any) -> dict[str, Any]:
    """The field is present with one of ``values``."""
    return {"required": [field], "properties": {field: {"enum": list(values)}}}


def unset(field: str) -> dict[str, Any]:
    """The field is absent or null (a null reads as absent)."""
    return {"properties": {field: {"type": "null"}}}


def given(*fields: str, **schemas: dict[str, Any]) -> dict[str, Any]:
    """The fields are present and not null (``schemas``: also of these shapes)."""
    props: dict[str, Any] = {f: {"not": {"type": "null"}} for f in fields}
    props.update(schemas)
    return {"required": sorted({*fields, *schemas}), "properties": props}


# -- decoding ---------------------------------------------------------------------------------


class BodyError(InvalidRequest):
    """A body that breaks its declaration; ``path``: where (``("records", 3, "value")``)."""

    def __init__(self, code: ErrorCode, message: str, path: tuple[str | int, ...]) -> None:
        super().__init__(code, message)
        self.path = path


def decode(raw: bytes, body: type[B], settings: Settings, *, optional: bool = False) -> B:
    """``raw`` as ``body``: 400 ``INVALID_REQUEST`` for an empty body (``{}`` where
    ``optional``), text that is not JSON, or a body that breaks its declaration; 413
    ``REQUEST_TOO_COMPLEX`` for one with more values or deeper nesting than the server's
    bounds."""
    if not raw.strip():
        if not optional:
            raise InvalidRequest(
                ErrorCode.INVALID_REQUEST, "the body is empty; expected a JSON object"
            )
        raw = b"{}"
    bounded_json.check(raw, settings.max_json_values, settings.max_json_depth)
    try:
        decoded: B = _decoder(body).decode(raw)
        return decoded
    except msgspec.ValidationError as exc:
        # the decode stopped here: what follows is read before the body is judged, so that
        # text that is not JSON is refused as such wherever it is
        check_json(raw)
        if str(exc).startswith("Object contains unknown field"):
            # a field the declaration does not have: skipped, or refused where it says so
            return _lenient(raw, body)
        if "got `float`" in str(exc):
            # perhaps a number with a zero fraction for an integer: taken as the integer
            return _integral_retry(raw, body)
        raise refusal(body, exc) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:  # text that is not UTF-8 is the latter
        raise not_json(exc) from None


def not_json(exc: Exception) -> InvalidRequest:
    return InvalidRequest(ErrorCode.INVALID_REQUEST, f"the body is not valid JSON: {exc}")


def check_json(raw: bytes) -> None:
    """400 unless ``raw`` (within the bounds already) is JSON throughout, as the server reads
    JSON: UTF-8, every number within a double's range. The decode reads every byte of a body
    that has only declared fields up to its first fault; the rest of such a body, and the
    parts of a body it skips (fields it does not declare), are read here."""
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise not_json(exc) from None


def convert(value: Any, body: type[B], where: str = "") -> B:
    """An already parsed JSON value (a WebSocket frame's) as ``body``; errors name fields from
    ``where``."""
    try:
        return msgspec.convert(_integral(value, _walker(body), ()), body)
    except msgspec.ValidationError as exc:
        raise refusal(body, exc, where) from None


@cache
def _decoder(body: type[B]) -> msgspec.json.Decoder[B]:
    """The decoder of a body that has only the fields it declares: everything in it is read
    (and checked) on the way. A body with any other field is taken by ``_lenient``."""
    return msgspec.json.Decoder(strict(body))


@cache
def _lenient_decoder(body: type[B]) -> msgspec.json.Decoder[B]:
    return msgspec.json.Decoder(body)


def _lenient(raw: bytes, body: type[B]) -> B:
    """``raw``, which has fields ``body`` does not declare, as ``body``: those fields skipped,
    or refused where the declaration says so (``forbid_unknown_fields``); ``raw`` is JSON
    (``check_json``)."""
    try:
        decoded: B = _lenient_decoder(body).decode(raw)
        return decoded
    except msgspec.ValidationError as exc:
        if "got `float`" in str(exc):
            return _integral_retry(raw, body)
        raise refusal(body, exc) from None


def _integral_retry(raw: bytes, body: type[B]) -> B:
    value = msgspec.json.decode(raw)  # JSON (``check_json``): the decode stopped at a number
    fixed = _integral(value, _walker(body), ())
    try:
        return msgspec.convert(fixed, body)
    except msgspec.ValidationError as exc:
        raise refusal(body, exc) from None


@cache
def strict(body: type[B]) -> type[B]:
    """``body`` as a subclass that refuses any field it does not declare, in its parts too.

    The decode skips an undeclared field without reading all of it (a number there is not
    checked against a double's range, a string's bytes not checked as UTF-8); the strict
    subclass makes such a body fail the first decode, and ``_lenient`` has it read whole
    before it is decoded again. A body of declared fields only, as the API's clients send,
    is read once. The subclass's instances equal the declaration's of the same values."""
    overrides: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for f in msgspec.structs.fields(body):
        t = _strict_type(f.type)
        if t is f.type:
            continue
        if f.default_factory is not msgspec.NODEFAULT:
            overrides.append((f.name, t, msgspec.field(default_factory=f.default_factory)))
        elif f.default is not msgspec.NODEFAULT:
            overrides.append((f.name, t, f.default))
        else:
            overrides.append((f.name, t))

    def same(self: msgspec.Struct, other: object) -> Any:
        # equal to the declaration's instance of the same values, as a body decoded is
        if not isinstance(other, body):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in body.__struct_fields__)

    def differs(self: msgspec.Struct, other: object) -> Any:
        equal = same(self, other)
        return equal if equal is NotImplemented else not equal

    made = msgspec.defstruct(
        body.__name__,
        overrides,
        bases=(body,),
        kw_only=True,
        forbid_unknown_fields=True,
        module=body.__module__,
        namespace={"__eq__": same, "__ne__": differs},
    )
    return cast("type[B]", made)


def _strict_type(t: Any) -> Any:
    """``t`` with every Struct in it made ``strict``; ``t`` itself when it holds none."""
    if isinstance(t, type) and issubclass(t, msgspec.Struct):
        return strict(t)
    args = get_args(t)
    if not args:
        return t
    origin = get_origin(t)
    if origin is Annotated:
        inner = _strict_type(args[0])
        return t if inner is args[0] else Annotated[(inner, *t.__metadata__)]
    made = tuple(_strict_type(a) for a in args)
    if all(m is a for m, a in zip(made, args, strict=True)):
        return t
    if origin in (Union, UnionType):
        return Union[made]  # noqa: UP007  (a union built from a tuple)
    return origin[made if len(made) > 1 else made[0]]


def integral(value: Any) -> Any:
    """A number with a zero fraction (``3.0``, ``1e2``) as the integer it is, to JSON Schema
    and so to the OpenAPI document; any other value as it is."""
    if type(value) is float and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def _integral(value: Any, walk: _Walker, at: tuple[str | int, ...]) -> Any:
    """``value`` with every number of zero fraction where the declaration takes an integer
    made that integer (any other value, a record's JSON value among them, as it is)."""
    if type(value) is float:
        return integral(value) if walk.takes_integer(at) else value
    if type(value) is dict:
        return {k: _integral(v, walk, (*at, k)) for k, v in value.items()}
    if type(value) is list:
        return [_integral(v, walk, (*at, i)) for i, v in enumerate(value)]
    return value


# -- errors -----------------------------------------------------------------------------------

_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]*)`$")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<field>[^`]*)`$")
_GOT = re.compile(r", got `(?P<got>[^`]*)`$")


def refusal(body: type[msgspec.Struct], exc: msgspec.ValidationError, where: str = "") -> BodyError:
    """msgspec's ``ValidationError`` (``Expected `int` >= 0 - at `$.records[3].partition```)
    as the ``InvalidRequest`` the wire promises: the field's path, then what it must be in the
    words of the document's schema."""
    m = _AT.match(str(exc))
    assert m is not None
    what = m["what"]
    path: list[str | int] = []
    for step in _STEP.finditer(m["path"] or ""):
        name, index = step.groups()
        path.append(name if name is not None else (int(index) if index != "..." else "…"))
    walk = _walker(body)
    kind = "rule"
    if missing := _MISSING.match(what):
        path.append(missing["field"])
        kind = "missing"
    elif unknown := _UNKNOWN.match(what):
        takes = ", ".join(sorted(walk.properties(path)))
        prefix = f"{_path(where, path)}: " if path or where else ""
        return BodyError(
            _code(body, path, "rule"),
            f"{prefix}unknown field {unknown['field']!r}; {_what(where, path)} takes {takes}",
            tuple(path),
        )
    elif got := _GOT.search(what):
        kind = "missing" if got["got"] == "null" else "type"
    field = _path(where, path)
    code = _code(body, path, kind)
    at = tuple(path)
    if not path and kind != "rule":
        return BodyError(code, f"{_what(where, path)} must be a JSON object", at)
    if kind == "missing":
        return BodyError(code, f"{field}: required, {walk.describe(path)}", at)
    if what.startswith(("Expected", "Invalid enum value")):
        return BodyError(code, f"{field}: expected {walk.describe(path)}", at)
    # a number beyond what a JSON number holds, or the like
    return BodyError(code, f"{field}: {what[:1].lower()}{what[1:]}", at)


def _path(where: str, path: list[str | int]) -> str:
    out = where
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif step == "…":
            out += "[…]"
        else:
            out += f".{step}" if out else step
    return out or "the body"


def _what(where: str, path: list[str | int]) -> str:
    return _path(where, path) if path or where else "the body"


def _code(body: type[msgspec.Struct], path: list[str | int], kind: str) -> ErrorCode:
    key = "".join(f".{s}" if isinstance(s, str) and s != "…" else "[]" for s in path).removeprefix(
        "."
    )
    codes: Mapping[str, ErrorCode] = getattr(body, "codes", {})
    if key in codes:
        return codes[key]
    rule_codes: Mapping[str, ErrorCode] = getattr(body, "rule_codes", {})
    if kind == "rule" and key in rule_codes:
        return rule_codes[key]
    return ErrorCode.INVALID_REQUEST


# -- the schema, walked ----------------------------------------------------------------------

# patterns in words: a message says what a name is rather than quoting its regex
PATTERN_WORDS: dict[str, str] = {whole(NAME_PATTERN): NAME_WORDS}


class _Walker:
    """A body's JSON schema (the document's), followed along a path of fields and items."""

    def __init__(self, body: type[msgspec.Struct]) -> None:
        (self.root,), self.components = msgspec.json.schema_components([body])

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = self.components[node["$ref"].rsplit("/", 1)[1]]
        return node

    def _alternatives(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        node = self._resolve(node)
        if "anyOf" in node:
            return [a for alt in node["anyOf"] for a in self._alternatives(alt)]
        return [node]

    def at(self, path: tuple[str | int, ...] | list[str | int]) -> list[dict[str, Any]]:
        """The schemas a value at ``path`` may have (the alternatives of an ``anyOf``)."""
        nodes = self._alternatives(self.root)
        for step in path:
            following: list[dict[str, Any]] = []
            for node in nodes:
                if isinstance(step, int) and "items" in node:
                    following += self._alternatives(node["items"])
                elif isinstance(step, str):
                    props = node.get("properties", {})
                    if step in props:
                        following += self._alternatives(props[step])
                    elif isinstance(node.get("additionalProperties"), dict):
                        following += self._alternatives(node["additionalProperties"])
            nodes = following
        return nodes

    def takes_integer(self, path: tuple[str | int, ...]) -> bool:
        return any(n.get("type") == "integer" for n in self.at(path))

    def properties(self, path: list[str | int]) -> list[str]:
        return [p for n in self.at(path) for p in n.get("properties", {})]

    def describe(self, path: list[str | int]) -> str:
        words = [_words(n) for n in self.at(path) if n.get("type") != "null"]
        return " or ".join(dict.fromkeys(words)) or "a JSON value"


@cache
def _walker(body: type[msgspec.Struct]) -> _Walker:
    return _Walker(body)


def _sized(kind: str, unit: str, lo: int, hi: int | None) -> str:
    """``a string of 1 to 5 characters``, ``a non-empty list``…: a length rule in words."""
    if hi is None:
        return {0: f"a {kind}", 1: f"a non-empty {kind}"}.get(
            lo, f"a {kind} of at least {lo} {unit}"
        )
    if lo == 0:
        return f"a {kind} of at most {hi} {unit}"
    return f"a {kind} of {lo} to {hi} {unit}"


def _words(schema: dict[str, Any]) -> str:
    """What a value of ``schema`` is, in words."""
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    if "const" in schema:
        return str(schema["const"])
    kind = schema.get("type")
    if kind == "integer":
        lo, hi = schema.get("minimum", -(2**63)), schema.get("maximum", MAX_INT64)
        if hi == MAX_INT64:
            return "an integer" if lo == -(2**63) else f"an integer ≥ {lo}"
        return f"an integer from {lo} to {hi}"
    if kind == "string":
        if "pattern" in schema:
            return PATTERN_WORDS.get(schema["pattern"], f"a string matching {schema['pattern']}")
        return _sized("string", "characters", schema.get("minLength", 0), schema.get("maxLength"))
    if kind == "array":
        return _sized("list", "items", schema.get("minItems", 0), schema.get("maxItems"))
    if kind == "object":
        return "an object"
    if kind == "boolean":
        return "true or false"
    return "a JSON value"
