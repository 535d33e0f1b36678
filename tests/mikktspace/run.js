// Reference tangents from the npm package `mikktspace` (gltf-rs/mikktspace, a port of Morten S.
// Mikkelsen's MikkTSpace, built to WebAssembly). Input file: the corner count on the first line, then
// one corner per line "px py pz nx ny nz u v" (unindexed triangles, as the package requires).
// Output: one line per corner "tx ty tz w", exactly as the package returns them (no glTF sign flip
// here: the caller decides the convention), or one line "error MESSAGE" when the package fails.
'use strict';
const fs = require('fs');
const path = require('path');

// usage: node run.js [--module DIR] INPUT.txt            (tangents on stdout)
//        node run.js [--module DIR] IN1 OUT1 [IN2 OUT2 ...] (one node start for many meshes)
// DIR: the installed package (tests/test_mikktspace.c runs npm install in $SF_BUILD_DIR/mikktspace-reference
// from a copy of package.json and package-lock.json and passes its node_modules/mikktspace); by default
// node_modules/mikktspace beside this file.
const args = process.argv.slice(2);
let packagePath = path.join(__dirname, 'node_modules', 'mikktspace');
if (args[0] === '--module') {
  packagePath = path.resolve(args[1] || '');
  args.splice(0, 2);
}
let generateTangents;
function load() {
  try {
    ({ generateTangents } = require(packagePath));
  } catch (e) {
    process.stderr.write('mikktspace package missing at ' + packagePath + ' (npm install)\n');
    process.exit(3);
  }
}
load();

function run(file) {
  const words = fs.readFileSync(file, 'utf8').split(/\s+/).filter((w) => w.length > 0);
  const count = parseInt(words[0], 10);
  if (!(count >= 0) || words.length !== 1 + 8 * count) {
    process.stderr.write(`${file}: ${words.length - 1} numbers for ${count} corners\n`);
    process.exit(2);
  }
  const positions = new Float32Array(3 * count);
  const normals = new Float32Array(3 * count);
  const uvs = new Float32Array(2 * count);
  for (let c = 0; c < count; c++) {
    const w = 1 + 8 * c;
    for (let k = 0; k < 3; k++) positions[3 * c + k] = parseFloat(words[w + k]);
    for (let k = 0; k < 3; k++) normals[3 * c + k] = parseFloat(words[w + 3 + k]);
    for (let k = 0; k < 2; k++) uvs[2 * c + k] = parseFloat(words[w + 6 + k]);
  }
  let tangents;
  try {
    tangents = count ? generateTangents(positions, normals, uvs) : new Float32Array(0);
  } catch (e) {
    // The reference traps on some inputs (every triangle degenerate): say so, and start a fresh
    // instance, since a trapped WebAssembly instance may be left inconsistent.
    for (const key of Object.keys(require.cache)) if (key.startsWith(packagePath)) delete require.cache[key];
    load();
    return 'error ' + String(e.message || e).replace(/\s+/g, ' ') + '\n';
  }
  const lines = [];
  for (let c = 0; c < count; c++) {
    const t = tangents.subarray(4 * c, 4 * c + 4);
    lines.push(`${t[0]} ${t[1]} ${t[2]} ${t[3]}`);
  }
  return lines.join('\n') + (count ? '\n' : '');
}

if (args.length === 1) {
  process.stdout.write(run(args[0]));
} else if (args.length >= 2 && args.length % 2 === 0) {
  for (let i = 0; i < args.length; i += 2) fs.writeFileSync(args[i + 1], run(args[i]));
} else {
  process.stderr.write('usage: node run.js [--module DIR] INPUT.txt | node run.js [--module DIR] IN1 OUT1 [IN2 OUT2 ...]\n');
  process.exit(2);
}
