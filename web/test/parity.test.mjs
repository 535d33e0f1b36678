// The wasm core computes what the native library computes: for each case, the page's wrapper (web/src/
// skinframe.js over build-web/skinframe.wasm) against `skinframe compare --json` (statistics) and `--dump`
// (per-vertex positions and every method's normals and tangents), within 1e-4 degrees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METHODS, WEIGHTINGS, WELDS, TANGENT_MODES, REFERENCES, MORPH_DIRECTIONS } from '../src/skinframe.js';
import { loadCore, cliPath, haveCli, angleDeg } from './helpers.mjs';

const TOL_DEG = 1e-4;
const cases = [
  { scene: 'sheet', preset: 'bone-twist' },
  { scene: 'sheet', preset: 'bone-bend', set: { resolution: 8 } },
  { scene: 'sheet', set: { twist: 40, bend: 30 }, morph: { 'towel-twist': 0.7, swirl: 0.4, ripples: 0.5 } },
  { scene: 'sheet', morph: { 'middle-fold': 1, ripples: 1 }, opts: { morphDirections: 'none' } },
  { scene: 'sheet', preset: 'bone-twist', opts: { weighting: 'angle', weld: 'position-normal', tangents: 'mikktspace' } },
  { scene: 'sheet', set: { twist: 60 }, morph: { swirl: 1 }, opts: { reference: 'authored' } },
  { scene: 'tip', preset: 'move-neighbor' },
  { scene: 'tip', set: { height: -0.4, push: 0.5 } },
  { scene: 'ramp', preset: 'stretch' },
  { scene: 'ramp', set: { stretch: -1.5, slope: 60 } },
  { scene: 'elbow', preset: 'bend', opts: { weld: 'position' } },
  { scene: 'strip', preset: 'lift' },
];

function cliArgs(c) {
  const args = ['compare', '--scene', c.scene];
  if (c.preset) args.push('--preset', c.preset);
  if (c.set) args.push('--set', Object.entries(c.set).map(([k, v]) => `${k}=${v}`).join(','));
  if (c.morph) args.push('--morph', Object.entries(c.morph).map(([k, v]) => `${k}=${v}`).join(','));
  const o = c.opts || {};
  if (o.morphDirections) args.push('--morph-directions', o.morphDirections);
  if (o.weighting) args.push('--weighting', o.weighting);
  if (o.weld) args.push('--weld', o.weld);
  if (o.tangents) args.push('--tangents', o.tangents);
  if (o.reference) args.push('--reference', o.reference);
  return args;
}

function wasmView(sf, c) {
  const view = sf.openScene(c.scene, c.preset || '', { ...(c.set || {}), ...(c.morph || {}) });
  const o = c.opts || {};
  view.setOptions({
    morphDirections: MORPH_DIRECTIONS.indexOf(o.morphDirections || 'deltas'),
    weighting: o.weighting ? WEIGHTINGS.indexOf(o.weighting) : -1,
    weld: WELDS.indexOf(o.weld || 'none'),
    tangents: TANGENT_MODES.indexOf(o.tangents || 'uv'),
    reference: REFERENCES.indexOf(o.reference || 'rebuilt'),
  });
  return view.run();
}

const flat = (tuples) => Float32Array.from(tuples.flat());

function maxAngle(a, sa, b, sb, n) {
  let worst = 0;
  for (let i = 0; i < n; ++i) worst = Math.max(worst, angleDeg(a, i * sa, b, i * sb));
  return worst;
}

test('wasm evaluation equals the native command', { skip: !haveCli() && `no ${cliPath}` }, async (t) => {
  const sf = await loadCore();
  const dir = mkdtempSync(join(tmpdir(), 'sfweb-'));
  try {
    for (const [i, c] of cases.entries()) {
      await t.test(cliArgs(c).slice(1).join(' '), () => {
        const dump = join(dir, `dump${i}.json`);
        const json = JSON.parse(execFileSync(cliPath, [...cliArgs(c), '--json', '--dump', dump], { encoding: 'utf8' }));
        const native = JSON.parse(readFileSync(dump, 'utf8'));
        const view = wasmView(sf, c);
        const n = view.vertexCount;
        assert.equal(n, json.vertex_count);
        assert.equal(view.triangleCount, json.triangle_count);
        assert.deepEqual(Array.from(view.indices), native.indices);
        const pos = flat(native.positions);
        let dp = 0;
        for (let k = 0; k < 3 * n; ++k) dp = Math.max(dp, Math.abs(pos[k] - view.positions[k]));
        assert.ok(dp <= 1e-6, `positions differ by ${dp}`);
        assert.ok(maxAngle(view.refNormals, 3, flat(native.reference.normals), 3, n) <= TOL_DEG, 'reference normals');
        if (view.hasTangentFrame)
          assert.ok(maxAngle(view.refTangents, 4, flat(native.reference.tangents), 4, n) <= TOL_DEG, 'reference tangents');
        for (const row of json.methods) {
          const m = METHODS.indexOf(row.name);
          const s = view.summary(m);
          assert.equal(s.status, 0, `${row.name} ran`);
          for (const f of ['mean', 'rms', 'p50', 'p95', 'max'])
            for (const kind of ['normal', 'tangent'])
              assert.ok(Math.abs(s[kind][f] - row[kind][f]) <= TOL_DEG,
                `${row.name} ${kind} ${f}: wasm ${s[kind][f]} native ${row[kind][f]}`);
          assert.equal(s.handedness, row.handedness_mismatches, `${row.name} handedness`);
          const d = native.methods[row.name];
          assert.ok(maxAngle(view.rows[m].normals, 3, flat(d.normals), 3, n) <= TOL_DEG, `${row.name} normals`);
          if (view.hasTangentFrame) {
            const nt = flat(d.tangents);
            assert.ok(maxAngle(view.rows[m].tangents, 4, nt, 4, n) <= TOL_DEG, `${row.name} tangents`);
            for (let k = 0; k < n; ++k) assert.equal(view.rows[m].tangents[4 * k + 3], nt[4 * k + 3], `${row.name} w[${k}]`);
          }
        }
        view.destroy();
      });
    }
    await t.test('the comparison sees a small difference', () => {
      const dump = join(dir, 'near.json');
      execFileSync(cliPath, ['compare', '--scene', 'sheet', '--set', 'twist=89.99', '--dump', dump]);
      const native = JSON.parse(readFileSync(dump, 'utf8'));
      const view = wasmView(sf, { scene: 'sheet', set: { twist: 90 } });
      assert.ok(maxAngle(view.refNormals, 3, flat(native.reference.normals), 3, view.vertexCount) > TOL_DEG);
      view.destroy();
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
