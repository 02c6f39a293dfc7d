"""The servers of :mod:`benchmarks.peers`: each queue measured beside Sluice, installed when
missing, started on loopback with its data in a temporary directory at a given durability, and
stopped.

A peer names the Debian packages and Python modules it needs (:meth:`Peer.install` brings the
missing ones: apt as the Makefile's ``system-deps`` does, pip from the ``peers`` extra of
pyproject.toml), the durabilities it can run at, each said in words for the row that reports it
(:class:`Durability`), and :meth:`Peer.running`, a context manager that answers a
:class:`Running` server: the pid whose process tree is the server (its CPU is counted from
/proc) and what a client needs to reach it. Kafka is started through ``make kafka BROKERS=1``
with its run directory in the temporary directory; Sluice through the harness.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from benchmarks import _harness as h

Json = dict[str, Any]

HOST = "127.0.0.1"
SYNC = "sync"  # every write answered after it was fsynced
NOSYNC = "nosync"  # writes answered before they are on disk
MODES = (SYNC, NOSYNC)
START_TIMEOUT = 120.0
KAFKA_TIMEOUT = 600.0  # a first start fetches the jars through Maven
POLICY_RC = Path("/usr/sbin/policy-rc.d")


class Unavailable(Exception):
    """A peer, or one of its durabilities, cannot run here; the message says why."""


@dataclass(frozen=True)
class Durability:
    mode: str  # SYNC or NOSYNC
    default: bool  # the peer's own default setting
    words: str  # the setting and what it means, as the row states it


@dataclass
class Running:
    """A started peer: ``pid`` roots the process tree whose CPU is the server's; ``spec`` is
    what a client process needs (JSON)."""

    pid: int
    spec: Json
    alive: Any = field(default=None, repr=False)  # () -> None, raises when the server died

    def check_alive(self) -> None:
        if self.alive is not None:
            self.alive()


# -- installing ----------------------------------------------------------------------------------


def _debian_installed(package: str) -> bool:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True, check=False
    )
    return out.returncode == 0 and out.stdout.strip().endswith("installed")


def apt_install(packages: tuple[str, ...]) -> None:
    """Install the Debian packages that are missing, as ``make system-deps`` does (sudo when not
    root). A package's service is not started by the install: the benchmark starts its own
    server on free ports, and leaves nothing running."""
    missing = [p for p in packages if not _debian_installed(p)]
    if not missing:
        return
    if shutil.which("apt-get") is None:
        raise Unavailable(f"{' '.join(missing)} missing, and there is no apt-get to install them")
    h.log(f"installing: {' '.join(missing)}")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # Debian starts a package's service at install unless policy-rc.d says no; when there is
    # none, one that refuses stands for the install.
    guard = not POLICY_RC.exists()
    steps = [
        [*sudo, "apt-get", "update", "-qq"],
        [*sudo, "apt-get", "install", "-y", "-qq", *missing],
    ]
    if guard:
        refuse = f"printf '#!/bin/sh\\nexit 101\\n' > {POLICY_RC} && chmod 755 {POLICY_RC}"
        steps.insert(0, [*sudo, "sh", "-c", refuse])
    try:
        for argv in steps:
            out = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise Unavailable(f"{' '.join(argv)} failed: {out.stderr.strip()[-500:]}")
    finally:
        if guard:
            subprocess.run([*sudo, "rm", "-f", str(POLICY_RC)], check=False)


def peers_requirements() -> dict[str, str]:
    """The ``peers`` extra of pyproject.toml: distribution name (normalised) → requirement."""
    with open(h.REPO_ROOT / "pyproject.toml", "rb") as f:
        extra = tomllib.load(f)["project"]["optional-dependencies"]["peers"]
    out = {}
    for requirement in extra:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        assert name is not None
        out[re.sub(r"[-_.]+", "-", name.group(0)).lower()] = requirement
    return out


def pip_install(modules: dict[str, str]) -> None:
    """Install (module → distribution) the modules that cannot be imported, with the
    requirements of the ``peers`` extra, into this interpreter's environment."""
    missing = [dist for module, dist in modules.items() if importlib.util.find_spec(module) is None]
    if not missing:
        return
    requirements = peers_requirements()
    wanted = [requirements[d] for d in missing]
    h.log(f"installing: {' '.join(wanted)}")
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", *wanted],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise Unavailable(f"pip could not install {' '.join(wanted)}: {out.stderr[-500:]}")
    importlib.invalidate_caches()


