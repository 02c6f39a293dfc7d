#!/usr/bin/env bash
# A native Apache Kafka cluster on loopback, for the tests and benchmarks that need one.
#
#   kafka/cluster.sh start [BROKERS]   start BROKERS nodes (3 by default), print the bootstrap list last
#   kafka/cluster.sh stop              stop the nodes by their pids and wait for them to end
#   kafka/cluster.sh status            say whether a cluster runs here, and its bootstrap list
#   kafka/cluster.sh tool CLASS ARGS   run one of Kafka's command-line tools (a main class)
#   kafka/cluster.sh fetch             fetch the jars only
#   kafka/cluster.sh cluster-id [N]    print N cluster ids of the kind a start formats with
#   kafka/cluster.sh kill N            kill node N at once (SIGKILL), as a crash would end it
#   kafka/cluster.sh restart N         start node N again on its data and ports, and wait until
#                                      it listens (the other nodes keep running)
#
# KAFKA_BROKER_SESSION_TIMEOUT_MS and KAFKA_BROKER_HEARTBEAT_INTERVAL_MS, when set at a start,
# are written into every node's broker.session.timeout.ms and broker.heartbeat.interval.ms: how
# soon the controllers fence a broker that stopped heartbeating and move its partitions'
# leadership (Kafka: 9 s and 2 s). The failover trials lower them to see a leader change within
# a few seconds.
#
# The jars come from Maven Central through kafka/pom.xml into kafka/lib/ (fetched when missing
# or when the pom changed). Each node is a combined broker and controller of a KRaft quorum; its
# configuration, data and log live under the run directory (kafka/run/ unless KAFKA_RUN_DIR
# says otherwise), which a start empties: every cluster begins with no topics.
#
# Ports: the script asks the system for free loopback ports at each start, so a cluster never
# clashes with another program, nor with a cluster that another checkout runs. A second start
# while the cluster of this run directory is up reuses it when it has as many brokers and takes
# writes, and refuses otherwise.
#
# KAFKA_SECURITY=sasl_ssl (the default is plaintext) gives each node a SASL_SSL listener too,
# for a gateway with SLUICE_KAFKA_SECURITY_PROTOCOL=SASL_SSL: a certificate for 127.0.0.1 and
# localhost signed by an authority made at the start (openssl), and SCRAM-SHA-256,
# SCRAM-SHA-512 and PLAIN for one user, whose SCRAM credentials the storage format writes. The
# PLAINTEXT listener stays, for the nodes among themselves, the tools and the readiness check.
# The start prints the SASL_SSL bootstrap list last; the user, its password file and the
# authority's certificate are named in the run directory's secure/secure.env.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIB=$HERE/lib
RUN=${KAFKA_RUN_DIR:-$HERE/run}
START_TIMEOUT=${KAFKA_START_TIMEOUT:-180}
BROKER_SESSION_TIMEOUT_MS=${KAFKA_BROKER_SESSION_TIMEOUT_MS:-}
BROKER_HEARTBEAT_INTERVAL_MS=${KAFKA_BROKER_HEARTBEAT_INTERVAL_MS:-}
STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-60}
# Two cores and a few GB are what the machines here have: small heaps, and G1 as Kafka runs it.
NODE_HEAP=${KAFKA_HEAP:--Xms256m -Xmx512m}
NODE_JVM=(-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
  -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$HERE/log4j2.properties")
# The tools run for a second or two each: a small heap, and the quick compiler only.
TOOL_JVM=(-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$HERE/tools-log4j2.properties")
READY_TOPIC=sluice-cluster-ready
SECURITY=${KAFKA_SECURITY:-plaintext}
SECURE=$RUN/secure
SASL_USER=sluice-gateway

say() { echo "kafka: $*" >&2; }
die() { say "$*"; exit 1; }

# --- the jars ---------------------------------------------------------------------------

pom_digest() { sha256sum "$HERE/pom.xml" | cut -d' ' -f1; }

fetch() {
  local want
  want=$(pom_digest)
  if [[ -f $LIB/.pom-sha256 && $(cat "$LIB/.pom-sha256") == "$want" ]]; then
    return
  fi
  command -v mvn >/dev/null || die "Maven (mvn) is needed to fetch the Kafka jars"
  say "fetching the Kafka jars into $LIB (Maven)"
  rm -rf "$LIB"
  # Maven's own output only when it fails (in quiet mode it still prints stray terminal codes)
  local out
  if ! out=$(mvn -q -B -f "$HERE/pom.xml" package 2>&1); then
    echo "$out" >&2
    die "Maven could not fetch the Kafka jars"
  fi
  echo "$want" >"$LIB/.pom-sha256"
}

java_bin() { command -v java >/dev/null || die "Java 17 or later is needed"; echo java; }

tool() {
  local class=$1
  shift
  "$(java_bin)" "${TOOL_JVM[@]}" -cp "$LIB/*" "$class" "$@"
}

# --- the state of a run directory -------------------------------------------------------

# a pid file names a live node of this run directory (not a process that later took its pid)
alive() {
  [[ -f $1 ]] || return 1
  local pid
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$RUN/node-"
}

# pids of the nodes whose pid file names a live process
live_pids() {
  local f
  for f in "$RUN"/node-*/pid; do
    [[ -e $f ]] || continue
    if alive "$f"; then cat "$f"; fi
  done
}

# free loopback ports, as many as asked, each distinct
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)  # held open until all are chosen, so that none is handed out twice
print(" ".join(str(s.getsockname()[1]) for s in held))
PY
}

