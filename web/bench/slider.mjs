// One slider input of the page's worker at a sheet resolution, timed under node: a pose slider (twist and a morph
// weight) evaluated by opening the scene again (topology, adjacency, gradients rebuilt) against re-posing the open
// one (View.repose), each followed by the run (every method, the reference, live statistics). Wall and CPU time
// (user + system) per input, median of RUNS.
//   node web/bench/slider.mjs [RUNS] [RESOLUTION]       (build-web/skinframe.wasm; SKINFRAME_WASM=path)
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkinframe } from '../src/skinframe.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const runs = Number(process.argv[2] || 5);
const resolution = Number(process.argv[3] || 256);
const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
const settings = (i) => ({ resolution, twist: 10 + 7 * i, 'towel-twist': 0.05 * i });

function timed(fn) {
  const c0 = process.cpuUsage(), t0 = performance.now();
  fn();
  const t = performance.now() - t0, c = process.cpuUsage(c0);
  return { wall: t, cpu: (c.user + c.system) / 1000 };
}
const median = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];

let view = sf.openScene('sheet', '', settings(0)).setLive(true).run();
const reopen = [], repose = [];
for (let i = 1; i <= runs; ++i) {
  reopen.push(timed(() => {
    const next = sf.openScene('sheet', '', settings(i)).setLive(true).run();
    view.destroy();
    view = next;
  }));
  repose.push(timed(() => {
    if (!view.repose(settings(i + runs))) throw new Error('a pose slider changed the mesh');
    view.run();
  }));
}
const row = (name, xs) => ({ input: name, wall_p50_ms: +median(xs.map((x) => x.wall)).toFixed(1),
  cpu_p50_ms: +median(xs.map((x) => x.cpu)).toFixed(1), wall_ms: xs.map((x) => +x.wall.toFixed(0)) });
console.log(JSON.stringify({ resolution, vertices: view.vertexCount, runs }));
console.log(JSON.stringify(row('open again + run', reopen)));
console.log(JSON.stringify(row('re-pose + run', repose)));
view.destroy();
