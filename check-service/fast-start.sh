#!/bin/sh
# Lays check-service out for a fast start and trains the JVM's class cache for it, then prints the command
# that runs it. Usage (after ./mvnw -B -pl check-service -am package -DskipTests):
#
#   check-service/fast-start.sh [destination]        # default: check-service/target/fast
#
# Why: most of a cold start is loading, linking and verifying ~12,000 classes from the fat jar. Boot's
# extracted layout (app.jar + lib/) can be archived; a training run (the application context refreshed,
# then exit) records what it loads, and later starts map it instead. With the JDK on PATH:
#   - Java 25+ (JEP 483/514): an AOT cache (-XX:AOTCache), classes loaded and linked ahead of time;
#   - Java 17-24: a dynamic CDS archive (-XX:SharedArchiveFile), classes parsed and verified ahead of time.
# The archive is only valid for the same JDK build, the same JVM flags that matter (the GC) and the same
# files at the same paths: train where it will run (in the image, or again after each build).
# Set JAVA to pick another JDK, JAVA_OPTS for the flags the service will run with (the Helm chart's).
# TRAIN_WARM_UP (default 60s; 0: none) is how long the training run may run the pod's warm-up (docs/warm-up.md) before it
# is stopped: on Java 25 the AOT cache then also holds the check path's method profiles (JEP 515), so a pod started
# from it compiles that path at once instead of profiling it first; on 17 the archive gains the classes it loads.
# AOT=on adds Spring AOT (-Dspring.aot.enabled=true): the bean definitions the build wrote as code, for a pod of
# the chart's shape only (a management port of its own, rules from rules-service: see AotChoices); the training
# run then takes that shape too (rules from an unreachable rules-service and a saved snapshot).
# APP=<dir>/app.jar trains a layout already extracted there, in place, instead of laying out the build's jar: the
# image build does (check-service/Dockerfile), so that the archive is made from the very files the image runs (an
# archive records each jar's size and time, and a copied file may not keep its time). Run it from outside <dir>.
set -eu

java=${JAVA:-java}
opts=${JAVA_OPTS:-"-XX:+UseG1GC -XX:MaxGCPauseMillis=10"}
if [ -n "${APP:-}" ]; then
  app=$APP
  dest=$(cd "$(dirname "$app")" && pwd)
else
  here=$(cd "$(dirname "$0")" && pwd)
  jar=$(ls "$here"/target/tollgate-check-service-*.jar 2>/dev/null | head -n 1)
  [ -n "$jar" ] || { echo "no check-service jar in $here/target: ./mvnw -B -pl check-service -am package -DskipTests" >&2; exit 1; }
  dest=${1:-$here/target/fast}
  rm -rf "$dest"
  "$java" -Djarmode=tools -jar "$jar" extract --destination "$dest" >/dev/null
  app="$dest/$(basename "$jar")"
fi
[ -f "$app" ] || { echo "no application jar at $app" >&2; exit 1; }

if [ "${AOT:-off}" = on ]; then
  opts="$opts -Dspring.aot.enabled=true"
fi
feature=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
if [ "$feature" -ge 25 ]; then
  train="-XX:AOTCacheOutput=$dest/app.aot"
  use="-XX:AOTCache=$dest/app.aot"
else
  train="-XX:ArchiveClassesAtExit=$dest/app.jsa"
  use="-XX:SharedArchiveFile=$dest/app.jsa"
fi

# The training run: the pod started as it runs (web and management servers, the gRPC server, Redis connection
# attempts, which fail harmlessly without a cluster), a few checks answered over HTTP (by their fail mode, with no
# store) so that the request path's classes are in the archive too, then stopped with SIGTERM: the JVM writes
# the archive as it exits. Ports 0: it never clashes with a running service. Without curl or wget, the context
# is refreshed and the JVM exits at once (-Dspring.context.exit=onRefresh): an archive without the request path.
run_args="--server.port=0 --management.server.port=0 --tollgate.grpc.port=0 --spring.data.redis.cluster.nodes=127.0.0.1:1
  --spring.main.banner-mode=off"
train_warm_up=${TRAIN_WARM_UP:-60s}
case "$train_warm_up" in
  0|0s) warm=off; run_args="$run_args --tollgate.warm-up.enabled=false" ;;
  *) warm=on; run_args="$run_args --tollgate.warm-up.enabled=true --tollgate.warm-up.max-duration=$train_warm_up" ;;
esac
if [ "${AOT:-off}" = on ]; then
  snapshot="$dest/training-snapshot.json"
  printf '{"revision":1,"rules":[{"id":"training","domain":"training","match":{"plan":"training"},"algorithm":"token_bucket","rate_per_s":10,"burst":20,"mode":"enforce","fail_mode":"open","max_cost":1,"version":1}],"overrides":[],"region_budgets":[]}\n' >"$snapshot"
  run_args="$run_args --tollgate.rules.service-url=http://127.0.0.1:1 --tollgate.rules.snapshot-file=$snapshot"
else
  rules="$dest/training-rules.yml"
  printf 'rules:\n  - id: training\n    domain: training\n    match: { plan: training }\n    algorithm: token_bucket\n    rate_per_s: 10\n    burst: 20\n' >"$rules"
  run_args="$run_args --tollgate.rules.file=$rules --tollgate.rules.service-url="
fi
check='{"domain":"training","entries":[{"rule":"training","key":"k","cost":1}]}'
post() {
  if command -v curl >/dev/null 2>&1; then
    curl -s -o /dev/null -XPOST -H 'Content-Type: application/json' -d "$check" "$1"
  else
    wget -q -O /dev/null --header='Content-Type: application/json' --post-data="$check" "$1"
  fi
}
if command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  "$java" $opts $train -jar "$app" $run_args >"$dest/training.log" 2>&1 &
  pid=$!
  port=
  for _ in $(seq 1 600); do
    port=$(sed -n 's/.*Netty started on port \([0-9]*\).*/\1/p' "$dest/training.log" | head -n 1)
    [ -n "$port" ] && grep -q 'Started CheckServiceApplication' "$dest/training.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { kill "$pid" 2>/dev/null; tail -n 40 "$dest/training.log" >&2; echo "training run did not start, see $dest/training.log" >&2; exit 1; }
  # the warm-up's own end (the JIT settled, or its longest run), which it logs as "warmed up in ..." or "warm-up skipped"
  while [ "$warm" = on ]; do
    grep -q -e 'warmed up in' -e 'warm-up skipped' "$dest/training.log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  for _ in $(seq 1 50); do post "http://127.0.0.1:$port/v1/ratelimit:check" || true; done
  kill -TERM "$pid"
  wait "$pid" || true
else
  # shellcheck disable=SC2086
  "$java" $opts $train -Dspring.context.exit=onRefresh -jar "$app" $run_args --logging.level.root=WARN >"$dest/training.log" 2>&1 \
    || { echo "training run failed, see $dest/training.log" >&2; exit 1; }
fi
[ -s "${use#*=}" ] || { tail -n 40 "$dest/training.log" >&2; echo "training run wrote no archive, see $dest/training.log" >&2; exit 1; }

echo "$java $opts $use -jar $app"
