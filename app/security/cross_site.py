"""Pages of other sites and names other than this server's (docs/security.md#browsers).

Any site open in a developer's browser can make the browser send requests to a server on
their machine: a form, or a ``fetch`` with a ``text/plain`` body, goes out without a preflight
(the server is never asked whether the page may), so without a check a page could delete the
records of ``http://127.0.0.1:8080``; and with a name of the site's own that resolves to
``127.0.0.1`` once its page has loaded (DNS rebinding) the server becomes a page of that site,
whose answers the page reads. A browser never sends an API key on
its own, so a server with keys is safe from both; a server without keys checks, on every
request and WebSocket handshake:

- ``Host``: a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``, any port) or one of
  ``SLUICE_ALLOWED_HOSTS`` (``*``: any). Under rebinding, ``Host`` is the site's name.
- ``Origin``, on requests that may change something (any method but GET, HEAD and OPTIONS):
  absent (a program, not a page), a page of this server (its host and port are those of
  ``Host``), or one of ``SLUICE_WS_ALLOWED_ORIGINS`` (``*``: any). ``null`` (a sandboxed or
  local-file page) is foreign.

WebSocket handshakes are held to the ``Origin`` rule on every server, keys or not: browsers
apply no same-origin rule to WebSockets.

The checks are a scan of the request's headers and a set lookup of ``Host`` as it came (any
other spelling than ``name`` or ``name:port`` of the server's port is parsed first).
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.types import Scope

from app.config import Settings
from app.errors import ErrorCode, SluiceError

LOOPBACK_HOSTS = frozenset({b"localhost", b"127.0.0.1", b"[::1]"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})  # a page's requests that change nothing
ANY = "*"

HOST_REFUSED = SluiceError(
    ErrorCode.HOST_NOT_ALLOWED,
    "this server has no API keys and answers only requests addressed to localhost, 127.0.0.1 "
    "or [::1]; to reach it by another name, list the name in SLUICE_ALLOWED_HOSTS "
    "(serve --allowed-hosts)",
)
ORIGIN_REFUSED = SluiceError(
    ErrorCode.ORIGIN_NOT_ALLOWED,
    "a page of another site may not open this server's WebSockets, nor change anything on it "
    "while it has no API keys; to allow a site, list its origin in SLUICE_WS_ALLOWED_ORIGINS",
)


def host_name(host: bytes) -> bytes:
    """The name of a ``Host`` value, without its port, in lower case: ``[::1]:8080`` is
    ``[::1]``, ``LocalHost:80`` is ``localhost``; an unclosed bracket has no name."""
    if host[:1] == b"[":
        end = host.find(b"]") + 1
    else:
        end = host.find(b":")
        if end < 0:
            return host.lower()
    return host[:end].lower()


def _names(setting: str) -> frozenset[bytes]:
    """The host names of ``SLUICE_ALLOWED_HOSTS``: a port given is ignored, an IPv6 address
    may come with or without brackets."""
    names = set()
    for entry in (e.strip() for e in setting.split(",")):
        if entry.count(":") > 1 and not entry.startswith("["):
            entry = f"[{entry}]"
        if entry:
            names.add(host_name(entry.encode()))
    return frozenset(names)


def _origins(setting: str) -> frozenset[str]:
    return frozenset(o.strip().rstrip("/").lower() for o in setting.split(",") if o.strip())


def same_origin(origin: bytes, host: bytes | None, allowed: Collection[str] = ()) -> bool:
    """Whether a page of ``origin`` may send requests that change something (and open
    WebSockets): a page of this server (the host and port of ``origin`` are those of ``host``,
    the request's ``Host``), or an ``allowed`` origin (``*``: any)."""
    if host is not None:
        # the usual case, the server's own page: "http://" or "https://" followed by Host
        n = len(origin) - len(host)
        if origin.endswith(host) and (
            (n == 7 and origin.startswith(b"http://"))
            or (n == 8 and origin.startswith(b"https://"))
        ):
            return True
    if allowed and (ANY in allowed or origin.decode("latin-1").rstrip("/").lower() in allowed):
        return True
    if host is None:
        return False
    page = urlsplit(origin.decode("latin-1"))
    asked = urlsplit("//" + host.decode("latin-1"))
    if page.scheme not in ("http", "https") or not page.hostname:
        return False  # "null" included
    default = 443 if page.scheme == "https" else 80
    try:
        return (page.hostname, page.port or default) == (asked.hostname, asked.port or default)
    except ValueError:  # a port that is not a number
        return False


class CrossSite:
    """The checks of one server's settings; ``RequestGate`` asks them (``http`` only while the
    server has no keys, ``websocket`` always)."""

    def __init__(self, settings: Settings) -> None:
        names = _names(settings.allowed_hosts)
        self.any_host = ANY.encode() in names
        self.hosts = LOOPBACK_HOSTS | names
        # the Host values of nearly every request, matched as they come: no parsing
        port = str(settings.port).encode()
        self.usual_hosts = self.hosts | {name + b":" + port for name in self.hosts}
        self.origins = _origins(settings.ws_allowed_origins)

    def http(self, scope: Scope) -> SluiceError | None:
        """Why an HTTP request to a server without keys is refused, or None."""
        host, origin = _host_and_origin(scope)
        # no Host at all (HTTP/1.0) is no browser's request: browsers always send it
        if host is not None and host not in self.usual_hosts and not self._host_allowed(host):
            return HOST_REFUSED
        if (
            origin is not None
            and scope["method"] not in SAFE_METHODS
            and not same_origin(origin, host, self.origins)
        ):
            return ORIGIN_REFUSED
        return None

    def websocket(self, scope: Scope, anonymous: bool) -> SluiceError | None:
        """Why a WebSocket handshake is refused, or None: on every server, a page of another
        site; on a server without keys (``anonymous``), also a name not allowed."""
        host, origin = _host_and_origin(scope)
        if anonymous and host is not None and not self._host_allowed(host):
            return HOST_REFUSED
        if origin is not None and not same_origin(origin, host, self.origins):
            return ORIGIN_REFUSED
        return None

    def _host_allowed(self, host: bytes) -> bool:
        return self.any_host or host_name(host) in self.hosts


def _host_and_origin(scope: Scope) -> tuple[bytes | None, bytes | None]:
    """The request's ``Host`` and ``Origin`` headers (None when absent), in one scan."""
    host = origin = None
    for name, value in scope["headers"]:
        if name == b"host":
            host = value
        elif name == b"origin":
            origin = value
    return host, origin
