# Sluice: `make serve` and `make test` each bootstrap .venv on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Two stamps: the server alone (its own dependencies, what `make serve` needs) and, on top of
# it, everything the tests and the development tools need. Each install adds only what the one
# below it lacks, so `make serve` after `make test` installs nothing, and `make test` after
# `make serve` only the test tools.
SERVER_STAMP := $(VENV)/.installed-server
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8080
DATA   ?= ./data

.PHONY: serve test test-fast lint bench screenshot clean system-deps dashboard-client \
	kafka kafka-stop kafka-deps test-kafka kafka-protocol serve-kafka

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(SERVER_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $(SERVER_STAMP)

# the Spark connector with its spark extra (pyspark and pyarrow): its suite runs in make test
$(STAMP): $(SERVER_STAMP) pyproject.toml clients/python/pyproject.toml clients/spark/pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,dev]' -e clients/python -e 'clients/spark[spark]'
	touch $(STAMP)

# System packages the tests need (the README tour runs curl; the dashboard tests drive Debian's
# chromium, never a browser a test tool downloads; the JavaScript client's tests run on Node
# and npm packs it; the Spark connector's suite runs a local Spark on Java 17). Installed through
# apt when missing: each entry is tool:Debian package.
SYSTEM_TOOLS := curl:curl chromium:chromium openssl:openssl node:nodejs npm:npm \
	java:openjdk-17-jre-headless
# The native Kafka cluster (make kafka) runs on Java 17 and fetches its jars with Maven; nginx
# is the load balancer of the tests of two gateways (kafka/nginx-gateways.conf).
KAFKA_TOOLS := java:openjdk-17-jre-headless mvn:maven nginx:nginx
define install_missing
	@missing=""; for tp in $(1); do \
	  command -v $${tp%%:*} >/dev/null || missing="$$missing $${tp##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; \
	fi
endef
system-deps:
	$(call install_missing,$(SYSTEM_TOOLS))
kafka-deps:
	$(call install_missing,$(KAFKA_TOOLS))

serve: $(SERVER_STAMP)
	$(PY) -m app serve --host $(HOST) --port $(PORT) --data-dir $(DATA)

# The whole suite, the tests marked kafka among them: they run on one native Kafka node that
# their package starts (fetching its jars through Maven when missing) and stops when it is done,
# or on the cluster make kafka left running. make test-kafka runs them alone, and then the
# client and CLI suites a second time on a gateway (make test runs those once, embedded).
test: $(STAMP) system-deps kafka-deps
	$(PY) -m pytest --cov -m "not trials"

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not kafka"

# A native Apache Kafka 4.4 cluster on loopback (kafka/cluster.sh): BROKERS combined broker and
# controller nodes on free ports, data and logs in kafka/run/, the bootstrap list printed last.
# It reuses the cluster already running from kafka/run/ when that has as many brokers and takes
# writes, and refuses when it has another number.
BROKERS ?= 3
kafka: kafka-deps
	@bash kafka/cluster.sh start $(BROKERS)

kafka-stop:
	@bash kafka/cluster.sh stop

# The server as a gateway (docs/kafka.md) on the cluster make kafka runs: the same API on
# $(HOST):$(PORT), its data in Kafka, no data directory of its own
serve-kafka: $(SERVER_STAMP)
	@bootstrap=$$(bash kafka/cluster.sh status) || { echo "start a cluster first: make kafka" >&2; exit 1; }; \
	SLUICE_BACKEND=kafka SLUICE_KAFKA_BOOTSTRAP=$$bootstrap exec $(PY) -m app serve --host $(HOST) --port $(PORT)

# app/kafka/protocol/messages.py written anew from the message definitions in the kafka-clients
# jar of kafka/pom.xml's release (docs/kafka-protocol.md); the jars are fetched when missing
kafka-protocol: $(STAMP) kafka-deps
	@bash kafka/cluster.sh fetch
	$(PY) kafka/gen_protocol.py

