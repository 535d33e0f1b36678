// The page's whole-character evaluation in the wasm core (web/src/asset_eval.js), timed under node on each staged
// asset: opening it (the glTF layer's load, topologies and MikkTSpace of every primitive instance), one moment
// of its first clip (every instance posed and evaluated: what the page does per time step) and the whole clip as
// `skinframe eval` plays it (30 frames per second and the end). Each is the process's CPU time (user + system),
// which a loaded machine does not inflate as it does wall time; a moment is the median of MOMENTS.
//   node web/bench/asset.mjs [MOMENTS]       (build-web/skinframe.wasm; SKINFRAME_WASM=path)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkinframe } from '../src/skinframe.js';
import { AssetEval } from '../src/asset_eval.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const moments = Number(process.argv[2] || 20);
const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
const assets = join(root, 'tests/assets/gltf');
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
// CPU milliseconds of fn()
const cpu = (fn) => { const c = process.cpuUsage(); fn(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000; };
console.log('asset                      units  vertices  open ms  moment ms  clip frames  clip ms  (CPU time)');
for (const d of readdirSync(assets).sort()) {
  const dir = join(assets, d, 'glTF-Binary');
  if (!existsSync(dir)) continue;
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.glb')));
  const bytes = readFileSync(file);
  let a = null;
  const open = cpu(() => { a = new AssetEval(sf, bytes); });
  const anim = a.animationCount ? 0 : -1;
  const times = [];
  for (let k = 0; k < moments; ++k) times.push(cpu(() => a.frame(anim, (a.duration(anim) * k) / moments)));
  let clip = null;
  const clipMs = cpu(() => { clip = a.clip(anim); });
  console.log(`${d.padEnd(26)} ${String(a.units).padStart(5)} ${String(a.vertices).padStart(9)} ${open.toFixed(1).padStart(8)} ` +
    `${median(times).toFixed(2).padStart(10)} ${String(clip.frames).padStart(12)} ${clipMs.toFixed(1).padStart(8)}`);
  a.destroy();
}
