"""Writes ``src/sluice/errors.py`` from the server's error table (``app.errors.ErrorCode``).

    python clients/python/gen_errors.py            # from the repository root

The client's exception tree is generated, never edited: one class per code, each carrying its
HTTP status, whether it is retriable and the Kafka code. A test regenerates it and compares.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

HEADER = '''"""The exceptions of the Sluice client: one class per error code of the server,
generated from its error table (``clients/python/gen_errors.py``; do not edit by hand).

Every class derives from ``SluiceError`` through the class of its HTTP status
(``BadRequestError``, ``ConflictError``, …), and carries ``code``, ``status``, ``retriable``
and ``kafka_code``. ``error_from(status, body)`` builds the one an answer names.
"""

from __future__ import annotations

from typing import Any, ClassVar


class SluiceError(Exception):
    """An error answer of the server (or, ``code`` empty, one the client could not read)."""

    code: ClassVar[str] = ""
    status: ClassVar[int] = 0
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None

    def __init__(
        self, message: str = "", *, status: int | None = None, throttle_time_ms: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.http_status = self.status if status is None else status
        self.throttle_time_ms = throttle_time_ms

    def __str__(self) -> str:
        return f"{self.code or self.http_status}: {self.message}"


class UnknownServerError(SluiceError):
    """An error answer whose code this client does not know (a newer server)."""

    def __init__(self, message: str = "", *, code: str = "", status: int | None = None,
                 retriable: bool = False, throttle_time_ms: int | None = None) -> None:
        super().__init__(message, status=status, throttle_time_ms=throttle_time_ms)
        self.unknown_code = code
        self.is_retriable = retriable

'''

FOOTER = '''

def error_from(status: int, body: Any) -> SluiceError:
    """The exception an error answer names (``{"error": {"code", "message", …}}``)."""
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return UnknownServerError(f"HTTP {status}", status=status, retriable=status >= 500)
    code = str(detail.get("code", ""))
    message = str(detail.get("message", ""))
    throttle = detail.get("throttle_time_ms")
    throttle = throttle if isinstance(throttle, int) else None
    cls = ERRORS.get(code)
    if cls is None:
        return UnknownServerError(
            message,
            code=code,
            status=status,
            retriable=bool(detail.get("retriable")),
            throttle_time_ms=throttle,
        )
    return cls(message, status=status, throttle_time_ms=throttle)


def raise_first(items: Any) -> None:
    """Raise the first error of an answer's per-item results (items with an ``error``)."""
    for item in items:
        if item.get("error") is not None:
            raise error_from(200, {"error": item["error"]})


def is_retriable(error: BaseException) -> bool:
    if isinstance(error, UnknownServerError):
        return error.is_retriable
    return isinstance(error, SluiceError) and error.retriable
'''

STATUS_CLASSES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "AuthorizationError",
    404: "NotFoundError",
    405: "MethodNotAllowedError",
    408: "RequestTimeoutError",
    409: "ConflictError",
    413: "TooLargeError",
    415: "UnsupportedMediaTypeError",
    429: "ThrottledError",
    431: "HeadersTooLargeError",
    500: "InternalServerError",
    503: "UnavailableError",
    507: "StorageError",
}


def class_name(code: str) -> str:
    return "".join(part.capitalize() for part in code.split("_")) + "Error"


def render() -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from app.errors import ErrorCode

    def attributes(code: ErrorCode) -> str:
        c = code.value
        return (
            f'    """{textwrap.fill(c.message, 90, subsequent_indent="    ")}"""\n\n'
            f'    code: ClassVar[str] = "{code.name}"\n'
            f"    retriable: ClassVar[bool] = {c.retriable}\n"
            f"    kafka_code: ClassVar[int | None] = {c.kafka_code}\n"
        )

    out = [HEADER]
    # a status's class is also the class of the code of the same name (NOT_FOUND is
    # NotFoundError, the base of every 404): ``except NotFoundError`` takes them all
    same_name = {class_name(code.name): code for code in ErrorCode}
    for status, name in STATUS_CLASSES.items():
        own = same_name.get(name)
        body = attributes(own) if own is not None and own.value.status == status else ""
        out.append(f"\nclass {name}(SluiceError):\n    status: ClassVar[int] = {status}\n{body}\n")
    names = []
    for code in ErrorCode:
        base = STATUS_CLASSES[code.value.status]
        name = class_name(code.name)
        names.append((code.name, name))
        if name == base:
            continue
        out.append(f"\nclass {name}({base}):\n{attributes(code)}\n")
    out.append("\nERRORS: dict[str, type[SluiceError]] = {\n")
    out.extend(f'    "{code}": {name},\n' for code, name in names)
    out.append("}\n")
    out.append(FOOTER)
    return "".join(out)


if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "src" / "sluice" / "errors.py"
    target.write_text(render())
    print(f"wrote {target}")