# The tests marked kafka, then the Python client's, the CLI's, the JavaScript client's, the
# Spark data source's and the end-to-end suites once more with a gateway on the cluster as their
# server (SLUICE_TEST_BACKEND=kafka; the tests marked embedded_only are left out,
# docs/kafka.md#tested). Both on the cluster make kafka runs, or on one node started here for
# both and stopped when they are done. The JavaScript suite needs Node, npm and chromium:
# system-deps.
GATEWAY_SUITES := tests/clients/test_python_client.py tests/clients/test_python_consumer.py \
	tests/clients/test_python_share_consumer.py tests/clients/test_python_transactions.py \
	tests/clients/test_python_codec.py tests/clients/test_cli.py tests/clients/test_js_client.py \
	tests/spark
# the end-to-end suites (docs/kafka.md#tested: the tests and files left out, and why)
GATEWAY_SUITES += tests/e2e/test_groups_server.py
GATEWAY_SUITES += tests/e2e/test_transactions_e2e.py
GATEWAY_SUITES += tests/e2e/test_zombie_fencing.py
GATEWAY_SUITES += tests/e2e/test_push_consume.py
GATEWAY_SUITES += tests/e2e/test_events_e2e.py
GATEWAY_SUITES += tests/e2e/test_acls_server.py
GATEWAY_SUITES += tests/e2e/test_keys_server.py
GATEWAY_SUITES += tests/e2e/test_quotas_e2e.py
GATEWAY_SUITES += tests/e2e/test_exposure.py
GATEWAY_SUITES += tests/e2e/test_cross_site_server.py
GATEWAY_SUITES += tests/e2e/test_dashboard.py
GATEWAY_SUITES += tests/e2e/test_dashboard_auth.py
GATEWAY_SUITES += tests/e2e/hostile/test_bodies.py
GATEWAY_SUITES += tests/e2e/hostile/test_headers.py
GATEWAY_SUITES += tests/e2e/hostile/test_names.py
GATEWAY_SUITES += tests/e2e/hostile/test_websocket_frames.py
# AFTER_TEST=1: what make test leaves out (.ci/run, after make test, which ran the other tests
# marked kafka): the trials, then the gateway pass
AFTER_TEST ?=
test-kafka: $(STAMP) system-deps kafka-deps
	@started=""; \
	if ! bash kafka/cluster.sh status >/dev/null 2>&1; then \
		bash kafka/cluster.sh start 1 || exit 1; started=1; \
	fi; \
	status=0; \
	if [ -z "$(AFTER_TEST)" ]; then $(PY) -m pytest -m kafka || status=$$?; \
	else $(PY) -m pytest -m trials || status=$$?; fi; \
	SLUICE_TEST_BACKEND=kafka $(PY) -m pytest $(GATEWAY_SUITES) || status=$$?; \
	if [ -n "$$started" ]; then bash kafka/cluster.sh stop; fi; \
	exit $$status

lint: $(STAMP)
	$(VENV)/bin/ruff format --check app tests benchmarks examples clients/python clients/spark clients/js/gen_errors.py kafka/gen_protocol.py
	$(VENV)/bin/ruff check app tests benchmarks examples clients/python clients/spark clients/js/gen_errors.py kafka/gen_protocol.py
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict kafka/gen_protocol.py
	$(VENV)/bin/mypy clients/python/src
	$(VENV)/bin/mypy clients/spark/src
	@for f in clients/js/src/*.js clients/js/test/*.js; do node --check $$f || exit 1; done

bench: $(STAMP)
	$(PY) -m benchmarks.run_all

# docs/dashboard.png: the dashboard on a fresh server with a scene and two minutes of traffic
screenshot: $(STAMP) system-deps
	$(PY) -m tests.e2e.dashboard_scene --out docs/dashboard.png

# app/dashboard/client is the JavaScript client (clients/js/src) as the dashboard ships it. It is
# a committed copy, not a link and not a build step: a copy of app/ made any way (the image's
# COPY, a wheel, an archive, a checkout without links) holds the files as they are, with no
# build hook to run and no other folder to bring along. A test checks that the two agree byte
# for byte; clients/js/gen_errors.py writes both.
dashboard-client:
	rm -rf app/dashboard/client
	cp -R clients/js/src app/dashboard/client

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