# -- process helpers -----------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    """The pids of a process's live descendants (children first)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = list(children.get(pid, ()))
    while todo:
        current = todo.pop(0)
        out.append(current)
        todo.extend(children.get(current, ()))
    return out


def _kill_tree(server: h.ServerProcess) -> None:
    """SIGKILL a server we started and every process it started (after a failure)."""
    if server.proc is None or server.proc.poll() is not None:
        server.kill()
        return
    for pid in _descendants(server.pid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    server.kill()


@contextlib.contextmanager
def _serving(server: h.ServerProcess) -> Iterator[h.ServerProcess]:
    """Start ``server``; on the way out stop it cleanly, or kill its tree when that fails."""
    server.start()
    try:
        yield server
    except BaseException:
        _kill_tree(server)
        raise
    try:
        server.stop()
    except h.ServerFailed:
        _kill_tree(server)
        raise


def _wait_port(server: h.ServerProcess, port: int, timeout: float = START_TIMEOUT) -> bytes:
    """Wait until ``port`` takes a connection; answers the first bytes the server sends
    unasked within 0.2 s (its greeting, if it has one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server.check_alive()
        try:
            with socket.create_connection((HOST, port), timeout=1.0) as s:
                s.settimeout(0.2)
                try:
                    return s.recv(1024)
                except TimeoutError:
                    return b""
        except OSError:
            time.sleep(0.05)
    raise h.ServerFailed(f"{server.name} did not listen on {port} within {timeout:.0f} s")


def _first_line(argv: list[str]) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else ""


# -- the peers -----------------------------------------------------------------------------------


class Peer(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    debian: ClassVar[tuple[str, ...]] = ()
    modules: ClassVar[dict[str, str]] = {}  # Python module → distribution of the peers extra

    def install(self) -> None:
        apt_install(self.debian)
        pip_install(self.modules)

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def durabilities(self) -> dict[str, Durability | str]:
        """Mode → its durability, or the reason this peer cannot run at it."""

    @abstractmethod
    def running(
        self, wd: h.Workdir, durability: Durability
    ) -> contextlib.AbstractContextManager[Running]:
        """The server started at ``durability``, ready for clients; stopped on the way out."""


class Redis(Peer):
    name = "redis"
    title = "Redis Streams"
    debian = ("redis-server",)
    modules = {"redis": "redis"}

    @staticmethod
    def binary() -> str:
        return shutil.which("redis-server") or "/usr/bin/redis-server"

    def version(self) -> str:
        line = _first_line([self.binary(), "--version"])
        found = re.search(r"v=(\S+)", line)
        return found.group(1) if found else line

    def durabilities(self) -> dict[str, Durability | str]:
        return {
            NOSYNC: Durability(
                NOSYNC,
                True,
                "appendonly no (the default): a write is answered from memory; RDB snapshots at "
                "the default save points, so a crash loses the writes since the last one",
            ),
            SYNC: Durability(
                SYNC,
                False,
                "appendonly yes, appendfsync always: the append-only file is fsynced before the "
                "answers of each pass of the event loop (a pipeline of 100 XADD shares one fsync)",
            ),
        }

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        port = h.free_port()
        data = wd.path / "redis"
        data.mkdir()
        argv = [self.binary(), "--port", str(port), "--bind", HOST, "--dir", str(data)]
        argv += ["--daemonize", "no", "--logfile", ""]
        if durability.mode == SYNC:
            argv += ["--appendonly", "yes", "--appendfsync", "always"]
        server = h.ServerProcess(argv, port=port, log_path=wd.log("redis"), name="redis-server")
        with _serving(server):
            _wait_port(server, port)
            yield Running(server.pid, {"port": port}, server.check_alive)


class Postgres(Peer):
    name = "postgres"
    title = "PostgreSQL, SKIP LOCKED"
    debian = ("postgresql",)
    modules = {"psycopg": "psycopg"}

    @staticmethod
    def bindir() -> Path:
        """The newest installed server's programs (Debian keeps them out of PATH)."""
        found = sorted(
            Path("/usr/lib/postgresql").glob("*/bin/postgres"),
            key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
        )
        if found:
            return found[-1].parent
        on_path = shutil.which("postgres")
        if on_path is None:
            raise Unavailable("no PostgreSQL server programs found")
        return Path(on_path).resolve().parent

    def version(self) -> str:
        line = _first_line([str(self.bindir() / "postgres"), "--version"])
        found = re.search(r"(\d+\.\d+)", line)
        return found.group(1) if found else line

    def durabilities(self) -> dict[str, Durability | str]:
        return {
            SYNC: Durability(
                SYNC,
                True,
                "synchronous_commit=on, fsync=on (the defaults): a commit is answered after its "
                "WAL is flushed to disk (commits in flight together share a flush)",
            ),
            NOSYNC: Durability(
                NOSYNC,
                False,
                "synchronous_commit=off (not the default: PostgreSQL syncs every commit by "
                "default): a commit is answered before its WAL is flushed; the WAL writer "
                "flushes within 3 × wal_writer_delay (600 ms)",
            ),
        }

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        # The server refuses to run as root: as root, it runs as Debian's postgres user, which
        # must reach its data directory inside ours.
        user = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("running as root and there is no postgres user") from None
            user = "postgres"
            wd.path.chmod(0o711)
        data = wd.path / "pgdata"
        data.mkdir(mode=0o700)
        if user is not None:
            os.chown(data, owner.pw_uid, owner.pw_gid)
        bindir = self.bindir()
        init = subprocess.run(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
            capture_output=True,
            text=True,
            check=False,
            user=user,
            group=user,
            extra_groups=[] if user else None,
            cwd=data,
            timeout=START_TIMEOUT,
        )
        if init.returncode != 0:
            raise h.ServerFailed(f"initdb failed: {init.stderr[-1000:]}")
        port = h.free_port()
        argv = [str(bindir / "postgres"), "-D", str(data)]
        settings = {
            "listen_addresses": HOST,
            "port": str(port),
            "unix_socket_directories": str(data),
            "fsync": "on",
            "synchronous_commit": "on" if durability.mode == SYNC else "off",
        }
        for key, value in settings.items():
            argv += ["-c", f"{key}={value}"]
        # SIGINT is the fast shutdown: SIGTERM waits for every client to leave
        server = h.ServerProcess(
            argv,
            port=port,
            log_path=wd.log("postgres"),
            name="postgres",
            user=user,
            stop_signal=signal.SIGINT,
        )
        with _serving(server):
            _wait_port(server, port)
            spec = {"port": port}
            self._wait_accepting(server, spec)
            yield Running(server.pid, spec, server.check_alive)

    @staticmethod
    def _wait_accepting(server: h.ServerProcess, spec: Json) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            server.check_alive()
            try:
                psycopg.connect(host=HOST, port=spec["port"], user="postgres").close()
                return
            except psycopg.OperationalError:  # still starting
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


class Nats(Peer):
    name = "nats"
    title = "NATS JetStream"
    debian = ("nats-server",)
    modules = {"nats": "nats-py"}

    @staticmethod
    def binary() -> str:
        return shutil.which("nats-server") or "/usr/sbin/nats-server"

    def version(self) -> str:
        line = _first_line([self.binary(), "--version"])
        found = re.search(r"v(\d[\w.]*)", line)
        return found.group(1) if found else line

    def _config(self, directory: Path, port: int, sync_always: bool) -> Path:
        store = directory / "jetstream"
        conf = directory / "nats.conf"
        lines = [f"listen: {HOST}:{port}", "jetstream {", f'  store_dir: "{store}"']
        if sync_always:
            lines.append("  sync_interval: always")
        conf.write_text("\n".join([*lines, "}", ""]))
        return conf

    def syncs_every_write(self) -> str | None:
        """None when this server takes ``sync_interval: always``; else what it said of it."""
        with h.Workdir("peers-nats-probe") as wd:
            conf = self._config(wd.path, h.free_port(), sync_always=True)
            proc = subprocess.Popen(
                [self.binary(), "-c", str(conf)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=wd.path,
            )
            try:
                out, _ = proc.communicate(timeout=3)
            except subprocess.TimeoutExpired:  # it started: it took the setting
                proc.terminate()
                proc.communicate(timeout=30)
                return None
            return out.decode(errors="replace").strip() or f"exit {proc.returncode}"

    def durabilities(self) -> dict[str, Durability | str]:
        out: dict[str, Durability | str] = {
            NOSYNC: Durability(
                NOSYNC,
                True,
                "file storage with the default settings: a publish is acknowledged once "
                "written to the file store, which the server fsyncs periodically, not before "
                "the answer",
            )
        }
        refused = self.syncs_every_write()
        if refused is None:
            out[SYNC] = Durability(
                SYNC,
                False,
                "sync_interval: always: the file store fsyncs every write before the answer",
            )
        else:
            out[SYNC] = (
                f"nats-server {self.version()} cannot sync every write: it refuses "
                f"'sync_interval: always' ({refused})"
            )
        return out

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        port = h.free_port()
        conf = self._config(wd.path, port, sync_always=durability.mode == SYNC)
        # it shuts down cleanly on SIGTERM and exits 1 when it has ("Server Exiting..")
        server = h.ServerProcess(
            [self.binary(), "-c", str(conf)],
            port=port,
            log_path=wd.log("nats"),
            name="nats-server",
            clean_exit_codes=(0, 1),
        )
        with _serving(server):
            _wait_port(server, port)
            yield Running(server.pid, {"port": port}, server.check_alive)


class RabbitMQ(Peer):
    name = "rabbitmq"
    title = "RabbitMQ quorum queues"
    debian = ("rabbitmq-server",)
    modules = {"aio_pika": "aio-pika"}
    SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")

    def version(self) -> str:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "rabbitmq-server"],
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.match(r"(?:\d+:)?(\d+\.\d+\.\d+)", out.stdout.strip())
        return found.group(1) if found else out.stdout.strip()

    def durabilities(self) -> dict[str, Durability | str]:
        return {
            SYNC: Durability(
                SYNC,
                True,
                "a quorum queue of one member: a publish is confirmed once the Raft write-ahead "
                "log is fsynced (the default; quorum queues sync before every confirm)",
            ),
            NOSYNC: "quorum queues have no setting to confirm before the write-ahead log is "
            "fsynced: their default is already a sync before every confirm",
        }

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        epmd_bin = shutil.which("epmd")
        if epmd_bin is None or not self.SERVER.exists():
            raise Unavailable("rabbitmq-server or epmd not found")
        # A name server of our own on a free port, so that nothing of the node outlives the
        # run (the node would otherwise start a shared one as a daemon on 4369).
        epmd_port, port, dist_port = h.free_port(), h.free_port(), h.free_port()
        epmd = h.ServerProcess(
            [epmd_bin, "-port", str(epmd_port), "-address", HOST],
            port=epmd_port,
            log_path=wd.log("epmd"),
            name="epmd",
            clean_exit_codes=(0, -signal.SIGTERM),
        )
        home = wd.path / "rabbitmq"
        home.mkdir()
        (home / "enabled_plugins").write_text("[].\n")
        (home / "rabbitmq.conf").write_text("loopback_users = none\n")
        env = dict(os.environ)
        env.update(
            {
                "HOME": str(home),  # the Erlang cookie goes here
                "ERL_EPMD_PORT": str(epmd_port),
                "RABBITMQ_NODENAME": f"peers{port}@localhost",
                "RABBITMQ_NODE_IP_ADDRESS": HOST,
                "RABBITMQ_NODE_PORT": str(port),
                "RABBITMQ_DIST_PORT": str(dist_port),
                "RABBITMQ_MNESIA_BASE": str(home / "mnesia"),
                "RABBITMQ_LOG_BASE": str(home / "log"),
                "RABBITMQ_LOGS": "-",
                "RABBITMQ_CONFIG_FILE": str(home / "rabbitmq.conf"),
                "RABBITMQ_ENABLED_PLUGINS_FILE": str(home / "enabled_plugins"),
                "RABBITMQ_CONF_ENV_FILE": str(home / "rabbitmq-env.conf"),
            }
        )
        server = h.ServerProcess(
            [str(self.SERVER)],
            port=port,
            log_path=wd.log("rabbitmq"),
            name="rabbitmq-server",
            env=env,
        )
        with _serving(epmd):
            _wait_port(epmd, epmd_port)
            with _serving(server):
                # the AMQP port opens once the node has booted; a protocol header is answered
                # with the connection's first frame
                deadline = time.monotonic() + START_TIMEOUT
                while True:
                    _wait_port(server, port)
                    if self._answers_amqp(port):
                        break
                    if time.monotonic() > deadline:
                        raise h.ServerFailed("rabbitmq-server does not answer AMQP")
                    time.sleep(0.1)
                yield Running(server.pid, {"port": port}, server.check_alive)

    @staticmethod
    def _answers_amqp(port: int) -> bool:
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=2) as s:
            s.sendall(b"AMQP\x00\x00\x09\x01")
            return s.recv(1)[:1] == b"\x01"  # a method frame: connection.start
        return False


