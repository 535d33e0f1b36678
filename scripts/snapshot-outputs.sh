#!/usr/bin/env bash
# Writes what the skinframe command computes and prints for every built-in scene and every test asset into
# one folder, with run times masked, so that two builds can be compared file by file:
#   scripts/snapshot-outputs.sh BUILD/skinframe ASSET_DIR OUT_DIR
# Numbers (text and JSON), CSV rows, dumps and the bytes of pictures and baked files (as SHA-256) are kept.
# scripts/check-outputs.sh makes such a folder for a base revision and for the working tree and compares them.
set -euo pipefail
sf=$(realpath "$1"); assets=$(realpath "$2"); out=$3
mkdir -p "$out"; out=$(realpath "$out")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

mask() {  # run times differ from run to run; everything else must not
  sed -E -e 's/("[a-z_]*seconds"[[:space:]]*:[[:space:]]*)[-0-9.e+]+/\1T/' \
         -e '/"seconds":/,/}/s/("(load|topology|total)"[[:space:]]*:[[:space:]]*)[-0-9.e+]+/\1T/' \
         -e 's/(evaluated in|time:|load|topology|vertices;) [0-9.]+ s/\1 T s/g' \
         -e 's/[0-9]+ thread\(s\)/N thread(s)/'
}
run() {  # NAME ARGS...: stdout (masked) and the exit status into NAME.txt
  local name=$1; shift
  local status=0
  (cd "$work" && "$sf" "$@" 2>"$out/$name.stderr" | mask >"$out/$name.txt") || status=$?
  echo "exit $status" >>"$out/$name.txt"
  sed -i -e "s#$assets#ASSETS#g" -e "s#$work#WORK#g" "$out/$name.txt" "$out/$name.stderr"
  [ -s "$out/$name.stderr" ] || rm -f "$out/$name.stderr"
}
hashes() {  # NAME DIR: the SHA-256 of every file written under DIR
  (cd "$2" && find . -type f | LC_ALL=C sort | xargs -r sha256sum) >"$out/$1.sha256"
}

run scenes scenes --json
run demo demo --json --threads 2
run demo-text demo --threads 1
mkdir -p "$work/demo"; run demo-out demo --out demo --threads 2
mask <"$work/demo/demo.json" >"$out/demo-out.json"; rm -f "$work/demo/demo.json" "$work/demo/demo.txt"
hashes demo-pictures "$work/demo"

run compare-twist compare --scene sheet --preset bone-twist --json --dump twist.json
run compare-combo compare --scene sheet --morph towel-twist=0.7,swirl=0.5,ripples=0.6 --set twist=90 --json \
    --dump combo.json
run compare-elbow-sweep compare --scene elbow --preset bend --sweep resolution=4:32:4 --json
run compare-weld compare --scene sheet --preset bone-bend --weld position --tangents mikktspace --weighting angle
run compare-morph-none compare --scene sheet --morph towel-twist=1 --morph-directions none
mv "$work/twist.json" "$out/compare-twist.dump.json"; mv "$work/combo.json" "$out/compare-combo.dump.json"
mkdir -p "$work/pictures"
run render-twist render --scene sheet --preset bone-twist --method unchanged -o pictures/twist.png
run render-towel render --scene sheet --morph towel-twist=1 --material normal-map --vectors --rig --method skinned \
    -o pictures/towel.png
run render-elbow render --scene elbow --preset bend --all-methods -o pictures/elbow/
run plot-twist plot --scene sheet --preset bone-twist --sweep twist=0:180:13 -o pictures/twist-sweep.png

find "$assets" \( -name '*.glb' -o -name '*.gltf' \) | LC_ALL=C sort | while read -r file; do
  name=$(basename "$file"); name=${name%.*}-${name##*.}
  run "info-$name" info "$file"
  run "eval-$name" eval "$file"
  run "eval-$name-json" eval "$file" --json --csv "$name.csv" --threads 1
  mask <"$work/$name.csv" >"$out/eval-$name.csv" 2>/dev/null || true
  run "eval-$name-authored" eval "$file" --reference authored --json --weld none --tangents uv
  run "render-$name" render --gltf "$file" --time 0.5 --method skinned -o "pictures/$name.png"
  run "bake-$name" bake "$file" --time 0.5 --method jacobian --error-colors -o "pictures/$name-posed.glb"
done
hashes pictures "$work/pictures"
