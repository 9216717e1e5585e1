#!/usr/bin/env bash
# Start a local Redis Cluster for the tests and benchmarks (issue 21): six redis-server nodes on
# 127.0.0.1 ports 7101-7106, joined by `redis-cli --cluster create` as 3 masters with a replica
# each. Idempotent: nothing is done when the cluster already answers cluster_state:ok.
# No persistence (--save "" --appendonly no): it holds only test and benchmark data.
#
#   scripts/redis-cluster.sh          start (or check) the cluster, wait until it is ok
#   scripts/redis-cluster.sh stop     shut the six nodes down and delete their files
#
# Environment: REDIS_CLUSTER_DIR (default /tmp/hearts-redis-cluster), REDIS_CLUSTER_PORTS
# (default "7101 7102 7103 7104 7105 7106"; six ports, the first three become the masters).
# Use it with HEARTS_REDIS_URL=redis+cluster://127.0.0.1:7101 (the app) or
# HEARTS_TEST_REDIS_CLUSTER_URL=redis+cluster://127.0.0.1:7101 (the tests).
set -euo pipefail

DIR="${REDIS_CLUSTER_DIR:-/tmp/hearts-redis-cluster}"
read -r -a PORTS <<< "${REDIS_CLUSTER_PORTS:-7101 7102 7103 7104 7105 7106}"
FIRST="${PORTS[0]}"

cluster_ok() {
    redis-cli -h 127.0.0.1 -p "$FIRST" cluster info 2>/dev/null | grep -q '^cluster_state:ok'
}

if [ "${1:-start}" = "stop" ]; then
    for port in "${PORTS[@]}"; do
        redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
    done
    rm -rf "$DIR"
    exit 0
fi

if cluster_ok; then
    exit 0
fi

mkdir -p "$DIR"
for port in "${PORTS[@]}"; do
    if ! redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
        redis-server --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
            --cluster-config-file "nodes-$port.conf" --cluster-node-timeout 2000 \
            --save "" --appendonly no --daemonize yes --dir "$DIR" \
            --logfile "$DIR/redis-$port.log" ||
            { echo "redis-cluster.sh: redis-server did not start on port $port (in use?)" >&2; exit 1; }
    fi
done
for port in "${PORTS[@]}"; do
    for _ in $(seq 1 50); do
        redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.1
    done
done

# Join them unless they already know each other (a node restarted with its nodes-P.conf).
known=$(redis-cli -h 127.0.0.1 -p "$FIRST" cluster info | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p')
if [ "${known:-1}" -lt "${#PORTS[@]}" ]; then
    addresses=()
    for port in "${PORTS[@]}"; do
        addresses+=("127.0.0.1:$port")
    done
    redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >/dev/null
fi

for _ in $(seq 1 100); do
    if cluster_ok; then
        exit 0
    fi
    sleep 0.2
done
echo "redis-cluster.sh: the cluster on port $FIRST is not ok after 20 s" >&2
redis-cli -h 127.0.0.1 -p "$FIRST" cluster info >&2 || true
exit 1
