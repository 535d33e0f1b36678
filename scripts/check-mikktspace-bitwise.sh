#!/usr/bin/env bash
# Compares the MikkTSpace tangents of two skinframe builds bit for bit, on every built-in scene and preset
# and every staged glTF asset:
#   scripts/check-mikktspace-bitwise.sh OLD/skinframe NEW/skinframe ASSET_DIR
# Scenes: `compare --tangents mikktspace --dump` (the dump's floats read back exactly; it holds the
# reference's MikkTSpace tangents). Assets: `bake --method recompute --tangents mikktspace` at three times
# (the .glb's bytes), and `eval --tangents mikktspace` (every frame of every animation on one workspace,
# so frames that reuse the previous frame's structure are covered; run times masked). Exits 1 on any
# difference, naming it.
set -euo pipefail
old=$(realpath "$1"); new=$(realpath "$2"); assets=$(realpath "$3")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/new"
fail=0 checked=0

mask() {
  sed -E -e 's/("[a-z_]*seconds"[[:space:]]*:[[:space:]]*)[-0-9.e+]+/\1T/' \
         -e '/"seconds":/,/}/s/("(load|topology|total)"[[:space:]]*:[[:space:]]*)[-0-9.e+]+/\1T/' \
         -e 's/(evaluated in|time:|load|topology|vertices;) [0-9.]+ s/\1 T s/g'
}
both() {  # NAME ARGS... (OUT in ARGS is the output file's name): runs both builds, compares NAME's files
  local name=$1; shift
  for side in old new; do
    local sf=$old; [ $side = new ] && sf=$new
    (cd "$work/$side" && "$sf" "${@//OUT/$name}" 2>/dev/null | mask >"$name.txt") || echo "exit $?" >>"$work/$side/$name.txt"
  done
  for f in "$work/old/$name"*; do
    checked=$((checked + 1))
    if ! cmp -s "$f" "$work/new/$(basename "$f")"; then
      echo "differs: $(basename "$f")"
      fail=1
    fi
  done
}

scenes=$("$new" scenes --json | python3 -c 'import json,sys
d=json.load(sys.stdin)
for s in d["scenes"] if isinstance(d,dict) else d:
    print(s["name"]); [print(s["name"]+" "+p["name"]) for p in s.get("presets",[])]')
while read -r scene preset; do
  args=(compare --scene "$scene" --tangents mikktspace --dump OUT.json)
  [ -n "${preset:-}" ] && args+=(--preset "$preset")
  both "scene-$scene-${preset:-rest}" "${args[@]}"
done <<<"$scenes"

while read -r file; do
  name=$(basename "$file"); name=${name%.*}-${name##*.}
  for t in 0 0.5 1.25; do
    both "bake-$name-$t" bake "$file" --time "$t" --method recompute --tangents mikktspace -o OUT.glb
  done
  both "eval-$name" eval "$file" --tangents mikktspace --json --threads 1
done < <(find "$assets" \( -name '*.glb' -o -name '*.gltf' \) | LC_ALL=C sort)

echo "$checked files compared"
exit $fail
