// The SIMD128 module (skinframe-simd.wasm) against the scalar one (skinframe.wasm): every scene's page frame, every
// method (recompute-fused too) under a jacobian cap and without, gives the same bits in positions, reference,
// frames, angles and statistics; and the probe the page chooses by agrees with the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadSkinframe, wasmSimdSupported, wasmFileName, ALL_METHODS } from '../src/skinframe.js';
import { wasmPath } from './helpers.mjs';

const simdPath = process.env.SKINFRAME_WASM_SIMD || resolve(dirname(wasmPath), 'skinframe-simd.wasm');

test('node has WebAssembly SIMD: the probe says so and names the SIMD module', () => {
  assert.equal(wasmSimdSupported(), true);
  assert.equal(wasmFileName(), 'skinframe-simd.wasm');
  assert.equal(wasmFileName(false), 'skinframe.wasm');
  // the engine that passes the probe takes the SIMD module
  assert.equal(WebAssembly.validate(readFileSync(simdPath)), true);
});

// Bit patterns of a typed array (NaN payloads included), for an exact comparison.
const bits = (a) => (a ? new Uint32Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength)) : null);
const doubleBits = (a) => new BigUint64Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength));

function sameBits(a, b, what) {
  if (a === null || b === null) return assert.equal(a === null, b === null, what);
  assert.equal(a.length, b.length, what);
  const x = bits(a), y = bits(b);
  for (let i = 0; i < x.length; ++i)
    if (x[i] !== y[i]) assert.fail(`${what}: element ${i}: ${a[i]} (SIMD) against ${b[i]} (scalar)`);
}

test('every scene: the SIMD module computes the scalar module\'s bits', { skip: !existsSync(simdPath) && `${simdPath} missing` }, async () => {
  const scalar = await loadSkinframe(readFileSync(wasmPath));
  const simd = await loadSkinframe(readFileSync(simdPath));
  let compared = 0;
  for (const info of scalar.catalog().scenes) {
    for (const cap of [0, 0.05]) {
      // a mid-sized mesh per scene, every target at 0.6 (the morph paths), full statistics
      const settings = Object.fromEntries((info.targets || []).map((t) => [t, 0.6]));
      const views = [scalar, simd].map((sf) => {
        const v = sf.openScene(info.name, '', settings);
        v.setAllMethods(true).setOptions({ jacobianCap: cap }).run();
        return v;
      });
      const [a, b] = views;
      const where = `${info.name}, jacobian cap ${cap}`;
      assert.equal(a.vertexCount, b.vertexCount, where);
      sameBits(a.positions, b.positions, `${where}: positions`);
      sameBits(a.refNormals, b.refNormals, `${where}: reference normals`);
      sameBits(a.refTangents, b.refTangents, `${where}: reference tangents`);
      for (let m = 0; m < ALL_METHODS.length; ++m) {
        const ra = a.rows[m], rb = b.rows[m];
        for (const k of ['normals', 'tangents', 'normalDeg', 'tangentDeg']) sameBits(ra[k], rb[k], `${where}: ${ALL_METHODS[m]} ${k}`);
      }
      assert.deepEqual(doubleBits(a.stats), doubleBits(b.stats), `${where}: statistics`);
      compared += a.vertexCount;
      for (const v of views) v.destroy();
    }
  }
  assert.ok(compared > 0);
});
