// The sheet on the page's WebGPU path without a browser: the page's own passes (src/gpu.js and the WGSL it builds)
// on Dawn, the WebGPU implementation inside Chromium, as npm's `webgpu` package builds it for node, on whatever
// adapter Dawn finds (a GPU's Vulkan driver, or SwiftShader where VK_ICD_FILENAMES names it). This is how the
// WebGPU path is measured on a machine with a GPU but no browser. In interleaved rounds:
// - WebGPU: one update as the page's (gpu.js timeUpdates): the WGSL passes (deform, every method, the reference)
//   and every method's error statistics reduced on the GPU, submitted and their 16 bytes per method read back;
// - wasm: one pose input as the scene worker evaluates it (View.repose and run: every method, the reference,
//   the live statistics), on this thread.
// Each round also runs the page's check of that pose (every method's GPU frames against the wasm core's, and
// the GPU's statistics against the core's): it must read equal, within 1e-3 degrees and, for the directions
// rebuilt from the deformed triangles, within float32's rounding over the mesh's shortest edge (src/float_bound.js).
//   npm install --no-save webgpu@0.6.2       (in web/, once: Dawn for node, about 50 MB)
//   node web/bench/sheet_gpu_node.mjs [ROUNDS] [RESOLUTION] [GPU_UPDATES_PER_ROUND]     (defaults 3, 512, 5)
//   SKINFRAME_WASM=path (default build-web/skinframe.wasm); Dawn's settings: dawn_node.mjs
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';
import { installDawn } from './dawn_node.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rounds = Number(process.argv[2] || 3);
const resolution = Number(process.argv[3] || 512);
const perRound = Number(process.argv[4] || 5);

await installDawn('sheet_gpu_node');
const { GpuReference } = await import('../src/gpu.js');
const { loadSkinframe, WEIGHTINGS } = await import('../src/skinframe.js');

const median = (a) => { const s = [...a].sort((x, y) => x - y); const h = s.length >> 1; return s.length % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]); };
const fail = (message) => { console.error(`sheet_gpu_node: ${message}`); process.exit(1); };

const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
const errors = [];
// what gpu.js reads and writes of the page
const page = { gpu: {} };
const gpu = await GpuReference.create(page, (line, isError) => { if (isError) errors.push(line); else page.line = line; });
if (!gpu) fail(`no WebGPU adapter${errors.length ? `: ${errors.join('; ')}` : ''}`);
const weighting = WEIGHTINGS.indexOf(sf.catalog().scenes.find((s) => s.name === 'sheet').reference_weighting);
const settings = (i) => ({ resolution, twist: 10 + 7 * i });

let t0 = performance.now();
const view = sf.openScene('sheet', '', settings(0));
// the page's live statistics; where the core cannot hold them (wasm32's 4 GiB), the statistics of each run
let live = true;
try {
  view.setLive(true);
} catch (e) {
  live = `off: ${e.message}`;
}
view.run();
const openMs = performance.now() - t0;
gpu.setMesh(view);
if (!gpu.mesh) fail(`the mesh is over the adapter's limits: ${JSON.stringify(page.gpu.limit)}; ${errors.join('; ')}`);

// the page's check of the view's pose: resolves to page.gpu.check once the run (and any run it queued) ended
async function check() {
  const runs = page.gpu.runs || 0;
  gpu.run(view, weighting);
  while (gpu.busy || (page.gpu.runs || 0) === runs) {
    if (errors.length) fail(errors.join('; '));
    await new Promise((res) => setTimeout(res, 2));
  }
  const c = page.gpu.check;
  if (!c.ok) fail(`the GPU check failed: ${errors.join('; ')}\n${JSON.stringify(c)}`);
  return c;
}
t0 = performance.now();
const first = await check();
const firstMs = performance.now() - t0;
console.log(JSON.stringify({ resolution, vertices: view.vertexCount, triangles: view.triangleCount, adapter: gpu.adapterInfo,
  host: cpus()[0].model, live, granted: page.gpu.granted, limit: page.gpu.limit, open_wasm_ms: Math.round(openMs),
  first_check_ms: Math.round(firstMs), check: { rebuiltToleranceDeg: first.rebuiltToleranceDeg, worst: first.worst,
    maxNormalDeg: first.maxNormalDeg, maxTangentDeg: first.maxTangentDeg,
    handedness: first.handedness, statsDifference: first.stats?.largestDifference }, line: page.line }));

const webgpu = [], wasm = [];
for (let r = 0; r < rounds; ++r) {
  t0 = performance.now();
  if (!view.repose(settings(r + 1))) fail('a pose slider changed the mesh');
  view.run();
  wasm.push(performance.now() - t0);
  const c = await check();
  const g = await gpu.timeUpdates(perRound);
  webgpu.push(...g);
  console.log(JSON.stringify({ round: r + 1, wasm_update_ms: Math.round(wasm[r]), webgpu_update_ms: g.map((x) => +x.toFixed(2)),
    check_max_deg: +Math.max(c.maxNormalDeg, c.maxTangentDeg ?? 0).toExponential(2), loadavg: loadavg().map((x) => +x.toFixed(2)) }));
}
const g = median(webgpu), w = median(wasm);
console.log(JSON.stringify({ resolution, vertices: view.vertexCount, webgpu_update_p50_ms: +g.toFixed(2),
  webgpu_updates_per_s: +(1000 / g).toFixed(1), wasm_update_p50_ms: +w.toFixed(0), wasm_updates_per_s: +(1000 / w).toFixed(2),
  webgpu_over_wasm: +(w / g).toPrecision(3) }));
view.destroy();
gpu.release();
gpu.device.destroy();
process.exit(0);
