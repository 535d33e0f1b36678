// The page's whole-character evaluation (web/src/asset_eval.js over web/asset_api.c: the library's asset
// evaluation compiled to wasm) against `skinframe eval --json` on every staged asset: every clip's every method,
// normal and tangent mean and max, within 1e-3 degree (the float code generation differs: wasm's scalar loops,
// the native SIMD ones); a .gltf with external buffers made self-contained as the page makes it; a moment of a
// clip equal to that frame of eval --csv; compressed files (which the module cannot decode) named as such.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { METHODS } from '../src/skinframe.js';
import { AssetEval, Character, assetBytes, undecodedExtensions, EVAL_OPTIONS } from '../src/asset_eval.js';
import { loadCore, cliPath, haveCli, root } from './helpers.mjs';

const BOUND_DEG = 1e-3;
const assets = join(root, 'tests/assets/gltf');
// every staged asset: each folder's .glb, or its .gltf with the files beside it
const files = readdirSync(assets).filter((d) => d !== 'LICENSES').flatMap((d) => {
  for (const sub of ['glTF-Binary', 'glTF']) {
    const dir = join(assets, d, sub);
    if (!existsSync(dir)) continue;
    const f = readdirSync(dir).find((x) => /\.(glb|gltf)$/.test(x));
    if (f) return [join(dir, f)];
  }
  return [];
});

// The picked files as the page gets them (File objects): the asset and every file of its folder.
function picked(file) {
  const dir = dirname(file);
  return readdirSync(dir).map((f) => new File([readFileSync(join(dir, f))], f));
}

function evalJson(file, extra = []) {
  return JSON.parse(execFileSync(cliPath, ['eval', file, '--json', ...extra], { encoding: 'utf8', maxBuffer: 1 << 26 }));
}

function compare(where, got, want) {
  let worst = 0;
  for (const m of METHODS) {
    const w = want.find((x) => x.method === m);
    const g = got[m];
    assert.ok(g && g.status === 'measured', `${where} ${m}: not measured`);
    for (const [key, part, field] of [['normalMean', 'normal', 'mean'], ['normalMax', 'normal', 'max'],
      ['tangentMean', 'tangent', 'mean'], ['tangentMax', 'tangent', 'max']]) {
      if (!w[part]?.count) { assert.equal(g[key], null, `${where} ${m} ${key}: measured by the page only`); continue; }
      const d = Math.abs(g[key] - w[part][field]);
      assert.ok(d <= BOUND_DEG, `${where} ${m} ${key}: page ${g[key]}, eval ${w[part][field]}`);
      worst = Math.max(worst, d);
    }
  }
  return worst;
}

test('every staged asset: every clip\'s table is skinframe eval --json\'s', { skip: !haveCli() && 'no native command' }, async () => {
  assert.ok(files.length >= 10, `staged assets: ${files.length}`);
  const sf = await loadCore();
  for (const file of files) {
    const t0 = performance.now();
    const doc = evalJson(file);
    const a = new AssetEval(sf, await assetBytes(picked(file)));
    assert.equal(a.vertices, doc.vertices_per_frame, `${file}: vertices per frame`);
    let worst = 0;
    const clips = a.animationCount || 1;
    assert.equal(doc.animations.length, clips);
    for (let k = 0; k < clips; ++k) {
      const table = a.clip(a.animationCount ? k : -1);
      assert.equal(table.frames, doc.animations[k].frames, `${file} clip ${k}: frames`);
      worst = Math.max(worst, compare(`${file} clip ${k}`, table, doc.animations[k].methods));
    }
    console.log(`# ${file.slice(assets.length + 1)}: ${a.units} unit(s), ${a.vertices} vertices, ${clips} clip(s) within ` +
      `${worst.toExponential(2)} deg (${(performance.now() - t0).toFixed(0)} ms with eval)`);
    a.destroy();
  }
});

test('a moment is that frame of eval --csv; other reference options give eval\'s with the same flags', { skip: !haveCli() && 'no native command' }, async () => {
  const sf = await loadCore();
  const file = join(assets, 'InterpolationTest/glTF-Binary/InterpolationTest.glb');
  const dir = mkdtempSync(join(tmpdir(), 'sf-asset-'));
  try {
    const csv = join(dir, 'frames.csv');
    execFileSync(cliPath, ['eval', file, '--animation', '5', '--fps', '3', '--csv', csv]);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    const head = lines[0].split(',');
    const a = new AssetEval(sf, readFileSync(file));
    let rows = 0;
    for (const line of lines.slice(1)) {
      const f = line.split(',');
      const t = Number(f[head.indexOf('time_s')]);
      const m = f[head.indexOf('method')];
      // the CSV's times have 6 decimals: the clip's end is taken as the end itself
      const time = Math.abs(t - a.duration(5)) < 1e-6 ? a.duration(5) : t;
      const got = a.frame(5, time)[m];
      for (const [key, col] of [['normalMean', 'normal_mean_deg'], ['normalMax', 'normal_max_deg'],
        ['tangentMean', 'tangent_mean_deg'], ['tangentMax', 'tangent_max_deg']])
        assert.ok(Math.abs(got[key] - Number(f[head.indexOf(col)])) <= BOUND_DEG, `${t} s ${m} ${key}: ${got[key]} against ${f[head.indexOf(col)]}`);
      ++rows;
    }
    assert.ok(rows >= 7 * METHODS.length, `rows: ${rows}`);
    a.destroy();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // weld none and UV tangents on CesiumMan: eval's numbers with those flags, and not the defaults' (the check can fail)
  const cesium = join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb');
  const b = new AssetEval(sf, readFileSync(cesium), { ...EVAL_OPTIONS, weld: 0, tangents: 0 });
  const table = b.clip(0);
  compare('CesiumMan --weld none --tangents uv', table, evalJson(cesium, ['--weld', 'none', '--tangents', 'uv']).animations[0].methods);
  const defaults = evalJson(cesium).animations[0].methods;
  assert.throws(() => compare('CesiumMan against the default reference', table, defaults), /page/);
  b.destroy();
});

test('bad and compressed files: the library\'s message, the extension named', async () => {
  const sf = await loadCore();
  const glb = readFileSync(join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb'));
  assert.throws(() => new AssetEval(sf, glb.subarray(0, 30000)), { message: `glb.length: header says ${glb.length} bytes, the file has 30000` });
  assert.throws(() => new AssetEval(sf, new TextEncoder().encode('{"asset": {"version": "2.0"}, "meshes": 3}')), /meshes/);
  const packed = join(root, 'build/compressed-assets/CesiumMan.meshoptq.glb');
  if (!existsSync(packed)) return; // made by the native build's test_compressed (tests/compressed/generate.sh)
  const bytes = readFileSync(packed);
  assert.deepEqual(undecodedExtensions(bytes), ['EXT_meshopt_compression']);
  const c = new Character(sf, bytes);
  assert.match(c.reason, /EXT_meshopt_compression/);
  assert.equal(c.at(0, 0, EVAL_OPTIONS), null);
  assert.throws(() => new AssetEval(sf, bytes), /EXT_meshopt_compression/);
});
