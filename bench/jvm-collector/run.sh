#!/bin/bash
# From the repository root, after ./mvnw -B -pl check-service -am package -DskipTests and with a Redis Cluster
# on 127.0.0.1:30101-30103: bench/jvm-collector/run.sh <label> <collector flags...>. check-service at the chart's
# limits (MaxRAM 1 GiB, 2 CPUs, the chart's heap percentages), 15 s of wrk warm-up, 30 s measured, then its GC pauses.
label=$1; shift
JAR=check-service/target/tollgate-check-service-0.1.0-SNAPSHOT.jar
${JAVA:-java} -XX:MaxRAM=1g -XX:ActiveProcessorCount=2 -XX:InitialRAMPercentage=50.0 -XX:MaxRAMPercentage=70.0 "$@" \
  -jar $JAR --server.port=18980 --management.server.port=18981 \
  --spring.data.redis.cluster.nodes=127.0.0.1:30101,127.0.0.1:30102,127.0.0.1:30103 \
  --tollgate.rules.file=bench/jvm-collector/rules.yml --tollgate.rules.snapshot-file=/tmp/tollgate-gc-snapshot.json \
  --logging.level.root=WARN > /tmp/$label.app.log 2>&1 &
pid=$!
for i in $(seq 1 120); do curl -sf http://127.0.0.1:18981/actuator/health/readiness >/dev/null && break; sleep 1; done
wrk -t1 -c16 -d15s -s bench/jvm-collector/check.lua http://127.0.0.1:18980 > /dev/null 2>&1   # warm-up
load=$(cut -d' ' -f1 /proc/loadavg)
wrk -t1 -c16 -d30s --latency -s bench/jvm-collector/check.lua http://127.0.0.1:18980 > /tmp/$label.wrk 2>&1
scrape=$(curl -s http://127.0.0.1:18981/actuator/prometheus)
kill $pid; wait $pid 2>/dev/null
echo "== $label (load before run $load) $(${JAVA:-java} "$@" -XX:MaxRAM=1g -XX:ActiveProcessorCount=2 -XX:+PrintFlagsFinal -version 2>/dev/null | grep -E ' Use(Serial|G1|Parallel|Z)GC ' | grep true | awk '{print $2}')"
grep -E "Requests/sec|  50%|  90%|  99%|Latency  |Socket errors" /tmp/$label.wrk
echo "$scrape" | grep -E '^jvm_gc_pause_seconds_(count|sum|max)' | sed 's/{.*action="\([^"]*\)".*gc="\([^"]*\)".*}/ \1 \2/'
