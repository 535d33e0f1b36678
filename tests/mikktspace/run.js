// Reference tangents from the npm package `mikktspace` (gltf-rs/mikktspace, a port of Morten S.
// Mikkelsen's MikkTSpace, built to WebAssembly). Input file: the corner count on the first line, then
// one corner per line "px py pz nx ny nz u v" (unindexed triangles, as the package requires).
// Output on stdout: one line per corner "tx ty tz w", exactly as the package returns them (no glTF
// sign flip here: the caller decides the convention).
'use strict';
const fs = require('fs');
const path = require('path');

let generateTangents;
try {
  ({ generateTangents } = require(path.join(__dirname, 'node_modules', 'mikktspace')));
} catch (e) {
  process.stderr.write('mikktspace package missing: run npm install in ' + __dirname + '\n');
  process.exit(3);
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node run.js INPUT.txt\n');
  process.exit(2);
}
const words = fs.readFileSync(file, 'utf8').split(/\s+/).filter((w) => w.length > 0);
const count = parseInt(words[0], 10);
if (!(count >= 0) || words.length !== 1 + 8 * count) {
  process.stderr.write(`bad input: ${words.length - 1} numbers for ${count} corners\n`);
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
const tangents = generateTangents(positions, normals, uvs);
const lines = [];
for (let c = 0; c < count; c++) {
  const t = tangents.subarray(4 * c, 4 * c + 4);
  lines.push(`${t[0]} ${t[1]} ${t[2]} ${t[3]}`);
}
process.stdout.write(lines.join('\n') + (count ? '\n' : ''));
