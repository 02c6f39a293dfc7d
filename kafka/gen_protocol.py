"""Write app/kafka/protocol/messages.py from Kafka's message definitions.

The definitions are the JSON files under ``common/message/`` inside the kafka-clients jar of
the release kafka/pom.xml names (read with zipfile, never unpacked): kafka/lib/ holds the jar
once kafka/cluster.sh has fetched the cluster's jars (``make kafka-protocol`` does), and Maven's
local repository holds it too. The output is one module: a dataclass for each request,
response and header of the APIs listed below, with straight-line encoder and decoder
functions, one pair for each run of versions that share a wire layout.

    .venv/bin/python kafka/gen_protocol.py [--jar PATH] [--output PATH | --output -]

The output is piped through the project's formatter (ruff, from the same environment as this
interpreter) so that it is committed as the formatter leaves it.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "app" / "kafka" / "protocol" / "messages.py"

# The APIs the gateway speaks (docs/kafka-protocol.md), by Kafka's name. A request and its
# response are generated for each; adding one here and regenerating is all a new API needs.
APIS = (
    # connection and cluster
    "ApiVersions",
    "SaslHandshake",
    "SaslAuthenticate",
    "Metadata",
    "DescribeCluster",
    "FindCoordinator",
    # topics, configs, records
    "CreateTopics",
    "DeleteTopics",
    "CreatePartitions",
    "DescribeConfigs",
    "IncrementalAlterConfigs",
    "DeleteRecords",
    "ListOffsets",
    "Produce",
    "Fetch",
    # idempotence and transactions
    "InitProducerId",
    "AddPartitionsToTxn",
    "AddOffsetsToTxn",
    "TxnOffsetCommit",
    "EndTxn",
    "DescribeProducers",
    "DescribeTransactions",
    "ListTransactions",
    # consumer groups
    "ConsumerGroupHeartbeat",
    "ConsumerGroupDescribe",
    "OffsetCommit",
    "OffsetFetch",
    "OffsetDelete",
    "ListGroups",
    "DeleteGroups",
    # share groups
    "ShareGroupHeartbeat",
    "ShareGroupDescribe",
    "ShareFetch",
    "ShareAcknowledge",
    "DescribeShareGroupOffsets",
    "AlterShareGroupOffsets",
    "DeleteShareGroupOffsets",
    # ACLs and quotas
    "DescribeAcls",
    "CreateAcls",
    "DeleteAcls",
    "DescribeClientQuotas",
    "AlterClientQuotas",
)
HEADERS = ("RequestHeader", "ResponseHeader")
# Versions before an API's first flexible one are left out: every broker of Kafka 2.4 and later
# takes a flexible version of each API above that has one, and the older versions would double
# the size of the module. ApiVersions keeps all of its versions, since a broker that does not
# take the version asked for answers at version 0.
ALL_VERSIONS = ("ApiVersions",)

# -- finding the jar ----------------------------------------------------------------------------


def kafka_version() -> str:
    pom = (ROOT / "kafka" / "pom.xml").read_text()
    found = re.search(r"<kafka\.version>([^<]+)</kafka\.version>", pom)
    if found is None:
        raise SystemExit("kafka/pom.xml names no <kafka.version>")
    return found.group(1)


def jar_candidates(version: str) -> list[Path]:
    """Where the kafka-clients jar is: kafka/lib/ as kafka/cluster.sh's fetch lays it out
    (Maven copies each dependency as artifact-version.jar), then Maven's local repository."""
    name = f"kafka-clients-{version}.jar"
    local = Path.home() / ".m2" / "repository" / "org" / "apache" / "kafka" / "kafka-clients"
    return [ROOT / "kafka" / "lib" / name, local / version / name]


def find_jar(version: str) -> Path:
    for path in jar_candidates(version):
        if path.is_file():
            return path
    tried = ", ".join(str(p) for p in jar_candidates(version))
    raise SystemExit(
        f"kafka-clients {version} not found ({tried}): run `bash kafka/cluster.sh fetch` first"
    )


# -- reading the definitions --------------------------------------------------------------------