# KRaft cluster ids: 16 random bytes in URL-safe base64 without padding, as many as asked. One
# in 64 would start with '-', which the storage formatter takes for an option: those are drawn
# again, as Kafka draws its own.
cluster_id() {
  python3 - "${1:-1}" <<'PY'
import base64, os, sys
for _ in range(int(sys.argv[1])):
    while (cid := base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode())[0] == "-":
        pass
    print(cid)
PY
}

port_open() {
  python3 - "$1" <<'PY'
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
except OSError:
    sys.exit(1)
PY
}

# --- node configuration -----------------------------------------------------------------

# write_config NODE_ID BROKER_PORT CONTROLLER_PORT VOTERS BROKERS [SASL_SSL_PORT]
write_config() {
  local id=$1 bport=$2 cport=$3 voters=$4 brokers=$5 sport=${6:-} dir=$RUN/node-$1
  local rf isr listeners advertised map
  if ((brokers >= 3)); then rf=3 isr=2; else rf=$brokers isr=1; fi
  listeners=PLAINTEXT://127.0.0.1:$bport,CONTROLLER://127.0.0.1:$cport
  advertised=PLAINTEXT://127.0.0.1:$bport
  map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
  if [[ -n $sport ]]; then
    listeners+=,SASL_SSL://127.0.0.1:$sport
    advertised+=,SASL_SSL://127.0.0.1:$sport
    map+=,SASL_SSL:SASL_SSL
  fi
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<EOF
# node $id of a $brokers-node cluster written by kafka/cluster.sh; rewritten at each start
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=$listeners
advertised.listeners=$advertised
listener.security.protocol.map=$map
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data

# Replication: every replica on its own broker, so 1 with one broker; with three, 3 replicas
# of which 2 must acknowledge a write (acks=all), for the topics the tests create as well as
# Kafka's own (offsets, transaction state, share-group state).
num.partitions=1
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
# Kafka's own topics with 50 partitions each take seconds to create on two cores at the first
# group or transaction; a few partitions serve a test's handful of groups and producers.
offsets.topic.num.partitions=5
transaction.state.log.num.partitions=5
share.coordinator.state.topic.num.partitions=5

# Group minimums lowered so that tests may ask for short timeouts (the broker refuses a
# group's setting below its minimum); the defaults a client gets when it asks for none stay
# Kafka's own.
# the first member of a classic group joins at once, not after a 3-second wait for others
group.initial.rebalance.delay.ms=0
# classic groups: session timeouts from 1 s (Kafka: 6 s)
group.min.session.timeout.ms=1000
# consumer groups (the new protocol): session timeouts from 1 s (Kafka: 45 s), heartbeats
# from 100 ms (Kafka: 5 s)
group.consumer.min.session.timeout.ms=1000
group.consumer.min.heartbeat.interval.ms=100
# share groups: session timeouts from 1 s (Kafka: 45 s), heartbeats from 100 ms (Kafka: 5 s)
group.share.min.session.timeout.ms=1000
group.share.min.heartbeat.interval.ms=100
# share groups: record locks from 1 s, the lowest Kafka accepts (Kafka: 15 s), so that a test
# sees a lock expire and the record delivered again within seconds
group.share.min.record.lock.duration.ms=1000
# share groups: a member's assignment is computed as soon as it joins (Kafka: at most once a
# second), so that the first fetch of a member that joins finds its partitions within a
# short wait, as on the embedded engine
group.share.assignment.interval.ms=0
# Share groups need no setting here: Kafka 4.4 turns them on with the share.version feature,
# which a new cluster's storage gets at the format (and group.coordinator.rebalance.protocols
# is deprecated for it).

# transactions: an abandoned transaction is aborted within a second of its timeout (Kafka:
# checks every 10 s), so that tests of fencing and timeouts finish quickly
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000

# leaders stay where they were elected: no leader moves in the middle of a test or a benchmark
auto.leader.rebalance.enable=false

# no deletion by time: the tests' records carry fixed timestamps of 2026-01-01 (those of the
# saved batch in tests/vectors), and with Kafka's 7 days a retention check, 30 s after the
# start and every 5 minutes, deleted a segment of them between a test's produce and its read
# (the node's data is emptied at each start)
log.retention.ms=-1

# ACLs: the gateway keeps the contract's bindings as Kafka's own (docs/kafka.md#security), and
# a broker answers CreateAcls, DescribeAcls and DeleteAcls only with an authorizer. Every
# listener here is PLAINTEXT, so every client is User:ANONYMOUS: the brokers and controllers
# among themselves, the command-line tools, the gateway and the tests' native clients. That one
# principal is the super user, so the bindings a test writes are kept and described but refuse
# nothing to anyone who connects here; the gateway decides each HTTP request from them itself.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
EOF
  if [[ -z $sport ]]; then
    echo "super.users=User:ANONYMOUS" >>"$dir/server.properties"
  else
    write_secure_config "$dir/server.properties"
  fi
  # how soon a broker that stopped heartbeating is fenced and loses its leaderships: Kafka's
  # own unless asked (the failover trials ask for a few seconds)
  if [[ -n $BROKER_SESSION_TIMEOUT_MS ]]; then
    echo "broker.session.timeout.ms=$BROKER_SESSION_TIMEOUT_MS" >>"$dir/server.properties"
  fi
  if [[ -n $BROKER_HEARTBEAT_INTERVAL_MS ]]; then
    echo "broker.heartbeat.interval.ms=$BROKER_HEARTBEAT_INTERVAL_MS" >>"$dir/server.properties"
  fi
}

