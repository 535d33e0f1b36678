// The whole character joined for the GPU passes (web/src/gpu_character.js) against the library's own evaluation
// of the same moment (AssetEval.draw): the joined triangles are the drawing's; the joined skinning and morph
// arrays, evaluated here by a scalar linear blend (morph deltas added, then every influence's bone, then the
// unit's placement), give the drawing's positions; every vertex's adjacency corners are its own; every jacobian
// slot's joint is one of its unit's bones. On every staged .glb and on CesiumMan with a second skin over copied
// joints (two units whose bones differ), at rest and mid-clip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_METHODS } from '../src/skinframe.js';
import { AssetEval } from '../src/asset_eval.js';
import { joinUnits, GpuCharacter } from '../src/gpu_character.js';
import { loadCore, root, twoSkins } from './helpers.mjs';

const assets = join(root, 'tests/assets/gltf');
const files = readdirSync(assets).filter((d) => d !== 'LICENSES').flatMap((d) => {
  const dir = join(assets, d, 'glTF-Binary');
  const f = existsSync(dir) && readdirSync(dir).find((x) => x.endsWith('.glb'));
  return f ? [[f, readFileSync(join(dir, f))]] : [];
});
files.push(['CesiumMan with a second skin', twoSkins(readFileSync(join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb')))]);

const f32 = (a) => new Float32Array(a.words.buffer, a.words.byteOffset, a.words.length);

// Vertex v of the joined mesh posed by the joined arrays and the moment's bones and weights (12 floats a bone,
// three rows by four columns, column by column), in its unit's space.
function posed(j, v, bones, morph) {
  const A = j.arrays, p = Array.from(f32(A.rest_positions).subarray(3 * v, 3 * v + 3));
  const dp = f32(A.morph_dp);
  for (let e = A.morph_offsets.words[v]; e < A.morph_offsets.words[v + 1]; ++e) {
    const w = morph[A.morph_target.words[e]];
    for (let k = 0; k < 3; ++k) p[k] += w * dp[3 * e + k];
  }
  const K = A.joints.components, weights = f32(A.weights), out = [0, 0, 0];
  let sum = 0;
  for (let i = 0; i < K; ++i) {
    const w = weights[K * v + i], b = 12 * A.joints.words[K * v + i];
    sum += w;
    for (let k = 0; k < 3; ++k) out[k] += w * (bones[b + k] * p[0] + bones[b + 3 + k] * p[1] + bones[b + 6 + k] * p[2] + bones[b + 9 + k]);
  }
  return sum > 0 ? out : p; // weights all 0: the identity
}

test('the whole character joined for the GPU: the drawing\'s triangles and positions, each unit\'s bones', async () => {
  const sf = await loadCore();
  let checked = 0;
  for (const [name, bytes] of files) {
    const a = new AssetEval(sf, bytes);
    try {
      const moments = [[-1, 0], ...Array.from({ length: a.animationCount }, (_, k) => [k, a.duration(k) * 0.37])];
      for (const [anim, t] of moments) {
        const where = `${name} ${anim} ${t.toFixed(3)} s`;
        const d = a.draw(ALL_METHODS.indexOf('skinned'), anim, t, true);
        const units = a.unitTopologies(), j = joinUnits(units);
        assert.equal(j.n, d.vertexCount, `${where}: vertices`);
        assert.equal(j.F, d.triangleCount, `${where}: triangles`);
        assert.deepEqual(Array.from(j.first), Array.from(d.first), `${where}: each unit's first vertex`);
        assert.deepEqual(j.arrays.indices.words, d.indices, `${where}: the drawing's triangles`);
        const moment = new GpuCharacter(units).moment({ table: d.table, units: d.units, tangentFrame: d.tangentFrame },
          ALL_METHODS.indexOf('skinned'), a.options);
        let worst = 0, scale = 1e-6;
        for (let u = 0; u < a.units; ++u) {
          const m = d.units.poses[u].toWorld;
          for (let v = j.first[u]; v < j.first[u + 1]; ++v) {
            const p = posed(j, v, moment.bones, moment.morph);
            for (let k = 0; k < 3; ++k) {
              const world = m[k] * p[0] + m[4 + k] * p[1] + m[8 + k] * p[2] + m[12 + k];
              worst = Math.max(worst, Math.abs(world - d.positions[3 * v + k]));
              scale = Math.max(scale, Math.abs(d.positions[3 * v + k]));
            }
          }
        }
        assert.ok(worst <= 1e-4 * scale, `${where}: the joined arrays pose a vertex ${worst} away from the drawing's (scale ${scale})`);
        // every corner listed for a vertex is one of its own; every corner of the mesh is listed once
        const A = j.arrays;
        assert.equal(A.adj_offsets.words[j.n], 3 * j.F, `${where}: the adjacency's corners`);
        for (let v = 0; v < j.n; ++v)
          for (let e = A.adj_offsets.words[v]; e < A.adj_offsets.words[v + 1]; ++e)
            assert.equal(A.indices.words[A.adj_corners.words[e]], v, `${where}: vertex ${v}'s corner ${A.adj_corners.words[e]}`);
        // a jacobian slot's joint is a bone of its own unit (or the rest transform)
        if (A.grad_slot_offsets.count) {
          let bone = 0;
          for (let u = 0; u < a.units; ++u) {
            const lo = bone, hi = bone + units[u].boneCount;
            bone = hi;
            for (let s = A.grad_slot_offsets.words[j.first[u]]; s < A.grad_slot_offsets.words[j.first[u + 1]]; ++s) {
              const joint = A.grad_slot_joint.words[s];
              assert.ok(joint === 0xffffffff || (joint >= lo && joint < hi), `${where}: unit ${u}'s slot ${s} joint ${joint} not in [${lo}, ${hi})`);
            }
          }
        }
        assert.equal(moment.ranges.length, a.units);
        ++checked;
      }
    } finally {
      a.destroy();
    }
  }
  assert.ok(checked >= files.length, `moments checked: ${checked}`);
});
