#!/usr/bin/env bash
# `skinframe eval` end to end on the GPU against the CPU's threads, for one asset: each side REPS times (3),
# the median of the command's wall time and of its clips' "evaluated in" seconds, and whether the two print
# the same tables (every line but the timings).
#   bench/eval_cuda.sh SKINFRAME ASSET FPS [eval flags...]     THREADS=16 (the CPU side, pinned with taskset)
set -uo pipefail
sf=$1 asset=$2 fps=$3
shift 3
reps=${REPS:-3} threads=${THREADS:-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one side REPS times: "median wall s, median evaluated-in s"
side() {
  local name=$1
  shift
  for r in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >"$tmp/$name.$r" 2>&1 || { echo "$name failed:" >&2; tail -3 "$tmp/$name.$r" >&2; return 1; }
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000000 )) $(grep -o 'evaluated in [0-9.]*' "$tmp/$name.$r" | awk '{s += $3} END {print s + 0}')"
  done | sort -n -k1 | awk '{w[NR] = $1; e[NR] = $2} END {m = int((NR + 1) / 2); printf "%.3f %.3f\n", w[m] / 1000, e[m]}'
}
cpu=$(side cpu taskset -c "0-$((threads - 1))" "$sf" eval "$asset" --fps "$fps" --threads "$threads" "$@") || exit 1
gpu=$(side gpu "$sf" eval "$asset" --fps "$fps" --backend cuda "$@") || exit 1
same=no
# the tables: every line but the timings (the command's total, a clip's "evaluated in", the rest pose's seconds)
tables() { grep -v -e '^time:' -e 'evaluated in' "$1" | sed -E 's/; [0-9.]+ s$//'; }
diff <(tables "$tmp/cpu.1") <(tables "$tmp/gpu.1") >/dev/null && same=yes
read -r cw ce <<<"$cpu"
read -r gw ge <<<"$gpu"
printf "%s %s fps %s: cpu %s threads wall %s s clips %s s | gpu wall %s s clips %s s | clips %.1fx wall %.2fx | same tables: %s\n" \
  "$(basename "$asset")" "$fps" "$*" "$threads" "$cw" "$ce" "$gw" "$ge" "$(awk "BEGIN{print $ce / ($ge > 0 ? $ge : 1e-9)}")" \
  "$(awk "BEGIN{print $cw / $gw}")" "$same"