# The SASL_SSL listener of KAFKA_SECURITY=sasl_ssl: TLS with the certificate of secure/, and
# the SASL mechanisms a gateway may use, all for the one user, who is a super user as the
# gateway must be (docs/kafka.md#security). SCRAM's credentials are in the cluster's metadata
# (written at the format); PLAIN checks the password given here.
write_secure_config() {
  cat >>"$1" <<EOF
super.users=User:ANONYMOUS;User:$SASL_USER

# KAFKA_SECURITY=sasl_ssl: the SASL_SSL listener (the others stay PLAINTEXT)
ssl.keystore.type=PKCS12
ssl.keystore.location=$SECURE/broker.p12
ssl.keystore.password=$(cat "$SECURE/store.password")
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$(cat "$SECURE/password")";
EOF
}

# The authority, the brokers' certificate (for 127.0.0.1 and localhost) in a PKCS12 keystore,
# and the user's password, all new at each start; a gateway needs ca.pem and the password.
make_secure() {
  command -v openssl >/dev/null || die "openssl is needed for KAFKA_SECURITY=sasl_ssl"
  mkdir -p "$SECURE"
  # each step tested in turn: errexit does not hold inside a condition
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  if ! (
    cd "$SECURE" && umask 077 &&
      python3 -c 'import secrets; print(secrets.token_urlsafe(18))' >password &&
      python3 -c 'import secrets; print(secrets.token_urlsafe(18))' >store.password &&
      openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 30 \
        -subj /CN=sluice-test-ca -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign &&
      openssl req "${ec[@]}" -keyout broker.key -out broker.csr -subj /CN=127.0.0.1 &&
      printf '%s\n' "authorityKeyIdentifier=keyid" "basicConstraints=CA:FALSE" \
        "subjectAltName=IP:127.0.0.1,DNS:localhost" "extendedKeyUsage=serverAuth" >broker.ext &&
      openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
        -extfile broker.ext -out broker.pem &&
      openssl pkcs12 -export -in broker.pem -inkey broker.key -name broker -out broker.p12 \
        -passout file:store.password &&
      chmod 644 ca.pem
  ) >"$SECURE/openssl.log" 2>&1; then
    die "making the certificates failed: $(cat "$SECURE/openssl.log")"
  fi
  printf 'SASL_USER=%s\nSASL_PASSWORD_FILE=%s\nCA_FILE=%s\n' \
    "$SASL_USER" "$SECURE/password" "$SECURE/ca.pem" >"$SECURE/secure.env"
}

