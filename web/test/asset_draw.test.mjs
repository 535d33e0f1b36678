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
import { loadCore, root } from './helpers.mjs';

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
