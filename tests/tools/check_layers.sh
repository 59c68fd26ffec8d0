#!/usr/bin/env bash
# Layers point one way: a folder of src/ may include only folders below it in this order
# (docs/architecture.md, "Which folder may include which"). Fails on any include that points
# up, except the ones listed in KNOWN below: includes that predate this check and are still to
# be removed (issue "one call path"). A file that stops needing its exception must leave the
# list too (the check fails on a listed include that no longer exists), so the list only
# shrinks.
#   check_layers.sh [SRC_DIR]
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../../src" && pwd)}
# Lowest first. Folders on one line are one level (they include neither each other nor
# anything above). sim and check are tools beside the library, above what they use.
order=(core topo sched tune compile exec transport comm call native coll device plan capi "sim check")
KNOWN=()
declare -A level
for i in "${!order[@]}"; do
  for f in ${order[$i]}; do level[$f]=$i; done
done
found=()
fail=0
while IFS= read -r file; do
  rel=${file#"$src"/}
  from=${rel%%/*}
  [ -n "${level[$from]:-}" ] || { echo "check_layers: $rel: folder '$from' has no level"; fail=1; continue; }
  while IFS= read -r to; do
    [ "$to" = "$from" ] && continue
    [ -n "${level[$to]:-}" ] || continue  # not a folder of src/ (a generated header)
    if [ "${level[$to]}" -ge "${level[$from]}" ]; then
      edge="$rel -> $to"
      found+=("$edge")
      known=0
      for k in "${KNOWN[@]}"; do [ "$k" = "$edge" ] && known=1; done
      if [ $known = 0 ]; then
        echo "check_layers: $edge: $from may not include $to (it is not below it)"
        fail=1
      fi
    fi
  done < <(sed -n 's|^#include "\([a-z_]*\)/.*|\1|p' "$file" | sort -u)
done < <(find "$src" -name '*.h' -o -name '*.cc' -o -name '*.cu' | sort)
for k in "${KNOWN[@]}"; do
  hit=0
  for e in "${found[@]}"; do [ "$e" = "$k" ] && hit=1; done
  if [ $hit = 0 ]; then
    echo "check_layers: '$k' is listed as a known exception but no longer exists: remove it"
    fail=1
  fi
done
[ $fail = 0 ] && echo "check_layers: every include points down (${#KNOWN[@]} known exceptions left)"
exit $fail
