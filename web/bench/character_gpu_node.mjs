// A whole character on the page's WebGPU path without a browser (dawn_node.mjs): what the scene worker does for
// each drawn moment, timed apart. In interleaved rounds, each at another moment of the first clip:
// - wasm: the asset's evaluation of the moment with the units' frames kept in their own spaces (Character.moment
//   with unitSpace, the worker's evaluation: every method, the reference, the table);
// - WebGPU: updates of that moment on every unit joined in one mesh (gpu_character.js; gpu.js timeUpdates: the
//   passes, the core's reference written into its slot where the GPU does not compute it, the statistics, 16
//   bytes per method read back).
// Each round first runs the page's check of the moment (the drawn method's frames against the core's, the GPU's
// statistics against the table's): it must read equal within 1e-3 degrees. Two reference settings: eval's
// (weld, MikkTSpace: the reference is the core's) and no weld with UV tangents (the GPU rebuilds it too).
//   node web/bench/character_gpu_node.mjs [ROUNDS] [FILE.glb] [GPU_UPDATES_PER_ROUND]   (defaults 3, Fox x 59, 10)
//   Fox x 59: Fox.glb's mesh drawn 59 times (bench/primitives.py, made in a temporary folder); SKINFRAME_WASM=path
//   (default build-web/skinframe.wasm); Dawn's settings: dawn_node.mjs
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir, cpus, loadavg } from 'node:os';
import { resolve, dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDawn } from './dawn_node.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rounds = Number(process.argv[2] || 3);
const perRound = Number(process.argv[4] || 10);

await installDawn('character_gpu_node');
const { GpuReference } = await import('../src/gpu.js');
const { GpuCharacter } = await import('../src/gpu_character.js');
const { loadSkinframe, ALL_METHODS, WELDS, TANGENT_MODES } = await import('../src/skinframe.js');
const { Character, EVAL_OPTIONS } = await import('../src/asset_eval.js');

const median = (a) => { const s = [...a].sort((x, y) => x - y); const h = s.length >> 1; return s.length % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]); };
const fail = (message) => { console.error(`character_gpu_node: ${message}`); process.exit(1); };

let file = process.argv[3], scratch = null;
if (!file) {
  scratch = mkdtempSync(join(tmpdir(), 'character-gpu-'));
  file = join(scratch, 'Fox59.glb');
  const made = spawnSync('python3', [join(root, 'bench/primitives.py'), join(root, 'tests/assets/gltf/Fox/glTF-Binary/Fox.glb'), '59', file]);
  if (made.status !== 0) fail(`bench/primitives.py: ${made.stderr}`);
}
const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
const errors = [];
const page = { gpu: {} }; // what gpu.js reads and writes of the page
const gpu = await GpuReference.create(page, (line, isError) => { if (isError) errors.push(line); else page.line = line; });
if (!gpu) fail(`no WebGPU adapter${errors.length ? `: ${errors.join('; ')}` : ''}`);
const drawn = ALL_METHODS.indexOf('skinned');
const settings = [['eval\'s reference (weld, MikkTSpace: the core\'s)', EVAL_OPTIONS],
  ['no weld, UV tangents (the GPU\'s reference)', { ...EVAL_OPTIONS, weld: WELDS.indexOf('none'), tangents: TANGENT_MODES.indexOf('uv') }]];

const character = new Character(sf, readFileSync(file));
for (const [label, options] of settings) {
  const asset = character._assetFor(options);
  if (!asset) fail(character.reason);
  const anim = asset.animationCount ? 0 : -1, duration = asset.duration(anim);
  const at = (r) => (duration * (r + 1)) / (rounds + 1);
  character.moment(anim, at(0), options, drawn, true); // the drawing the units' topologies are read from
  const joined = new GpuCharacter(asset.unitTopologies());
  gpu.setMesh(joined);
  if (!gpu.mesh) fail(`the joined mesh is over the adapter's limits: ${JSON.stringify(page.gpu.limit)}`);
  const wasm = [], webgpu = [];
  for (let r = 0; r < rounds; ++r) {
    const t0 = performance.now();
    const { table, drawing } = character.moment(anim, at(r), options, drawn, true);
    wasm.push(performance.now() - t0);
    const moment = joined.moment({ table, units: drawing.units, tangentFrame: drawing.tangentFrame }, drawn, options);
    const runs = page.gpu.runs || 0;
    gpu.run(moment, options.weighting);
    while (gpu.busy || (page.gpu.runs || 0) === runs) {
      if (errors.length) fail(errors.join('; '));
      await new Promise((res) => setTimeout(res, 2));
    }
    const c = page.gpu.check;
    if (!c.ok) fail(`the GPU check failed: ${JSON.stringify(c)}`);
    const g = await gpu.timeUpdates(perRound);
    webgpu.push(...g);
    console.log(JSON.stringify({ settings: label, round: r + 1, time_s: +at(r).toFixed(3), wasm_moment_ms: Math.round(wasm[r]),
      webgpu_update_ms: g.map((x) => +x.toFixed(2)), check_drawn_deg: c.methods.skinned?.normalDeg,
      check_reference_deg: c.reference ? Math.max(c.reference.normalDeg, c.reference.tangentDeg ?? 0) : null,
      rebuilt_bound_deg: c.rebuiltToleranceDeg, stats_deg: c.stats?.largestDifference, reference_off: c.referenceOff,
      loadavg: loadavg().map((x) => +x.toFixed(2)) }));
  }
  const g = median(webgpu), w = median(wasm);
  console.log(JSON.stringify({ file: basename(file), settings: label, units: asset.units, vertices: joined.vertexCount,
    triangles: joined.triangleCount, adapter: gpu.adapterInfo, host: cpus()[0].model, wasm_moment_p50_ms: +w.toFixed(1),
    webgpu_update_p50_ms: +g.toFixed(2), wasm_over_webgpu: +(w / g).toPrecision(3) }));
}
character.destroy();
gpu.release();
gpu.device.destroy();
if (scratch) rmSync(scratch, { recursive: true, force: true });
process.exit(0);
