#!/bin/sh
# Join the Redis nodes of deploy/docker-compose.cluster.yml into one Redis Cluster: the first
# half become masters, each with a replica (`redis-cli --cluster create ... --cluster-replicas 1`).
# Run once by the `redis-cluster-init` service; idempotent: it does nothing when the cluster
# already says cluster_state:ok, and does not create it again when the nodes already know each
# other (restarted with their nodes.conf), it only waits for them to agree.
#
# REDIS_CLUSTER_NODES: the nodes, "host:port host:port ..." (an even number, 6 or more);
# names are resolved to IPv4 addresses here (CLUSTER MEET takes addresses).
# REDIS_CLUSTER_WAIT: seconds to wait for the nodes to answer and for the cluster to be ok (120).
set -eu

NODES="${REDIS_CLUSTER_NODES:-redis-1:6379 redis-2:6379 redis-3:6379 redis-4:6379 redis-5:6379 redis-6:6379}"
WAIT="${REDIS_CLUSTER_WAIT:-120}"
set -- $NODES
COUNT=$#
FIRST_HOST="${1%:*}"
FIRST_PORT="${1##*:}"

info() {
    redis-cli -h "$FIRST_HOST" -p "$FIRST_PORT" cluster info 2>/dev/null | tr -d '\r'
}

for node in $NODES; do
    waited=0
    until redis-cli -h "${node%:*}" -p "${node##*:}" ping 2>/dev/null | grep -q PONG; do
        waited=$((waited + 1))
        if [ "$waited" -ge "$WAIT" ]; then
            echo "redis-cluster-init: $node does not answer after $WAIT s" >&2
            exit 1
        fi
        sleep 1
    done
done

if info | grep -q '^cluster_state:ok$'; then
    echo "redis-cluster-init: the cluster is already ok"
    exit 0
fi

known=$(info | sed -n 's/^cluster_known_nodes:\([0-9]*\)$/\1/p')
if [ "${known:-1}" -lt "$COUNT" ]; then
    addresses=""
    for node in $NODES; do
        host="${node%:*}"
        address=$(getent ahostsv4 "$host" | awk 'NR == 1 { print $1 }')
        if [ -z "$address" ]; then
            echo "redis-cluster-init: $host does not resolve" >&2
            exit 1
        fi
        addresses="$addresses $address:${node##*:}"
    done
    echo "redis-cluster-init: creating the cluster of$addresses"
    # shellcheck disable=SC2086  # one argument per node
    redis-cli --cluster create $addresses --cluster-replicas 1 --cluster-yes
fi

waited=0
until info | grep -q '^cluster_state:ok$'; do
    waited=$((waited + 1))
    if [ "$waited" -ge "$WAIT" ]; then
        echo "redis-cluster-init: the cluster is not ok after $WAIT s" \
            "(a create that was cut short: redis-cli --cluster fix $FIRST_HOST:$FIRST_PORT)" >&2
        info >&2 || true
        exit 1
    fi
    sleep 1
done
echo "redis-cluster-init: the cluster is ok"
