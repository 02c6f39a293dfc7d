"""``python -m app serve``: run the server (what ``make serve`` runs); installed, the same
program is the command ``sluice-server``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import sys
from collections.abc import Generator
from functools import partial
from typing import Any

import uvicorn

from app.api.connections import protocol_class, raise_fd_limit
from app.config import Settings, SettingsError, describe
from app.datadir import DataDirLocked
from app.errors import SluiceError
from app.main import create_app
from app.runtime import Broker
from app.security import acls_cli, keys_cli, quotas_cli
from app.security.exposure import has_keys, refusal

# how long the WebSocket handlers get to send their own close frames at shutdown
SOCKETS_CLOSE_S = 0.2


class _Server(uvicorn.Server):
    """Releases long polls as soon as shutdown begins, so SIGTERM drains promptly."""

    broker: Broker | None = None

    def handle_exit(self, sig: int, frame: Any) -> None:
        if self.broker is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                loop.call_soon_threadsafe(self.broker.begin_shutdown)
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """WebSockets first: the event feed and push sessions close theirs with 1001 (going
        away), given a moment to send it, before uvicorn ends every connection with 1012."""
        if self.broker is not None:
            self.broker.begin_shutdown()
            await asyncio.sleep(SOCKETS_CLOSE_S)
        await super().shutdown(sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # After a clean, drained shutdown on SIGTERM/SIGINT exit 0 instead of re-raising the
        # signal (which would end the process with 128 + signal number).
        with super().capture_signals():
            yield
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list) and self.broker is not None and self.broker.stopped:
                captured.clear()


def _parser(prog: str) -> argparse.ArgumentParser:
    epilog = "environment variables (flags win):\n" + "\n".join(
        f"  {name:<42} {default!s:<12} {doc}" for name, default, doc in describe()
    )
    p = argparse.ArgumentParser(
        prog=prog,
        description="Sluice server",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve",
        help="run the server",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--data-dir")
    serve.add_argument("--backend", choices=("embedded", "kafka"))
    serve.add_argument("--kafka-bootstrap", help="host:port,... of the Kafka backend's brokers")
    serve.add_argument("--kafka-request-timeout-ms", type=int)
    serve.add_argument("--fsync", choices=("always", "interval"))
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"))
    serve.add_argument("--super-users", help="principals every ACL check allows, comma-separated")
    acls_cli.register(sub)
    serve.add_argument(
        "--allow-anonymous",
        action="store_true",
        default=None,
        help="serve without API keys on an address other than loopback",
    )
    serve.add_argument(
        "--allowed-hosts",
        help="host names besides loopback by which a server without keys may be reached, "
        "comma-separated, or '*'",
    )
    serve.add_argument("--tls-certfile", help="PEM certificate: serve HTTPS and wss://")
    serve.add_argument("--tls-keyfile", help="PEM private key of --tls-certfile")
    keys_cli.register(sub)
    quotas_cli.register(sub)
    return p


def _keyed(settings: Settings, broker: Broker) -> bool:
    """Whether the server has an API key: in its data directory, or on the Kafka backend in
    the cluster (read here, before the gateway starts)."""
    if broker.kafka is None:
        return has_keys(broker.data.metadata)
    # imported here: the embedded server never loads the Kafka client
    from app.kafka.errors_map import from_protocol
    from app.kafka.keys import cluster_has_keys
    from app.kafka.protocol.errors import ProtocolError

    try:
        return asyncio.run(cluster_has_keys(settings))
    except ProtocolError as exc:
        raise from_protocol(exc) from None


def main(argv: list[str] | None = None, prog: str = "sluice-server") -> int:
    """The console command ``sluice-server`` (pyproject.toml) calls this with no arguments;
    ``python -m app`` names itself as typed."""
    args = _parser(prog).parse_args(argv)
    if args.command == "acls":
        return acls_cli.main(args)
    if args.command == "keys":
        return keys_cli.main(args)
    if args.command == "quotas":
        return quotas_cli.main(args)
    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            data_dir=args.data_dir,
            backend=args.backend,
            kafka_bootstrap=args.kafka_bootstrap,
            kafka_request_timeout_ms=args.kafka_request_timeout_ms,
            fsync=args.fsync,
            log_level=args.log_level,
            super_users=args.super_users,
            allow_anonymous=args.allow_anonymous,
            allowed_hosts=args.allowed_hosts,
            tls_certfile=args.tls_certfile,
            tls_keyfile=args.tls_keyfile,
        )
    except SettingsError as exc:
        print(f"sluice: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    broker = Broker(settings)
    if broker.kafka is None:
        try:
            broker.data.lock()
        except DataDirLocked as exc:
            print(f"sluice: {exc}", file=sys.stderr)
            return 1
    try:
        refused = refusal(settings, partial(_keyed, settings, broker))
    except SluiceError as exc:
        refused = f"cannot read the API keys from the Kafka cluster: {exc.message}"
    if refused is not None:
        if broker.kafka is None:
            broker.data.unlock()
        print(f"sluice: {refused}", file=sys.stderr)
        return 2
    app = create_app(settings, broker=broker, freeze_gc=True)
    # connections beyond what the open-files limit allows would starve the storage of files
    connections = raise_fd_limit(settings.max_connections)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        loop="auto",
        http=protocol_class(settings.replace(max_connections=connections)),
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=30,
        ws_max_size=settings.ws_max_frame_bytes,
        lifespan="on",
        # the server reads neither the client's address nor the scheme: forwarding headers
        # would change nothing it does, and their layer costs every request
        proxy_headers=False,
        # no "server: uvicorn" on every answer: it tells a client nothing it needs, and names
        # what the server runs on
        server_header=False,
        ssl_certfile=settings.tls_certfile or None,
        ssl_keyfile=settings.tls_keyfile or None,
    )
    server = _Server(config)
    server.broker = broker
    server.run()
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main(prog="python -m app"))