def strip_comments(text: str) -> str:
    """The JSON of a definition without its // comments (which may follow a value on a line;
    a // inside a string is text)."""
    out = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def read_definitions(jar: Path, names: Iterable[str]) -> dict[str, dict[str, Any]]:
    with zipfile.ZipFile(jar) as z:
        return {
            name: json.loads(strip_comments(z.read(f"common/message/{name}.json").decode()))
            for name in names
        }


# -- the model ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Versions:
    """A version range as the definitions write it: "3", "1-4", "2+", or "none"."""

    lo: int
    hi: int | None  # None: no upper bound
    empty: bool = False

    @staticmethod
    def parse(spec: str | None) -> Versions:
        if spec is None or spec == "none":
            return Versions(0, 0, empty=True)
        if spec.endswith("+"):
            return Versions(int(spec[:-1]), None)
        if "-" in spec:
            lo, hi = spec.split("-")
            return Versions(int(lo), int(hi))
        return Versions(int(spec), int(spec))

    def __contains__(self, v: object) -> bool:
        if self.empty or not isinstance(v, int):
            return False
        return v >= self.lo and (self.hi is None or v <= self.hi)

    def describe(self) -> str:
        if self.empty:
            return "none"
        if self.hi is None:
            return f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


FIXED = {  # struct format code and size of the fixed-size types
    "bool": ("?", 1),
    "int8": ("b", 1),
    "int16": ("h", 2),
    "uint16": ("H", 2),
    "int32": ("i", 4),
    "uint32": ("I", 4),
    "int64": ("q", 8),
    "float64": ("d", 8),
    "uuid": ("16s", 16),
}
PY_TYPES = {
    "bool": "bool",
    "int8": "int",
    "int16": "int",
    "uint16": "int",
    "int32": "int",
    "uint32": "int",
    "int64": "int",
    "float64": "float",
    "uuid": "UUID",
    "string": "str",
    "bytes": "bytes",
    "records": "Records",
}