# launch N: start node N's JVM on the configuration and data already in its directory
launch() {
  local i=$1
  rm -f "$RUN/node-$i/pid"
  # setsid: the node outlives the shell that started it and a Ctrl-C meant for make. The
  # node writes its own pid file just before it becomes the JVM: $! would name a process that
  # is still a copy of this shell for a moment (whose command line does not name the node, so
  # a busy machine saw a live node as exited) or, when setsid must fork, one that exits. The
  # log is appended to, so that a restarted node's log keeps the lines before its crash.
  # shellcheck disable=SC2016,SC2086
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' node-pid "$RUN/node-$i/pid" \
    "$(java_bin)" $NODE_HEAP "${NODE_JVM[@]}" -cp "$LIB/*" kafka.Kafka \
    "$RUN/node-$i/server.properties" </dev/null >>"$RUN/node-$i/kafka.log" 2>&1 &
}

# --- readiness --------------------------------------------------------------------------

# One write acknowledged by all in-sync replicas (acks=all) to a topic replicated as the
# cluster replicates: the cluster is up, every broker registered, and it takes writes.
takes_writes() {
  local bootstrap=$1 brokers=$2 rf
  if ((brokers >= 3)); then rf=3; else rf=$brokers; fi
  tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create \
    --if-not-exists --topic "$READY_TOPIC" --partitions 1 --replication-factor "$rf" \
    >/dev/null 2>&1 || return 1
  local before after
  before=$(end_offset "$bootstrap") || return 1
  echo "ready" | tool org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$bootstrap" \
    --topic "$READY_TOPIC" --sync --producer-property acks=all \
    --producer-property delivery.timeout.ms=10000 --producer-property request.timeout.ms=5000 \
    --producer-property linger.ms=0 >/dev/null 2>&1 || return 1
  after=$(end_offset "$bootstrap") || return 1
  ((after > before))
}

end_offset() {
  local out
  out=$(tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$1" \
    --topic "$READY_TOPIC" --time latest 2>/dev/null) || return 1
  # one line per partition: topic:partition:offset
  [[ $out =~ :([0-9]+)$ ]] || return 1
  echo "${BASH_REMATCH[1]}"
}

# --- commands ---------------------------------------------------------------------------

stop() {
  local pids
  pids=$(live_pids)
  if [[ -z $pids ]]; then
    say "no cluster running from $RUN"
    rm -f "$RUN"/node-*/pid
    return
  fi
  say "stopping pids $(echo $pids)"
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT)) left
  while :; do
    left=$(live_pids)
    [[ -z $left ]] && break
    if ((SECONDS >= deadline)); then
      say "pids $(echo $left) still running after ${STOP_TIMEOUT}s: killing them"
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
    fi
    sleep 0.2
  done
  rm -f "$RUN"/node-*/pid
  say "stopped; the data and logs stay in $RUN until the next start"
}

# the node number N of the cluster of this run directory, or an error
node_arg() {
  local n=${1:-}
  [[ -f $RUN/cluster.env ]] || die "no cluster in $RUN"
  # shellcheck disable=SC1091
  source "$RUN/cluster.env"
  if ! [[ $n =~ ^[1-9][0-9]*$ ]] || ((n > BROKERS)); then
    die "N must be a node of 1..$BROKERS, not '$n'"
  fi
  echo "$n"
}

