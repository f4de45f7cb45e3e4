#!/usr/bin/env bash
# Moves one Redis Cluster slot, keys and all, to another primary while checks keep running: the mitigation of
# the TollgateHotSlot alert (docs/runbooks.md) once leases and the deny cache are not enough, with the slot from
# GET /v1/hot-keys. Give the target a primary of its own first (redis-cli --cluster add-node NEW:PORT ANY:PORT).
#
#   move-hot-slot.sh [-a PASSWORD] ANY_NODE_HOST:PORT SLOT TARGET_HOST:PORT
#
# `redis-cli --cluster reshard` moves *some* slots; this moves *the* slot, with the same commands in the order
# Redis documents for a live migration:
#   1. target: CLUSTER SETSLOT <slot> IMPORTING <owner>   (it takes the slot's commands that come with ASKING)
#   2. owner:  CLUSTER SETSLOT <slot> MIGRATING <target>  (a key it no longer has answers ASK -> target)
#   3. owner:  MIGRATE of the slot's keys, in batches; each key moves atomically (the owner blocks while it copies
#              and deletes it), so a check spends on the key at the owner or at the target, never at both
#   4. CLUSTER SETSLOT <slot> NODE <target> on the target, then the owner, then every other primary; from then on
#      the owner answers MOVED, and the clients re-read the slot map.
# Nothing is lost and nothing is counted twice as long as the clients follow ASK and MOVED (Lettuce does; see
# MoveHotSlotIT). Run it again after a failure: a slot already on the target is left alone, and a move that stopped
# before step 4 (slot still MIGRATING/IMPORTING) is finished by the same steps; one that stopped within step 4 is what
# `redis-cli --cluster check` reports and `--cluster fix` repairs.
#
# Exit codes: 0 moved (or already there), 2 bad arguments, 3 the cluster does not know a node, 4 a Redis command
# failed.
set -euo pipefail

usage() {
  echo "usage: $0 [-a PASSWORD] ANY_NODE_HOST:PORT SLOT TARGET_HOST:PORT" >&2
  exit 2
}

password=""
while getopts "a:" opt; do
  case "$opt" in
    a) password="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
seed="$1" slot="$2" target="$3"
[[ "$slot" =~ ^[0-9]+$ ]] && [ "$slot" -le 16383 ] || { echo "slot must be 0-16383, was '$slot'" >&2; exit 2; }
[[ "$seed" =~ ^[^:]+:[0-9]+$ ]] || { echo "ANY_NODE must be HOST:PORT, was '$seed'" >&2; exit 2; }
[[ "$target" =~ ^[^:]+:[0-9]+$ ]] || { echo "TARGET must be HOST:PORT, was '$target'" >&2; exit 2; }

# the password goes through the environment, not argv, so that it does not show in ps
if [ -n "$password" ]; then
  export REDISCLI_AUTH="$password"
fi

# rc HOST:PORT ARGS...: one command on one node; a Redis error reply is a failure here, not a line of output
rc() {
  local node="$1"; shift
  local out
  if ! out=$(redis-cli -h "${node%:*}" -p "${node##*:}" --no-auth-warning "$@" 2>&1); then
    echo "redis-cli on $node failed: $* -> $out" >&2
    exit 4
  fi
  if [[ "$out" == ERR* || "$out" == *"(error)"* || "$out" == MOVED* || "$out" == ASK* || "$out" == NOAUTH* || "$out" == WRONGPASS* ]]; then
    echo "$node answered $* with: $out" >&2
    exit 4
  fi
  printf '%s\n' "$out"
}

nodes=$(rc "$seed" CLUSTER NODES)

# id_of HOST:PORT: the node id of a member, from its "ip:port@bus" column
id_of() {
  awk -v want="$1" '{ split($2, a, "@"); if (a[1] == want) print $1 }' <<<"$nodes"
}

# owner_of SLOT: the id of the primary whose ranges hold the slot (a "[...]" entry is a migration, not a range)
owner_of() {
  awk -v s="$1" '$3 ~ /master/ {
      for (i = 9; i <= NF; i++) {
        if ($i ~ /^\[/) continue
        n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1])
        if (s + 0 >= lo + 0 && s + 0 <= hi + 0) print $1
      }
    }' <<<"$nodes"
}

address_of() {
  awk -v id="$1" '$1 == id { split($2, a, "@"); print a[1] }' <<<"$nodes"
}

target_id=$(id_of "$target")
[ -n "$target_id" ] || { echo "the cluster does not know $target; add it first: redis-cli --cluster add-node $target $seed" >&2; exit 3; }
grep -q "^$target_id .*master" <<<"$nodes" || { echo "$target is not a primary" >&2; exit 3; }
owner_id=$(owner_of "$slot")
[ -n "$owner_id" ] || { echo "no primary owns slot $slot" >&2; exit 3; }
if [ "$owner_id" = "$target_id" ]; then
  echo "slot $slot is already on $target"
  exit 0
fi
owner=$(address_of "$owner_id")
echo "moving slot $slot from $owner ($owner_id) to $target ($target_id)"

rc "$target" CLUSTER SETSLOT "$slot" IMPORTING "$owner_id" >/dev/null
rc "$owner" CLUSTER SETSLOT "$slot" MIGRATING "$target_id" >/dev/null

moved=0
auth=()
if [ -n "$password" ]; then
  auth=(AUTH "$password")
fi
while true; do
  batch=$(rc "$owner" CLUSTER GETKEYSINSLOT "$slot" 100)
  mapfile -t keys < <(sed '/^$/d' <<<"$batch")
  [ "${#keys[@]}" -gt 0 ] || break
  # 5 s per batch: the owner blocks while it copies, and a hot slot's keys are few and small
  reply=$(redis-cli -h "${owner%:*}" -p "${owner##*:}" --no-auth-warning \
    MIGRATE "${target%:*}" "${target##*:}" "" 0 5000 "${auth[@]}" KEYS "${keys[@]}" 2>&1) || { echo "MIGRATE failed: $reply" >&2; exit 4; }
  case "$reply" in
    OK|NOKEY) ;;
    *) echo "MIGRATE of slot $slot answered: $reply" >&2; exit 4 ;;
  esac
  moved=$((moved + ${#keys[@]}))
done

# the target first, so that it owns the slot before the owner starts answering MOVED to it
rc "$target" CLUSTER SETSLOT "$slot" NODE "$target_id" >/dev/null
rc "$owner" CLUSTER SETSLOT "$slot" NODE "$target_id" >/dev/null
for id in $(awk '$3 ~ /master/ && $3 !~ /fail/ { print $1 }' <<<"$nodes"); do
  if [ "$id" != "$target_id" ] && [ "$id" != "$owner_id" ]; then
    rc "$(address_of "$id")" CLUSTER SETSLOT "$slot" NODE "$target_id" >/dev/null
  fi
done
echo "moved slot $slot ($moved keys) from $owner to $target"
