// The whole character as the views draw it (AssetEval.draw over web/asset_draw.c): every unit's vertices posed
// together, one array for all, kept from the evaluation that makes the moment's table (its .table equal to
// frame()'s). On every staged asset, at rest and mid-clip, for every method: as many vertices
// as the library's evaluation counts, and the drawn per-vertex angles sum to that moment's table (the asset
// evaluation's statistics: the same mean within 1e-4 degree and the same maximum); every unit has triangles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { METHODS, ALL_METHODS } from '../src/skinframe.js';
import { AssetEval } from '../src/asset_eval.js';
import { execFileSync } from 'node:child_process';
import { loadCore, root, cliPath, haveCli } from './helpers.mjs';

const assets = join(root, 'tests/assets/gltf');
const files = readdirSync(assets).filter((d) => d !== 'LICENSES').flatMap((d) => {
  const dir = join(assets, d, 'glTF-Binary');
  const f = existsSync(dir) && readdirSync(dir).find((x) => x.endsWith('.glb'));
  return f ? [join(dir, f)] : [];
});

test('every staged .glb: the drawn whole character is the table\'s vertices and angles', async () => {
  assert.ok(files.length >= 7, `staged assets: ${files.length}`);
  const sf = await loadCore();
  for (const file of files) {
    const a = new AssetEval(sf, readFileSync(file));
    let worst = 0, moments = 0;
    try {
      const at = [[-1, 0], ...Array.from({ length: a.animationCount }, (_, k) => [k, a.duration(k) * 0.37])];
      for (const [anim, t] of at) {
        const table = a.frame(anim, t);
        for (const m of METHODS) {
          const row = table[m];
          if (row.status !== 'measured') continue;
          const d = a.draw(ALL_METHODS.indexOf(m), anim, t);
          const where = `${file.split('/').pop()} ${anim} ${t.toFixed(3)} s ${m}`;
          // the drawing's table comes from the same evaluation as its arrays: the moment's table as frame() makes it
          assert.deepEqual(d.table, table, `${where}: the drawing's table`);
          assert.equal(d.vertexCount, a.vertices, `${where}: vertices`);
          assert.equal(row.normalCount, d.vertexCount, `${where}: the table counts other vertices`);
          assert.equal(d.first.length, a.units + 1);
          assert.equal(d.first[a.units], d.vertexCount);
          assert.ok(d.indices.every((i) => i < d.vertexCount), `${where}: an index past the vertices`);
          // every unit is drawn: some triangle uses each unit's vertices
          const used = new Uint8Array(d.vertexCount);
          for (const i of d.indices) used[i] = 1;
          for (let u = 0; u < a.units; ++u)
            assert.ok(used.subarray(d.first[u], d.first[u + 1]).some((x) => x), `${where}: unit ${u} has no triangle`);
          assert.ok(d.positions.every(Number.isFinite), `${where}: positions`);
          let sum = 0, max = 0;
          for (const x of d.normalDeg) { sum += x; max = Math.max(max, x); }
          const mean = sum / d.vertexCount;
          assert.ok(Math.abs(mean - row.normalMean) <= 1e-4, `${where}: drawn mean ${mean}, table ${row.normalMean}`);
          assert.ok(Math.abs(max - row.normalMax) <= 1e-4, `${where}: drawn max ${max}, table ${row.normalMax}`);
          if (row.tangentCount > 0) {
            let ts = 0;
            for (const x of d.tangentDeg) ts += x;
            assert.ok(Math.abs(ts / row.tangentCount - row.tangentMean) <= 1e-4, `${where}: drawn tangent mean ${ts / row.tangentCount}, table ${row.tangentMean}`);
          }
          // every method's angles ride along (the inspector's): each sums to its own row of the table
          for (const [k, other] of METHODS.entries()) {
            const r = table[other];
            if (r.status !== 'measured') continue;
            let s = 0;
            for (const x of d.angles.subarray(2 * k * d.vertexCount, (2 * k + 1) * d.vertexCount)) s += x;
            assert.ok(Math.abs(s / d.vertexCount - r.normalMean) <= 1e-4, `${where}: ${other}'s angles ${s / d.vertexCount}, table ${r.normalMean}`);
          }
          worst = Math.max(worst, Math.abs(mean - row.normalMean));
        }
        ++moments;
      }
    } finally {
      a.destroy();
    }
    console.log(`# ${file.split('/').pop()}: ${a.units} units, ${a.vertices} vertices, ${moments} moments, drawn means within ${worst.toExponential(1)} deg of the table`);
  }
});

// The inspector's numbers: eval --json's worst vertex of each method (its node, mesh, primitive, vertex and
// frame) found in the drawing of that frame by the units' node, mesh and primitive, its angle there eval's
// within 1e-3 degree (wasm against native float code).
test('the drawing\'s per-vertex angles at eval\'s worst vertices are eval\'s', { skip: !haveCli() && 'no native command' }, async () => {
  const sf = await loadCore();
  for (const name of ['CesiumMan', 'MorphStressTest', 'InterpolationTest']) {
    const file = files.find((f) => f.includes(`/${name}/`));
    const doc = JSON.parse(execFileSync(cliPath, ['eval', file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const a = new AssetEval(sf, readFileSync(file));
    let checked = 0, worst = 0;
    try {
      const clip = doc.animations[0];
      for (const m of METHODS) {
        const row = clip.methods.find((x) => x.method === m);
        for (const [key, part] of [['worst_normal_vertex', 0], ['worst_tangent_vertex', 1]]) {
          const w = row[key];
          if (!w || !(w.angle_deg > 0)) continue;
          const t = Math.min(w.frame / clip.fps, clip.duration_s);
          const d = a.draw(ALL_METHODS.indexOf(m), a.animationCount ? 0 : -1, t);
          const unit = Array.from({ length: a.units }, (_, u) => u).find((u) => a.unitInfo[4 * u] === w.node &&
            a.unitInfo[4 * u + 1] === w.mesh && a.unitInfo[4 * u + 2] === w.primitive);
          assert.ok(unit !== undefined, `${name} ${m}: no unit of node ${w.node} mesh ${w.mesh} primitive ${w.primitive}`);
          const k = METHODS.indexOf(m);
          const got = d.angles[(2 * k + part) * d.vertexCount + d.first[unit] + w.vertex];
          assert.ok(Math.abs(got - w.angle_deg) <= 1e-3, `${name} ${m} ${key}: page ${got}, eval ${w.angle_deg} (frame ${w.frame}, unit ${unit}, vertex ${w.vertex})`);
          worst = Math.max(worst, Math.abs(got - w.angle_deg));
          ++checked;
        }
      }
    } finally {
      a.destroy();
    }
    assert.ok(checked > 0, `${name}: no worst vertex to check`);
    console.log(`# ${name}: ${checked} worst vertices, within ${worst.toExponential(1)} deg of eval's`);
  }
});