def snake(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    return s + "_" if keyword.iskeyword(s) else s


@dataclass
class Field:
    name: str
    type: str
    versions: Versions
    nullable: Versions
    tag: int | None
    tagged: Versions
    default: Any
    ignorable: bool
    # a field's own flexibleVersions: where its strings are compact, overriding the message's
    # (the request header's client id keeps a classic length in the header's flexible version)
    own_flexible: Versions | None

    @property
    def attr(self) -> str:
        return snake(self.name)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.element not in FIXED and self.element not in ("string", "bytes", "records")

    def is_tagged(self, v: int) -> bool:
        return self.tag is not None and v in self.tagged

    def compact(self, v: int, flexible: bool) -> bool:
        return flexible and (self.own_flexible is None or v in self.own_flexible)

    @property
    def may_be_none(self) -> bool:
        """Whether the Python attribute may hold None (some version carries null, or null is
        the default; a records field defaults to null)."""
        if not self.is_array and self.element in FIXED:
            return False
        return not self.nullable.empty or self.default == "null" or self.type == "records"


@dataclass
class StructDef:
    name: str
    fields: list[Field]


@dataclass
class MessageDef:
    name: str
    kind: str  # request, response, header
    api_key: int | None
    valid: Versions
    flexible: Versions
    unstable_latest: bool
    structs: dict[str, StructDef]  # by name; the message's own fields under its own name
    all_versions: bool = False  # generate the versions before the first flexible one too

    @property
    def versions(self) -> range:
        """The versions generated."""
        assert self.valid.hi is not None
        lo = self.valid.lo
        if not self.all_versions and not self.flexible.empty and self.kind != "header":
            lo = max(lo, self.flexible.lo)
        return range(lo, self.valid.hi + 1)

    @property
    def max_stable(self) -> int:
        return self.versions[-1] - (1 if self.unstable_latest else 0)

    @property
    def first_flexible(self) -> int | None:
        return None if self.flexible.empty else self.flexible.lo


def build_message(d: dict[str, Any], all_versions: bool = False) -> MessageDef:
    name = d["name"]
    structs: dict[str, StructDef] = {}
    common = {c["name"]: c for c in d.get("commonStructs", [])}

    def parse_fields(specs: list[dict[str, Any]]) -> list[Field]:
        fields = []
        for s in specs:
            own = s.get("flexibleVersions")
            f = Field(
                name=s["name"],
                type=s["type"],
                versions=Versions.parse(s["versions"]),
                nullable=Versions.parse(s.get("nullableVersions")),
                tag=s.get("tag"),
                tagged=Versions.parse(s.get("taggedVersions")),
                default=s.get("default"),
                ignorable=bool(s.get("ignorable", False)),
                own_flexible=None if own is None else Versions.parse(own),
            )
            fields.append(f)
            if f.is_struct:
                sub = f.element
                if "fields" in s:
                    define(sub, s["fields"])
                elif sub in common:
                    define(sub, common[sub]["fields"])
                else:
                    raise SystemExit(f"{name}.{f.name}: no definition of {sub}")
        return fields

    def define(sname: str, specs: list[dict[str, Any]]) -> None:
        if sname in structs:
            return  # a common structure used twice
        structs[sname] = StructDef(sname, [])  # claimed before its fields are read
        structs[sname].fields = parse_fields(specs)

    structs[name] = StructDef(name, [])
    structs[name].fields = parse_fields(d["fields"])
    m = MessageDef(
        name=name,
        kind=d["type"],
        api_key=d.get("apiKey"),
        valid=Versions.parse(d["validVersions"]),
        flexible=Versions.parse(d.get("flexibleVersions")),
        unstable_latest=bool(d.get("latestVersionUnstable", False)),
        structs=structs,
        all_versions=all_versions,
    )
    # a field of none of the generated versions (only of removed ones) is left out
    for s in structs.values():
        s.fields = [f for f in s.fields if any(v in f.versions for v in m.versions)]
    return m


# -- layouts ------------------------------------------------------------------------------------
# A structure's layout at a version is everything its encoding depends on there: which fields,
# in which encodings, with which nested layouts, which tagged fields, and which absent fields
# must hold their defaults. Versions with equal layouts share one encoder and one decoder.

Layout = tuple[Any, ...]


class Layouts:
    def __init__(self, m: MessageDef) -> None:
        self.m = m
        self.memo: dict[tuple[str, int], Layout] = {}

    def of(self, sname: str, v: int) -> Layout:
        key = (sname, v)
        if key not in self.memo:
            flexible = v in self.m.flexible
            fields = self.m.structs[sname].fields
            regular = tuple(
                self.field(f, v, flexible)
                for f in fields
                if v in f.versions and not (flexible and f.is_tagged(v))
            )
            tagged = tuple(
                self.field(f, v, True)
                for f in sorted(fields, key=lambda f: f.tag or 0)
                if v in f.versions and flexible and f.is_tagged(v)
            )
            absent = tuple(f.name for f in fields if v not in f.versions and not f.ignorable)
            self.memo[key] = (sname, regular, tagged, flexible, absent)
        return self.memo[key]

    def field(self, f: Field, v: int, flexible: bool) -> Layout:
        child = self.of(f.element, v) if f.is_struct else None
        return (f.name, f.type, f.compact(v, flexible), v in f.nullable, child)


# -- code ---------------------------------------------------------------------------------------

STRING_WRITERS = {
    (False, False): "write_string",
    (False, True): "write_nullable_string",
    (True, False): "write_compact_string",
    (True, True): "write_compact_nullable_string",
}
STRING_READERS = {k: w.replace("write_", "read_") for k, w in STRING_WRITERS.items()}
BYTES_WRITERS = {
    (False, False): "write_bytes",
    (False, True): "write_nullable_bytes",
    (True, False): "write_compact_bytes",
    (True, True): "write_compact_nullable_bytes",
}
BYTES_READERS = {k: w.replace("write_", "read_") for k, w in BYTES_WRITERS.items()}
RECORDS_READERS = {k: r.replace("bytes", "records") for k, r in BYTES_READERS.items()}


class Lines:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.depth = 0

    def __call__(self, line: str = "") -> None:
        self.out.append(("    " * self.depth + line) if line else "")

    def indent(self) -> Lines:
        self.depth += 1
        return self

    def dedent(self) -> None:
        self.depth -= 1


class Generator:
    def __init__(self, messages: list[MessageDef]) -> None:
        self.messages = messages
        self.structs: dict[str, str] = {}  # struct format → constant name
        self.used: set[str] = set()  # names imported from primitives and errors
        self.functions = Lines()
        self.encoders: dict[tuple[str, Layout], str] = {}
        self.decoders: dict[tuple[str, Layout], str] = {}

    # -- names and literals --

    def struct_const(self, fmt: str) -> str:
        if fmt not in self.structs:
            self.structs[fmt] = "_S_" + fmt.replace("?", "o").replace("16s", "u")
        return self.structs[fmt]

    def use(self, name: str) -> str:
        self.used.add(name)
        return name

    @staticmethod
    def qual(m: MessageDef, sname: str) -> str:
        return m.name if sname == m.name else f"{m.name}.{sname}"

    def py_type(self, m: MessageDef, f: Field) -> str:
        el = f.element
        t = self.qual(m, el) if f.is_struct else PY_TYPES[el]
        if el == "records":
            t = "Buffer"
        if f.is_array:
            t = f"list[{t}]"
        return f"{t} | None" if f.may_be_none else t

    def default_value(self, m: MessageDef, f: Field) -> str:
        """The default as an expression evaluated afresh where it is used."""
        d = f.default
        if f.is_array:
            return "None" if d == "null" else "[]"
        el = f.element
        if f.is_struct:
            return "None" if d == "null" else f"{self.qual(m, el)}()"
        if el == "bool":
            return "True" if str(d).lower() == "true" else "False"
        if el == "float64":
            return repr(float(d)) if d is not None else "0.0"
        if el in FIXED and el != "uuid":
            return str(int(str(d), 0)) if d not in (None, "") else "0"
        if el == "uuid":
            return self.use("ZERO_UUID")
        if el == "string":
            return "None" if d == "null" else json.dumps(d if d is not None else "")
        if el == "bytes":
            return "None" if d == "null" else 'b""'
        return "None"  # records

    def class_default(self, m: MessageDef, f: Field) -> str:
        value = self.default_value(m, f)
        if value == "[]":
            return "field(default_factory=list)"
        if value.endswith("()"):
            return f"field(default_factory=lambda: {value})"
        return value

    def differs(self, m: MessageDef, f: Field, expr: str) -> str:
        """A condition true when ``expr`` is not the field's default."""
        value = self.default_value(m, f)
        if value == "None":
            return f"{expr} is not None"
        if value == "False":
            return expr
        return f"{expr} != {value}"

    # -- encoders --

    def encoder(self, m: MessageDef, layouts: Layouts, sname: str, v: int) -> str:
        layout = layouts.of(sname, v)
        key = (m.name, layout)
        if key in self.encoders:
            return self.encoders[key]
        fname = f"_encode_{m.name}" + ("" if sname == m.name else f"_{sname}") + f"_v{v}"
        self.encoders[key] = fname
        s = m.structs[sname]
        _, regular, tagged, flexible, absent = layout
        body = Lines()
        body.depth = 1
        versions = [w for w in m.versions if layouts.of(sname, w) == layout]
        for f in s.fields:
            if f.name in absent:
                body(f"if {self.differs(m, f, 'o.' + f.attr)}:")
                body.indent()(
                    f"raise {self.use('UnsupportedVersionError')}("
                    f'"{m.name} v{v}: {f.name} cannot be carried")'
                )
                body.dedent()
        by_name = {f.name: f for f in s.fields}
        present = [by_name[item[0]] for item in regular]
        i = 0
        while i < len(present):
            f = present[i]
            if not f.is_array and f.element in FIXED:
                run = [f]
                while (
                    i + len(run) < len(present)
                    and not present[i + len(run)].is_array
                    and present[i + len(run)].element in FIXED
                ):
                    run.append(present[i + len(run)])
                fmt = "".join(FIXED[g.element][0] for g in run)
                args = ", ".join(
                    f"o.{g.attr}.bytes" if g.element == "uuid" else f"o.{g.attr}" for g in run
                )
                body(f"b += {self.struct_const(fmt)}.pack({args})")
                i += len(run)
                continue
            self.encode_value(m, layouts, f, v, flexible, f"o.{f.attr}", "b", body)
            i += 1
        if flexible:
            if not tagged:
                body("b.append(0)  # no tagged fields")
            else:
                body(f"tagged: list[tuple[int, {self.use('Buffer')}]] = []")
                for item in tagged:
                    f = by_name[item[0]]
                    body(f"if {self.differs(m, f, 'o.' + f.attr)}:")
                    body.indent()
                    body("t = bytearray()")
                    self.encode_value(m, layouts, f, v, True, f"o.{f.attr}", "t", body)
                    body(f"tagged.append(({f.tag}, t))")
                    body.dedent()
                body(f"{self.use('write_tagged_fields')}(b, tagged)")
        fn = self.functions
        fn()
        fn()
        fn(f"def {fname}(o: {self.qual(m, sname)}, b: bytearray) -> None:")
        fn(f'    """Versions {ranges(versions)}."""')
        if not body.out:
            body("pass")
        fn.out.extend(body.out)
        return fname

    def encode_value(
        self,
        m: MessageDef,
        layouts: Layouts,
        f: Field,
        v: int,
        flexible: bool,
        expr: str,
        buf: str,
        out: Lines,
    ) -> None:
        compact = f.compact(v, flexible)
        nullable = v in f.nullable
        el = f.element
        check = f.may_be_none and not nullable
        if f.is_array or check or (f.is_struct and nullable):
            local = "x_" + f.attr  # read once, used more than once
            out(f"{local} = {expr}")
        else:
            local = expr
        if check:
            out(f"if {local} is None:")
            out.indent()(
                f"raise {self.use('UnsupportedVersionError')}("
                f'"{f.name} is null, which version {v} cannot carry")'
            )
            out.dedent()
        if f.is_array:
            writer = self.use("write_compact_array_length" if compact else "write_array_length")
            if nullable:
                out(f"{writer}({buf}, None if {local} is None else len({local}))")
                out(f"if {local} is not None:")
                out.indent()
            else:
                out(f"{writer}({buf}, len({local}))")
            if f.is_struct:
                child = self.encoder(m, layouts, el, v)
                out(f"for e_{f.attr} in {local}:")
                out.indent()(f"{child}(e_{f.attr}, {buf})")
                out.dedent()
            elif el == "uuid":
                out(f"for e_{f.attr} in {local}:")
                out.indent()(f"{buf} += e_{f.attr}.bytes")
                out.dedent()
            elif el in FIXED:
                code = FIXED[el][0]
                out(f'{self.use("write_number_array")}({buf}, "{code}", {local})')
            else:
                writers = STRING_WRITERS if el == "string" else BYTES_WRITERS
                out(f"for e_{f.attr} in {local}:")
                out.indent()(f"{self.use(writers[compact, False])}({buf}, e_{f.attr})")
                out.dedent()
            if nullable:
                out.dedent()
            return
        if f.is_struct:
            child = self.encoder(m, layouts, el, v)
            if nullable:
                out(f"if {local} is None:")
                out.indent()(f"{buf}.append(0xFF)  # int8 -1: null")
                out.dedent()
                out("else:")
                out.indent()(f"{buf}.append(1)")
                out(f"{child}({local}, {buf})")
                out.dedent()
            else:
                out(f"{child}({local}, {buf})")
            return
        if el in FIXED:
            code = FIXED[el][0]
            value = f"{local}.bytes" if el == "uuid" else local
            out(f"{buf} += {self.struct_const(code)}.pack({value})")
            return
        writers = STRING_WRITERS if el == "string" else BYTES_WRITERS
        out(f"{self.use(writers[compact, nullable])}({buf}, {local})")

    # -- decoders --

    def decoder(self, m: MessageDef, layouts: Layouts, sname: str, v: int) -> str:
        layout = layouts.of(sname, v)
        key = (m.name, layout)
        if key in self.decoders:
            return self.decoders[key]
        fname = f"_decode_{m.name}" + ("" if sname == m.name else f"_{sname}") + f"_v{v}"
        self.decoders[key] = fname
        s = m.structs[sname]
        _, regular, tagged, flexible, _ = layout
        cls = self.qual(m, sname)
        body = Lines()
        body.depth = 1
        versions = [w for w in m.versions if layouts.of(sname, w) == layout]
        by_name = {f.name: f for f in s.fields}
        present = [by_name[item[0]] for item in regular]
        i = 0
        while i < len(present):
            f = present[i]
            if not f.is_array and f.element in FIXED:
                run = [f]
                while (
                    i + len(run) < len(present)
                    and not present[i + len(run)].is_array
                    and present[i + len(run)].element in FIXED
                ):
                    run.append(present[i + len(run)])
                fmt = "".join(FIXED[g.element][0] for g in run)
                size = sum(FIXED[g.element][1] for g in run)
                # a uuid comes out as its 16 bytes, under another name
                names = ", ".join(f"{'u' if g.element == 'uuid' else 'f'}_{g.attr}" for g in run)
                if len(run) == 1:
                    names += ","
                body(f"{names} = {self.struct_const(fmt)}.unpack_from(buf, pos)")
                body(f"pos += {size}")
                for g in run:
                    if g.element == "uuid":
                        body(f"f_{g.attr} = UUID(bytes=u_{g.attr})")
                i += len(run)
                continue
            self.decode_value(m, layouts, f, v, flexible, body)
            i += 1
        if flexible:
            tagged_fields = [by_name[item[0]] for item in tagged]
            if not tagged_fields:
                body(f"pos = {self.use('skip_tagged_fields')}(buf, pos) if buf[pos] else pos + 1")
            else:
                for f in tagged_fields:
                    body(f"f_{f.attr}: {self.py_type(m, f)} = {self.default_value(m, f)}")
                body("if buf[pos]:")
                body.indent()
                body(f"n_tags, pos = {self.use('read_unsigned_varint')}(buf, pos)")
                body("for _ in range(n_tags):")
                body.indent()
                body(f"tag, pos, end = {self.use('read_tag_header')}(buf, pos)")
                for j, f in enumerate(tagged_fields):
                    body(f"{'if' if j == 0 else 'elif'} tag == {f.tag}:")
                    body.indent()
                    self.decode_value(m, layouts, f, v, True, body, declared=True)
                    body.dedent()
                body("pos = end")
                body.dedent()
                body.dedent()
                body("else:")
                body.indent()("pos += 1")
                body.dedent()
        args = []
        for f in s.fields:
            args.append(f"f_{f.attr}" if v in f.versions else self.default_value(m, f))
        fn = self.functions
        fn()
        fn()
        fn(f"def {fname}(buf: memoryview, pos: int) -> tuple[{cls}, int]:")
        fn(f'    """Versions {ranges(versions)}."""')
        fn.out.extend(body.out)
        fn(f"    return {cls}({', '.join(args)}), pos")
        return fname

    def decode_value(
        self,
        m: MessageDef,
        layouts: Layouts,
        f: Field,
        v: int,
        flexible: bool,
        out: Lines,
        declared: bool = False,
    ) -> None:
        """Decode field ``f`` at ``pos`` into ``f_<attr>``, moving ``pos`` past it."""
        compact = f.compact(v, flexible)
        nullable = v in f.nullable
        el = f.element
        var = f"f_{f.attr}"
        ptype = self.py_type(m, f)
        if f.is_array:
            reader = "read_compact_array_length" if compact else "read_array_length"
            out(f"n, pos = {self.use(reader)}(buf, pos)")
            if not declared:
                out(f"{var}: {ptype}")
            if nullable:
                out("if n < 0:")
                out.indent()(f"{var} = None")
                out.dedent()
                out("else:")
                out.indent()
            else:
                out("if n < 0:")
                out.indent()(
                    f'raise {self.use("DecodeError")}("{f.name}: null where it is not nullable")'
                )
                out.dedent()
            if el in FIXED and el != "uuid":
                code, size = FIXED[el]
                out(f'{var}, pos = {self.use("read_number_array")}(buf, pos, n, "{code}", {size})')
            else:
                if f.is_struct:
                    read = self.decoder(m, layouts, el, v)
                elif el == "uuid":
                    read = self.use("read_uuid")
                else:
                    readers = STRING_READERS if el == "string" else BYTES_READERS
                    read = self.use(readers[compact, False])
                out(f"{var} = []")
                out("for _ in range(n):")
                out.indent()(f"e_{f.attr}, pos = {read}(buf, pos)")
                out(f"{var}.append(e_{f.attr})")
                out.dedent()
            if nullable:
                out.dedent()
            return
        if f.is_struct:
            read = self.decoder(m, layouts, el, v)
            if nullable:
                if not declared:
                    out(f"{var}: {ptype}")
                out("if buf[pos] & 0x80:  # int8 -1: null")
                out.indent()(f"{var} = None")
                out("pos += 1")
                out.dedent()
                out("else:")
                out.indent()(f"{var}, pos = {read}(buf, pos + 1)")
                out.dedent()
            else:
                out(f"{var}, pos = {read}(buf, pos)")
            return
        if el in FIXED:
            code, size = FIXED[el]
            if el == "uuid":
                out(f"{var}, pos = {self.use('read_uuid')}(buf, pos)")
            else:
                out(f"({var},) = {self.struct_const(code)}.unpack_from(buf, pos)")
                out(f"pos += {size}")
            return
        if el == "string":
            readers = STRING_READERS
        elif el == "bytes":
            readers = BYTES_READERS
        else:
            readers = RECORDS_READERS
        out(f"{var}, pos = {self.use(readers[compact, nullable])}(buf, pos)")

    # -- classes --

    def message_class(self, m: MessageDef, out: Lines) -> None:
        if m.kind == "request":
            response = m.name[: -len("Request")] + "Response"
            base = f"Request[{response}]"
        elif m.kind == "response":
            base = "Response"
        else:
            base = "Header"
        out()
        out()
        out("@dataclass(slots=True)")
        out(f"class {m.name}({base}):")
        out.indent()
        what = f"API key {m.api_key}" if m.api_key is not None else "a header"
        flex = m.first_flexible
        out(
            f'"""{m.name} ({what}): versions {m.valid.describe()}, flexible '
            f'{"from " + str(flex) if flex is not None else "in none"}."""'
        )
        out()
        out(f'NAME: ClassVar[str] = "{m.name}"')
        if m.api_key is not None:
            out(f"API_KEY: ClassVar[int] = {m.api_key}")
        out(f"MIN_VERSION: ClassVar[int] = {m.versions[0]}")
        out(f"MAX_VERSION: ClassVar[int] = {m.versions[-1]}")
        out(f"MAX_STABLE_VERSION: ClassVar[int] = {m.max_stable}")
        out(f"FIRST_FLEXIBLE_VERSION: ClassVar[int | None] = {flex}")
        for sname in self.nested_order(m):
            s = m.structs[sname]
            out()
            out("@dataclass(slots=True)")
            out(f"class {sname}(Struct):")
            out.indent()
            self.fields(m, s, out)
            out.dedent()
        out()
        self.fields(m, m.structs[m.name], out)
        if m.kind == "request":
            out()
            out(f"def decode_response(self, data: memoryview, version: int) -> {response}:")
            out.indent()(f"return {response}.decode(data, version)")
            out.dedent()
        out.dedent()

    def fields(self, m: MessageDef, s: StructDef, out: Lines) -> None:
        out("FIELDS: ClassVar[dict[str, FieldSpec]] = {")
        for f in s.fields:
            tag = "None" if f.tag is None else str(f.tag)
            out(
                f'    "{f.attr}": ("{f.type}", "{f.versions.describe()}", '
                f'"{f.nullable.describe()}", {tag}),'
            )
        out("}")
        out()
        for f in s.fields:
            out(f"{f.attr}: {self.py_type(m, f)} = {self.class_default(m, f)}")

    @staticmethod
    def nested_order(m: MessageDef) -> list[str]:
        """The message's structures, each after those its fields use."""
        order: list[str] = []

        def visit(sname: str) -> None:
            for f in m.structs[sname].fields:
                if f.is_struct and f.element not in order:
                    visit(f.element)
                    order.append(f.element)

        visit(m.name)
        return order

    # -- the module --

    def module(self, version: str, jar_name: str) -> str:
        classes = Lines()
        tables = Lines()
        for m in self.messages:
            self.message_class(m, classes)
            layouts = Layouts(m)
            encoders = {v: self.encoder(m, layouts, m.name, v) for v in m.versions}
            decoders = {v: self.decoder(m, layouts, m.name, v) for v in m.versions}
            tables()
            tables(f"{m.name}.ENCODERS = {{{', '.join(f'{v}: {e}' for v, e in encoders.items())}}}")
            tables(f"{m.name}.DECODERS = {{{', '.join(f'{v}: {d}' for v, d in decoders.items())}}}")
        requests = [m for m in self.messages if m.kind == "request"]
        responses = [m for m in self.messages if m.kind == "response"]
        tables()
        tables("# every request and response generated here, by API key")
        tables("REQUESTS: dict[int, type[Request[Any]]] = {")
        for m in sorted(requests, key=lambda m: m.api_key or 0):
            tables(f"    {m.api_key}: {m.name},")
        tables("}")
        tables("RESPONSES: dict[int, type[Response]] = {")
        for m in sorted(responses, key=lambda m: m.api_key or 0):
            tables(f"    {m.api_key}: {m.name},")
        tables("}")

        head = [
            f'"""Kafka\'s messages: generated from Kafka {version}\'s message definitions.',
            "",
            f"Written by kafka/gen_protocol.py from common/message/*.json in {jar_name};",
            "do not edit by hand. To regenerate: ``make kafka-protocol`` (or",
            "``.venv/bin/python kafka/gen_protocol.py [--jar PATH]``); docs/kafka-protocol.md.",
            "",
            "Each class holds a message's fields over all its versions; its ENCODERS and",
            "DECODERS map each version to the functions below, one for each run of versions",
            "that share a wire layout.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import struct",
            "from dataclasses import dataclass, field",
            "from typing import Any, ClassVar",
            "from uuid import UUID",
            "",
        ]
        errors = sorted(n for n in self.used if n in ("DecodeError", "UnsupportedVersionError"))
        prims = sorted(n for n in self.used if n not in errors)
        if errors:
            head.append(f"from app.kafka.protocol.errors import {', '.join(errors)}")
        head.append(
            "from app.kafka.protocol.message import FieldSpec, Header, Request, Response, Struct"
        )
        head.append("from app.kafka.protocol.primitives import (")
        # in the order the import sorter keeps: constants, classes, functions
        kinds = sorted({*prims, "Buffer"}, key=lambda n: (not n.isupper(), n.islower(), n))
        head.extend(f"    {n}," for n in kinds)
        head.append(")")
        head.append("")
        for fmt, const in sorted(self.structs.items(), key=lambda kv: kv[1]):
            head.append(f'{const} = struct.Struct(">{fmt}")')
        return "\n".join([*head, *classes.out, *self.functions.out, *tables.out]) + "\n"


def ranges(versions: list[int]) -> str:
    """1, 2, 3, 5 → "1-3, 5"."""
    parts: list[str] = []
    start = prev = versions[0]
    for v in [*versions[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def generate(jar: Path) -> str:
    names = [*HEADERS, *(f"{api}{kind}" for api in APIS for kind in ("Response", "Request"))]
    definitions = read_definitions(jar, names)
    messages = [
        build_message(definitions[n], all_versions=n.startswith(ALL_VERSIONS)) for n in names
    ]
    return Generator(messages).module(kafka_version(), jar.name)


def formatted(source: str) -> str:
    """``source`` as the project's formatter writes it (settings from pyproject.toml)."""
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(OUTPUT.relative_to(ROOT)), "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"ruff format failed:\n{done.stderr}")
    return done.stdout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", type=Path, help="the kafka-clients jar (default: found)")
    parser.add_argument("--output", default=str(OUTPUT), help="a path, or - for stdout")
    args = parser.parse_args(argv)
    jar = args.jar or find_jar(kafka_version())
    source = formatted(generate(jar))
    if args.output == "-":
        sys.stdout.write(source)
    else:
        Path(args.output).write_text(source)


if __name__ == "__main__":
    main()