kill_node() {
  local n pid
  n=$(node_arg "${1:-}")
  alive "$RUN/node-$n/pid" || die "node $n is not running"
  pid=$(cat "$RUN/node-$n/pid")
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$RUN/node-$n/pid"
  say "killed node $n (pid $pid)"
}

restart_node() {
  local n port
  n=$(node_arg "${1:-}")
  alive "$RUN/node-$n/pid" && die "node $n is running"
  fetch
  port=$(sed -n 's|^advertised.listeners=PLAINTEXT://127.0.0.1:\([0-9]*\)$|\1|p' \
    "$RUN/node-$n/server.properties")
  launch "$n"
  local deadline=$((SECONDS + START_TIMEOUT))
  until [[ -s $RUN/node-$n/pid ]] && port_open "$port"; do
    if [[ -s $RUN/node-$n/pid ]] && ! alive "$RUN/node-$n/pid"; then
      tail -n 30 "$RUN/node-$n/kafka.log" >&2
      die "node $n exited"
    fi
    ((SECONDS < deadline)) || die "node $n did not listen within ${START_TIMEOUT}s"
    sleep 0.1
  done
  say "node $n restarted (pid $(cat "$RUN/node-$n/pid")), listening on $port"
}

status() {
  local pids
  pids=$(live_pids)
  if [[ -z $pids || ! -f $RUN/cluster.env ]]; then
    say "no cluster running from $RUN"
    return 1
  fi
  # shellcheck disable=SC1091
  source "$RUN/cluster.env"
  say "$BROKERS-node cluster running from $RUN, pids $(echo $pids)"
  if [[ ${SECURITY:-plaintext} == sasl_ssl ]]; then
    say "its SASL_SSL listeners: $SECURE_BOOTSTRAP (user and files: $SECURE/secure.env)"
  fi
  echo "$BOOTSTRAP"
}