class Kafka(Peer):
    name = "kafka"
    title = "Kafka share groups"
    modules = {}  # confluent-kafka comes with the test extra

    def install(self) -> None:
        if importlib.util.find_spec("confluent_kafka") is None:
            raise Unavailable("confluent-kafka is missing: it comes with the test extra (make)")
        import confluent_kafka

        if not hasattr(confluent_kafka, "ShareConsumer"):
            raise Unavailable(
                f"confluent-kafka {confluent_kafka.version()[0]} has no share consumer"
            )

    def version(self) -> str:
        pom = (h.REPO_ROOT / "kafka" / "pom.xml").read_text()
        found = re.search(r"<kafka.version>([^<]+)<", pom)
        return found.group(1) if found else "?"

    def durabilities(self) -> dict[str, Durability | str]:
        return {
            NOSYNC: Durability(
                NOSYNC,
                True,
                "no flush setting (the default), acks=all and an idempotent producer on one "
                "broker: a write is answered once appended to the log (the page cache); Kafka "
                "leaves the flush to the OS and counts on replicas",
            ),
            SYNC: Durability(
                SYNC,
                False,
                "flush.messages=1 on the topic, and log.flush.interval.messages=1 as the broker "
                "default (for the share-group state topic too): the log is fsynced after every "
                "append, before the answer",
            ),
        }

    @staticmethod
    def _make(run_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
        # a make of our own: the variables of an outer make stay out of it
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        env["KAFKA_RUN_DIR"] = str(run_dir)
        return subprocess.run(
            ["make", "--no-print-directory", *args],
            cwd=h.REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=KAFKA_TIMEOUT,
            check=False,
        )

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        run_dir = wd.path / "kafka"
        started = self._make(run_dir, "kafka", "BROKERS=1")
        pid_file = run_dir / "node-1" / "pid"
        try:
            if started.returncode != 0:
                raise h.ServerFailed(f"make kafka failed:\n{started.stderr[-2000:]}")
            bootstrap = started.stdout.strip().splitlines()[-1]
            pid = int(pid_file.read_text())
            if durability.mode == SYNC:
                self._flush_every_message(bootstrap)

            def alive() -> None:
                if not Path(f"/proc/{pid}").exists():
                    log = (run_dir / "node-1" / "kafka.log").read_text(errors="replace")
                    raise h.ServerFailed(f"the Kafka broker died:\n{log[-2000:]}")

            yield Running(pid, {"bootstrap": bootstrap, "sync": durability.mode == SYNC}, alive)
        finally:
            stopped = self._make(run_dir, "kafka-stop")
            if stopped.returncode != 0:
                h.log(f"make kafka-stop failed: {stopped.stderr[-500:]}")

    @staticmethod
    def _flush_every_message(bootstrap: str) -> None:
        """The broker's default for every topic created from now on, Kafka's own included (set
        on the one broker, node 1: the client cannot name the cluster-wide default)."""
        from confluent_kafka.admin import (
            AdminClient,
            AlterConfigOpType,
            ConfigEntry,
            ConfigResource,
            ResourceType,
        )

        admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3})
        entry = ConfigEntry(
            "log.flush.interval.messages", "1", incremental_operation=AlterConfigOpType.SET
        )
        resource = ConfigResource(ResourceType.BROKER, "1", incremental_configs=[entry])
        for future in admin.incremental_alter_configs([resource]).values():
            future.result(timeout=60)


class Sluice(Peer):
    name = "sluice"
    title = "Sluice"

    def version(self) -> str:
        return str(h.git_info()["short"])

    def durabilities(self) -> dict[str, Durability | str]:
        return {
            SYNC: Durability(
                SYNC,
                True,
                "SLUICE_FSYNC=always (the default): every answered write is fsynced first "
                "(writes in flight together share one fsync)",
            ),
            NOSYNC: Durability(
                NOSYNC,
                False,
                "SLUICE_FSYNC=interval: the log is fsynced every 200 ms "
                "(SLUICE_FSYNC_INTERVAL_MS), writes answered before it",
            ),
        }

    @contextlib.contextmanager
    def running(self, wd: h.Workdir, durability: Durability) -> Iterator[Running]:
        fsync = "always" if durability.mode == SYNC else "interval"
        server = h.sluice_server(wd.data, wd.log("sluice"), fsync=fsync)
        with _serving(server):
            server.wait_ready()
            yield Running(server.pid, {"url": server.base_url}, server.check_alive)


PEERS: dict[str, type[Peer]] = {p.name: p for p in (Sluice, Redis, Postgres, Nats, RabbitMQ, Kafka)}
