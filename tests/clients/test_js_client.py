"""The JavaScript client (clients/js): its `node --test` suite against real server processes
(one open, one that requires keys), its generated errors against the server's error table, its
type declarations against what it exports, `npm pack` and an install of the package, and the
browser build (the files the server ships under /dashboard/client/) in headless Chromium.

In the gateway pass (``SLUICE_TEST_BACKEND=kafka``, tests/conftest.py) the servers are gateways
on one cluster, and the node suite is told so: its tests of what a gateway refuses by name or
describes otherwise (docs/kafka.md) assert what the gateway answers."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import sync_playwright

from tests.conftest import GATEWAY, ROOT, ServerProcess
from tests.e2e.browser import launch

pytestmark = pytest.mark.slow
JS = ROOT / "clients" / "js"


def node() -> str:
    path = shutil.which("node")
    if path is None:
        raise RuntimeError("node is not installed: `make system-deps` installs it")
    return path


@pytest.fixture
def servers(
    server_factory: Callable[..., ServerProcess], tmp_path: Path
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """An open server and one whose super user is ``ops``, neither with a key yet: the test
    creates the key once the open server's tests are done, since on a gateway the keys live in
    the cluster and one key makes every gateway of the cluster require keys."""
    # a short transaction-timeout check: the KIP-588 test waits for the server to abort (a
    # gateway has no such check: the broker aborts a timed-out transaction within a second)
    open_server = server_factory(tmp_path / "open", SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS="50")
    keyed = server_factory(tmp_path / "keyed", SLUICE_SUPER_USERS="ops")
    open_server.start()
    keyed.start()
    yield open_server, keyed
    assert open_server.stop() == 0, open_server.logs()
    assert keyed.stop() == 0, keyed.logs()


def create_key(server: ServerProcess, principal: str) -> str:
    """The server's first key, created while it still serves everyone (on either engine: a
    gateway keeps its keys in the cluster, not in a data directory), once the server requires
    it (a gateway: once it has read the key back from the cluster)."""
    created = httpx.post(f"{server.url}/v1/admin/keys", json={"principal": principal})
    assert created.status_code == 201, created.text
    deadline = time.monotonic() + 10
    while httpx.get(f"{server.url}/v1/topics").status_code != 401:
        assert time.monotonic() < deadline, "the server still serves requests without a key"
        time.sleep(0.05)
    return str(created.json()["key"])


def node_test(files: list[str], env: dict[str, str]) -> dict[str, int]:
    """``node --test`` of ``files``: the counts of its summary, once it passed."""
    run = subprocess.run(
        [node(), "--test", *files], cwd=JS, env=env, capture_output=True, text=True, timeout=600
    )
    summary = [line for line in run.stdout.splitlines() if line.startswith("# ")]
    print("\n".join(summary))
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-4000:]
    return {
        name: int(n)
        for name, n in (line[2:].split(" ", 1) for line in summary if " " in line[2:])
        if n.isdigit()
    }


def test_the_node_suite_against_real_servers(
    servers: tuple[ServerProcess, ServerProcess],
) -> None:
    open_server, keyed = servers
    env = {
        **os.environ,
        "SLUICE_URL": open_server.url,
        "SLUICE_KEYED_URL": keyed.url,
        "SLUICE_TEST_BACKEND": "kafka" if GATEWAY else "embedded",
    }
    env.pop("SLUICE_API_KEY", None)
    files = sorted(str(p.relative_to(JS)) for p in (JS / "test").glob("*.test.js"))
    assert len(files) >= 4 and "test/keys.test.js" in files
    files.remove("test/keys.test.js")
    counts = node_test(files, env)
    # then the tests of the server that requires keys, with a key of its super user
    keyed_counts = node_test(
        ["test/keys.test.js"], {**env, "SLUICE_TEST_KEY": create_key(keyed, "ops")}
    )
    for name, n in keyed_counts.items():
        counts[name] = counts.get(name, 0) + n
    assert counts["pass"] >= 20 and counts["fail"] == 0 and counts["skipped"] == 0, counts
    assert counts["pass"] == counts["tests"], counts


def test_the_errors_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("gen_js_errors", JS / "gen_errors.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    js, dts = gen.render()
    assert (JS / "src" / "errors.js").read_text() == js, "run python clients/js/gen_errors.py"
    assert (JS / "src" / "errors.d.ts").read_text() == dts, "run python clients/js/gen_errors.py"


def test_every_code_of_the_server_has_its_error_class() -> None:
    from app.errors import ErrorCode

    script = """
        const m = await import(process.argv[1]);
        const out = {};
        for (const [code, cls] of Object.entries(m.ERRORS)) {
          const e = m.errorFrom(cls.status, {error: {code, message: "m"}});
          out[code] = [e.code, e.status, e.retriable, e.kafkaCode, e instanceof m.SluiceError,
                       e.name];
        }
        console.log(JSON.stringify(out));
    """
    run = subprocess.run(
        [node(), "--input-type=module", "-e", script, str(JS / "src" / "index.js")],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(run.stdout)
    assert set(seen) == {c.name for c in ErrorCode}
    for code in ErrorCode:
        c = code.value
        name = "".join(p.capitalize() for p in code.name.split("_")) + "Error"
        assert seen[code.name] == [code.name, c.status, c.retriable, c.kafka_code, True, name]


def exported_names(source: str) -> set[str]:
    names = set(re.findall(r"^export (?:async )?(?:class|function|const) (\w+)", source, re.M))
    for group in re.findall(r"^export \{([^}]*)\}", source, re.M):
        names.update(n.strip() for n in group.split(","))
    return names


def test_the_declarations_cover_every_export() -> None:
    """Each name the package exports is declared in index.d.ts (or errors.d.ts), and every
    method of the classes users call is declared with it."""
    src = JS / "src"
    exported = exported_names((src / "index.js").read_text()) | exported_names(
        (src / "errors.js").read_text()
    )
    declared = exported_names((src / "index.d.ts").read_text()) | exported_names(
        (src / "errors.d.ts").read_text()
    )
    assert exported and exported <= declared, sorted(exported - declared)
    dts = (src / "index.d.ts").read_text()
    for module, cls in [
        ("client.js", "Sluice"),
        ("producer.js", "Producer"),
        ("transactions.js", "TransactionalProducer"),
        ("share_consumer.js", "ShareConsumer"),
        ("admin.js", "Admin"),
    ]:
        body = (src / module).read_text().split(f"export class {cls}", 1)[1]
        public = {
            m
            for m in re.findall(r"^  (?:async )?(?:get )?(\w+)\(", body, re.M)
            if m != "constructor"
        }
        declared_body = dts.split(f"export class {cls}", 1)[1].split("\n}\n", 1)[0]
        missing = {m for m in public if not re.search(rf"\b{m}\b", declared_body)}
        assert not missing, f"{cls}: {sorted(missing)} not declared"


def test_npm_pack_makes_a_package_that_installs_and_imports(tmp_path: Path) -> None:
    npm = shutil.which("npm")
    assert npm is not None, "npm is not installed: `make system-deps` installs it"
    packed = subprocess.run(
        [npm, "pack", "--json", "--pack-destination", str(tmp_path)],
        cwd=JS,
        capture_output=True,
        text=True,
        check=True,
    )
    (info,) = json.loads(packed.stdout)
    files = {f["path"] for f in info["files"]}
    assert {
        "package.json",
        "README.md",
        "src/index.js",
        "src/index.d.ts",
        "src/errors.d.ts",
    } <= files
    assert not any(f.startswith("test/") for f in files)
    project = tmp_path / "app"
    project.mkdir()
    (project / "package.json").write_text('{"name": "uses-sluice", "type": "module"}')
    subprocess.run(
        [npm, "install", "--offline", "--no-audit", "--no-fund", str(tmp_path / info["filename"])],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    run = subprocess.run(
        [
            node(),
            "--input-type=module",
            "-e",
            "import { Sluice, ShareConsumer, ProducerFencedError } from 'sluice-client';"
            "console.log(new Sluice({url: 'http://h:1/'}).url, typeof ShareConsumer,"
            " new ProducerFencedError('x').code)",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.split() == ["http://h:1", "function", "PRODUCER_FENCED"]


BROWSER_SCRIPT = """
async ([url, topic, group]) => {
  const { Sluice, TopicAlreadyExistsError } = await import("/dashboard/client/index.js");
  const sluice = new Sluice();  // the page's origin
  const out = { url: sluice.url };
  await sluice.admin.createTopic(topic);
  try { await sluice.admin.createTopic(topic); }
  catch (e) { out.again = e instanceof TopicAlreadyExistsError ? e.code : String(e); }
  const producer = sluice.producer({ linger: 5 });
  const sends = ["a", "b", "c"].map((v) => producer.send(topic, v, { partition: 0 }));
  const metas = await Promise.all(sends);
  out.offsets = metas.map((m) => m.offset);
  await sluice.admin.alterShareGroupConfig(group, { auto_offset_reset: "earliest" });
  const consumer = sluice.shareConsumer(group, { push: true, credits: 10 });
  consumer.subscribe([topic]);
  const got = [];
  for await (const record of consumer) {
    got.push(record.text());
    if (got.length === 3) { consumer.acknowledge(record); break; }
  }
  out.pushed = got;
  const [second] = await sluice.admin.read(topic, 0, { offset: 1, maxRecords: 1 });
  out.bytes = Array.from(second.value);
  return out;
}
"""


def test_the_browser_build_in_headless_chromium(server: ServerProcess) -> None:
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/")
            out = page.evaluate(BROWSER_SCRIPT, [server.url, "from-browser", "browser-group"])
        finally:
            browser.close()
    assert out["url"] == server.url
    assert out["again"] == "TOPIC_ALREADY_EXISTS"
    assert out["offsets"] == [0, 1, 2]
    assert out["pushed"] == ["a", "b", "c"]  # over the browser's own WebSocket
    assert out["bytes"] == list(b"b")
    assert errors == []
    # all three accepted, nothing held: at once on the embedded engine; a gateway describes
    # the start offset Kafka last saved and no counts by state, so there the lag, current on
    # both, is waited for (docs/kafka.md: share_start_offset)
    deadline = time.monotonic() + 10
    while True:
        (p,) = httpx.get(f"{server.url}/v1/share-groups/browser-group").json()["partitions"]
        if not GATEWAY or p["lag"] == 0:
            break
        assert time.monotonic() < deadline, p
        time.sleep(0.05)
    assert p["lag"] == 0
    if GATEWAY:
        assert p["acquired"] is None
    else:
        assert (p["start_offset"], p["acquired"]) == (3, 0)