start() {
  local brokers=${1:-3}
  [[ $brokers =~ ^[1-9][0-9]*$ ]] || die "BROKERS must be a positive number, not '$brokers'"
  [[ $SECURITY == plaintext || $SECURITY == sasl_ssl ]] ||
    die "KAFKA_SECURITY must be plaintext or sasl_ssl, not '$SECURITY'"
  local wanted_security=$SECURITY
  fetch

  local pids
  pids=$(live_pids)
  if [[ -n $pids ]]; then
    local running_brokers=0 running_bootstrap="" running_security=plaintext
    if [[ -f $RUN/cluster.env ]]; then
      # shellcheck disable=SC1091
      source "$RUN/cluster.env"
      running_brokers=$BROKERS running_bootstrap=$BOOTSTRAP running_security=${SECURITY:-plaintext}
    fi
    if [[ $running_brokers != "$brokers" ]]; then
      die "a $running_brokers-node cluster already runs from $RUN (pids $(echo $pids));" \
        "run 'make kafka-stop' before starting one of $brokers"
    fi
    if [[ $running_security != "$wanted_security" ]]; then
      die "a cluster with KAFKA_SECURITY=$running_security already runs from $RUN" \
        "(pids $(echo $pids)); run 'make kafka-stop' before starting one with $wanted_security"
    fi
    if [[ $(echo "$pids" | wc -l) -ne $brokers ]] || ! takes_writes "$running_bootstrap" "$brokers"; then
      die "the cluster running from $RUN (pids $(echo $pids)) does not take writes;" \
        "run 'make kafka-stop' and start again (node logs: $RUN/node-*/kafka.log)"
    fi
    say "reusing the $brokers-node cluster already running from $RUN"
    if [[ $wanted_security == sasl_ssl ]]; then echo "$SECURE_BOOTSTRAP"; else echo "$running_bootstrap"; fi
    return
  fi

  local t0=$SECONDS
  rm -rf "$RUN"
  mkdir -p "$RUN"
  local ports
  read -r -a ports <<<"$(free_ports $((3 * brokers)))"
  # per node: the PLAINTEXT listener, the controller's, and (with sasl_ssl) the SASL_SSL one
  local i voters="" bootstrap="" secure_bootstrap="" sport
  for ((i = 1; i <= brokers; i++)); do
    voters+="${voters:+,}$i@127.0.0.1:${ports[3 * i - 2]}"
    bootstrap+="${bootstrap:+,}127.0.0.1:${ports[3 * i - 3]}"
    secure_bootstrap+="${secure_bootstrap:+,}127.0.0.1:${ports[3 * i - 1]}"
  done
  if [[ $SECURITY == sasl_ssl ]]; then make_secure; fi
  for ((i = 1; i <= brokers; i++)); do
    sport=""
    if [[ $SECURITY == sasl_ssl ]]; then sport=${ports[3 * i - 1]}; fi
    write_config "$i" "${ports[3 * i - 3]}" "${ports[3 * i - 2]}" "$voters" "$brokers" $sport
  done
  printf 'BROKERS=%s\nBOOTSTRAP=%s\nSECURITY=%s\n' "$brokers" "$bootstrap" "$SECURITY" \
    >"$RUN/cluster.env"
  if [[ $SECURITY == sasl_ssl ]]; then
    printf 'SECURE_BOOTSTRAP=%s\n' "$secure_bootstrap" >>"$RUN/cluster.env"
  fi

  # Format every node's storage for the same cluster id, at the release's own feature levels:
  # for a new 4.4 cluster those turn share groups on (share.version=2) and transactions'
  # second version (transaction.version=2). The formats run side by side.
  # With sasl_ssl, the user's SCRAM credentials go into the metadata the format writes.
  local id fpids=() scram=()
  id=$(cluster_id)
  if [[ $SECURITY == sasl_ssl ]]; then
    local password
    password=$(cat "$SECURE/password")
    scram=(--add-scram "SCRAM-SHA-256=[name=$SASL_USER,password=$password]"
      --add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$password]")
  fi
  for ((i = 1; i <= brokers; i++)); do
    tool kafka.tools.StorageTool format --cluster-id "$id" \
      --config "$RUN/node-$i/server.properties" "${scram[@]}" \
      >"$RUN/node-$i/format.log" 2>&1 &
    fpids+=($!)
  done
  for ((i = 1; i <= brokers; i++)); do
    wait "${fpids[i - 1]}" || die "formatting node $i failed: $(cat "$RUN/node-$i/format.log")"
  done

  for ((i = 1; i <= brokers; i++)); do
    launch "$i"
  done
  say "starting $brokers node(s) in $RUN (logs: $RUN/node-*/kafka.log)"

  local deadline=$((SECONDS + START_TIMEOUT)) up
  for ((i = 1; i <= brokers; i++)); do
    until [[ -s $RUN/node-$i/pid ]]; do
      ((SECONDS < deadline)) || die "node $i did not start within ${START_TIMEOUT}s"
      sleep 0.1
    done
  done
  while :; do
    for ((i = 1; i <= brokers; i++)); do
      if ! alive "$RUN/node-$i/pid"; then
        say "node $i exited; the end of its log:"
        tail -n 30 "$RUN/node-$i/kafka.log" >&2
        stop
        exit 1
      fi
    done
    up=1
    for ((i = 1; i <= brokers; i++)); do
      port_open "${ports[3 * i - 3]}" || up=0
    done
    if ((up)) && takes_writes "$bootstrap" "$brokers"; then break; fi
    if ((SECONDS >= deadline)); then
      say "the cluster did not take a write within ${START_TIMEOUT}s; logs: $RUN/node-*/kafka.log"
      stop
      exit 1
    fi
    sleep 1
  done
  say "$brokers-node cluster ready in $((SECONDS - t0))s; pids $(echo $(live_pids)); data in $RUN"
  if [[ $SECURITY == sasl_ssl ]]; then
    say "SASL_SSL listeners (printed last): user $SASL_USER, password in $SECURE/password," \
      "authority $SECURE/ca.pem; PLAINTEXT listeners: $bootstrap"
    echo "$secure_bootstrap"
  else
    echo "$bootstrap"
  fi
}

cmd=${1:-}
shift || true
case $cmd in
  start) start "$@" ;;
  stop) stop ;;
  status) status ;;
  fetch) fetch ;;
  cluster-id) cluster_id "$@" ;; # the ids a start formats its nodes with
  kill) kill_node "$@" ;;
  restart) restart_node "$@" ;;
  tool)
    fetch
    tool "$@"
    ;;
  *) die "usage: kafka/cluster.sh start [BROKERS] | stop | status | fetch | cluster-id [N] | kill N | restart N | tool CLASS ARGS..." ;;
esac
