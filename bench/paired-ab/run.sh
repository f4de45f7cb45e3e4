#!/bin/bash
# Paired A/B of two check-service jars on the store-bound mix: both pods at once on one 3-primary Redis Cluster of its
# own on loopback, each warmed by wrk, then ROUNDS rounds of 10 s wrk windows alternating between them; per window and
# pod, checks/s and, per check, the pod's CPU (/proc/<pid>/stat), read and write calls (/proc/<pid>/io), context
# switches (/proc/<pid>/task/*/status) and the Redis primaries' CPU; then the medians. Alternating short windows on
# one cluster takes the machine's drift out of the comparison, which three whole bench runs could not (docs/performance.md,
# "A connection per event loop"). Needs redis-server, redis-cli, wrk and curl on the PATH.
#   bench/paired-ab/run.sh <jar-a> <jar-b>     (env: ROUNDS=6 WARM_S=60 PORT=17101 JAVA=java)
set -euo pipefail
A_JAR=$1; B_JAR=$2; ROUNDS=${ROUNDS:-6}; WARM_S=${WARM_S:-60}; PORT=${PORT:-17101}
HERE=$(cd "$(dirname "$0")" && pwd); WORK=$(mktemp -d /tmp/paired-ab.XXXX)
JVM="-XX:MaxRAM=1g -XX:ActiveProcessorCount=2 -XX:InitialRAMPercentage=50.0 -XX:MaxRAMPercentage=70.0 -XX:+UseG1GC -XX:MaxGCPauseMillis=10"
NODES=()
for p in $PORT $((PORT+1)) $((PORT+2)); do
  mkdir -p "$WORK/$p"; (cd "$WORK/$p" && redis-server --port $p --bind 127.0.0.1 --cluster-enabled yes --save '' --appendonly no --daemonize yes --logfile r.log)
  NODES+=("127.0.0.1:$p")
done
PODS=()
cleanup() {
  for pid in "${PODS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for p in $PORT $((PORT+1)) $((PORT+2)); do redis-cli -p $p shutdown nosave >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
sleep 0.5; redis-cli --cluster create "${NODES[@]}" --cluster-replicas 0 --cluster-yes > "$WORK/create.log" 2>&1
until redis-cli -p $PORT cluster info | grep -q cluster_state:ok; do sleep 0.2; done
start() { # jar http-port; the bench's 50 ms store timeout: at 5 ms a saturated pod's breakers open and the fallback answers
  ${JAVA:-java} $JVM -jar "$1" --server.port=$2 --tollgate.grpc.port=$(($2+1)) --management.server.port=$(($2+2)) \
    --spring.data.redis.cluster.nodes=$(IFS=,; echo "${NODES[*]}") --tollgate.rules.file="$HERE/rules.yml" \
    --tollgate.rules.snapshot-file="$WORK/snapshot-$2.json" --tollgate.warm-up.enabled=false \
    --tollgate.redis.command-timeout=50ms --logging.level.root=WARN > "$WORK/pod-$2.log" 2>&1 &
  PODS+=($!)
}
start "$A_JAR" 18990; start "$B_JAR" 18995
for m in 18992 18997; do
  for i in $(seq 1 120); do curl -sf http://127.0.0.1:$m/actuator/health/readiness > /dev/null && break; sleep 1; done
done
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
calls() { awk '/syscr|syscw/{s+=$2} END{print s}' /proc/$1/io; }
switches() { cat /proc/$1/task/*/status 2>/dev/null | awk '/ctxt_switches/{s+=$2} END{print s}'; }
redis_ticks() { local s=0; for p in $PORT $((PORT+1)) $((PORT+2)); do s=$((s+$(awk '{print $14+$15}' /proc/$(redis-cli -p $p info server | awk -F: '/process_id/{print $2}' | tr -d '\r')/stat))); done; echo $s; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
for port in 18990 18995; do wrk -t1 -c16 -d${WARM_S}s -s "$HERE/store.lua" http://127.0.0.1:$port > /dev/null; done
echo "pod round checks/s cpu_us/check rw_calls/check switches/check redis_cpu_us/check" | tee "$WORK/windows"
for round in $(seq 1 $ROUNDS); do
  for pod in "a ${PODS[0]} 18990" "b ${PODS[1]} 18995"; do
    set -- $pod
    c0=$(ticks $2); i0=$(calls $2); s0=$(switches $2); r0=$(redis_ticks)
    out=$(wrk -t1 -c16 -d10s -s "$HERE/store.lua" http://127.0.0.1:$3)
    c1=$(ticks $2); i1=$(calls $2); s1=$(switches $2); r1=$(redis_ticks)
    n=$(echo "$out" | awk '/requests in/{print $1}')
    echo "$1 $round $(echo "$out" | awk '/Requests\/sec/{printf "%.0f", $2}') $(( (c1-c0)*TICK_US/n )) \
$(echo "scale=2; ($i1-$i0)/$n" | bc) $(echo "scale=2; ($s1-$s0)/$n" | bc) $(( (r1-r0)*TICK_US/n ))" | tee -a "$WORK/windows"
  done
done
for m in 18992 18997; do
  echo "store calls / checks, pod on $m: $(curl -s http://127.0.0.1:$m/actuator/prometheus | awk '/^tollgate_store_calls_seconds_count/{s+=$2} END{printf "%d", s}') / \
$(curl -s http://127.0.0.1:$m/actuator/prometheus | awk '/^tollgate_checks_seconds_count/{s+=$2} END{printf "%d", s}')"
done
echo "medians (a: $A_JAR, b: $B_JAR)"
for pod in a b; do
  echo "$pod $(for col in 3 4 5 6 7; do awk -v p=$pod -v c=$col '$1==p{print $c}' "$WORK/windows" | sort -g | awk '{v[NR]=$1} END{printf "%s ", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; done)"
done
