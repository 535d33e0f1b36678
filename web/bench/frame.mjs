// One frame of the page in the wasm core, timed under node: every method, the reference and the error
// statistics of a ~20k-vertex mesh (the sheet at resolution 63: (5*63+1)*(63+1) = 20224 vertices, 5 bones,
// 4 influences, 4 morph targets), the pose changing every frame.
//   node web/bench/frame.mjs [FRAMES] [RESOLUTION]       (build-web/skinframe.wasm; SKINFRAME_WASM=path)
// Run it as `node --no-liftoff`: V8 then compiles the module's optimised code when it loads it. Otherwise the first
// frames run in the baseline compiler's code until the optimised code is ready, and on one pinned core that
// compile shares the core with the frames: the 10 warm-up frames below do not cover it (the frames can be 2.5x
// slower for the first hundred).
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkinframe } from '../src/skinframe.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const frames = Number(process.argv[2] || 200);
const resolution = Number(process.argv[3] || 63);
const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
// Two poses from the scenes layer (bones and morph weights); frames alternate between them and their blend.
const a = sf.openScene('sheet', '', { resolution, twist: 60, bend: 20, 'towel-twist': 0.5, ripples: 0.3 });
const b = sf.openScene('sheet', '', { resolution, twist: -30, bend: 70, swirl: 0.6, 'middle-fold': 0.4 });
const boneA = Float32Array.from(a.bones), boneB = Float32Array.from(b.bones);
const morphA = Float32Array.from(a.morph), morphB = Float32Array.from(b.morph);
b.destroy();
const view = a;
if (process.env.SFW_FULL_STATS !== '1') view.setLive(true);
// Wall time per frame, and the process's CPU time (user + system) for the same call: on a loaded machine the
// two differ by the time the core was not scheduled.
const time = [], cpu = [];
for (let f = 0; f < frames + 10; ++f) {
  const s = 0.5 - 0.5 * Math.cos((f / 30) * Math.PI);
  view.sync();
  // Blending matrices entry-wise is not a rigid pose, which only makes the frame more general.
  for (let k = 0; k < boneA.length; ++k) view.bones[k] = boneA[k] + s * (boneB[k] - boneA[k]);
  for (let k = 0; k < morphA.length; ++k) view.morph[k] = morphA[k] + s * (morphB[k] - morphA[k]);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  view.run();
  const t1 = performance.now();
  const c1 = process.cpuUsage(c0);
  if (f >= 10) {
    time.push(t1 - t0);
    cpu.push((c1.user + c1.system) / 1000);
  }
}
time.sort((x, y) => x - y);
cpu.sort((x, y) => x - y);
const mean = time.reduce((x, y) => x + y, 0) / time.length;
const q = (p, t = time) => t[Math.min(t.length - 1, Math.floor(p * t.length))];
console.log(JSON.stringify({ vertices: view.vertexCount, triangles: view.triangleCount, frames: time.length,
  mean_ms: +mean.toFixed(3), min_ms: +time[0].toFixed(3), p50_ms: +q(0.5).toFixed(3), p95_ms: +q(0.95).toFixed(3), max_ms: +time.at(-1).toFixed(3),
  cpu_p50_ms: +q(0.5, cpu).toFixed(3), statistics: process.env.SFW_FULL_STATS === '1' ? 'full' : 'live',
  unchanged_mean_deg: +view.summary(0).normal.mean.toFixed(3) }));
