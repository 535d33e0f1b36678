// The float32 bound of the rebuilt reference's agreement (src/float_bound.js): its value on a grid worked out by
// hand, and an experiment: every coordinate of a fine grid moved by one float32 step turns the rebuilt normals by
// more than the page's 1e-3 degrees, and never by more than the bound.
import test from 'node:test';
import assert from 'node:assert/strict';
import { referenceRoundingDeg } from '../src/float_bound.js';

// the next float32 up or down from x, by its bits (x finite, not 0)
const bits = new DataView(new ArrayBuffer(4));
function step32(x, direction) {
  bits.setFloat32(0, x);
  const away = (direction > 0) === (x > 0);
  bits.setUint32(0, bits.getUint32(0) + (away ? 1 : -1));
  return bits.getFloat32(0);
}

// an n x n grid of spacing h whose corner is at (x0, y0), a wave of the given height in z; two triangles a quad
function grid(n, h, x0, y0, wave) {
  const positions = new Float32Array(3 * n * n), indices = [];
  for (let j = 0; j < n; ++j) {
    for (let i = 0; i < n; ++i) positions.set([x0 + i * h, y0 + j * h, wave * Math.sin(0.3 * i + 0.2 * j) + 0.5], 3 * (j * n + i));
  }
  for (let j = 0; j + 1 < n; ++j) {
    for (let i = 0; i + 1 < n; ++i) { const a = j * n + i; indices.push(a, a + 1, a + n, a + 1, a + n + 1, a + n); }
  }
  return { positions, indices: new Uint32Array(indices) };
}

// area-weighted corner normals in float64 from float32 positions (the reference's normals, written again)
function normals({ positions: p, indices }) {
  const out = new Float64Array(p.length);
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]].map((v) => 3 * v);
    const e = [0, 1, 2].map((k) => p[b + k] - p[a + k]), f = [0, 1, 2].map((k) => p[c + k] - p[a + k]);
    const x = [e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]];
    for (const v of [a, b, c]) for (let k = 0; k < 3; ++k) out[v + k] += x[k];
  }
  return out;
}

function angleDeg(u, v, i) {
  const a = [u[i], u[i + 1], u[i + 2]], b = [v[i], v[i + 1], v[i + 2]];
  const cross = Math.hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
  return Math.atan2(cross, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180 / Math.PI;
}

test('the bound is two float32 steps of the largest coordinate over the shortest edge', () => {
  // flat, every coordinate exact in float32: the shortest edge is a grid step, the largest coordinate 2.375
  const h = 1 / 64, mesh = grid(9, h, 2.25, 0, 0);
  const far = mesh.positions.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  assert.equal(far, 2.375);
  const ulp = step32(far, 1) - far; // far is no power of two: the step up is its ulp
  const expected = 2 * ulp / h * 180 / Math.PI;
  assert.ok(Math.abs(referenceRoundingDeg(mesh.positions, mesh.indices) - expected) < 1e-12 * expected,
    `${referenceRoundingDeg(mesh.positions, mesh.indices)} against ${expected}`);
  assert.equal(referenceRoundingDeg(new Float32Array(0), new Uint32Array(0)), 0);
  // zero-length edges (a welded seam's duplicates) are not the shortest edge
  assert.equal(referenceRoundingDeg(new Float32Array([1, 0, 0, 1, 0, 0, 2, 0, 0]), new Uint32Array([0, 1, 2])),
    2 * (step32(2, 1) - 2) * 180 / Math.PI);
});

test('a float32 step on every coordinate of a fine grid stays within the bound, and can pass 1e-3 degrees', () => {
  const mesh = grid(120, 1 / 512, 2.3, 0.5, 0.01);
  const bound = referenceRoundingDeg(mesh.positions, mesh.indices);
  const before = normals(mesh);
  let seed = 12345;
  const coin = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) & 0x10000 ? 1 : -1);
  let worst = 0;
  for (let trial = 0; trial < 3; ++trial) {
    const moved = { positions: mesh.positions.map((x) => step32(x, coin())), indices: mesh.indices };
    const after = normals(moved);
    for (let i = 0; i < after.length; i += 3) worst = Math.max(worst, angleDeg(before, after, i));
  }
  assert.ok(worst > 1e-3, `one float32 step turns the normals by ${worst} degrees`);
  assert.ok(worst <= bound, `${worst} degrees against the bound ${bound}`);
});

test('a skinned coordinate\'s steps: the bound scales with them, and moves of up to that many steps stay within it', () => {
  const mesh = grid(120, 1 / 512, 2.3, 0.5, 0.01);
  const one = referenceRoundingDeg(mesh.positions, mesh.indices), steps = 5; // four influences and the rest position
  const bound = referenceRoundingDeg(mesh.positions, mesh.indices, steps);
  assert.ok(Math.abs(bound - steps * one) <= 1e-12 * bound, `${bound} against ${steps} x ${one}`);
  const before = normals(mesh);
  let seed = 6789;
  const draw = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16;
  let worst = 0;
  for (let trial = 0; trial < 3; ++trial) {
    const moved = mesh.positions.map((x) => {
      let y = x;
      const k = draw() % (2 * steps + 1) - steps; // -steps .. steps float32 steps
      for (let i = 0; i < Math.abs(k); ++i) y = step32(y, Math.sign(k));
      return y;
    });
    const after = normals({ positions: moved, indices: mesh.indices });
    for (let i = 0; i < after.length; i += 3) worst = Math.max(worst, angleDeg(before, after, i));
  }
  assert.ok(worst > one, `moves of up to ${steps} steps turn the normals by ${worst} degrees, past one step's bound ${one}`);
  assert.ok(worst <= bound, `${worst} degrees against the bound ${bound}`);
});
