// What one moment of the whole character costs the page's character worker (web/src/character_worker.js), under
// node on each staged .glb and a many-primitive one (Fox's mesh drawn 59 times, bench/primitives.py): the table
// alone (sfw_asset_frame), and the table with the views' arrays of every unit posed together for one drawn method
// (Character.moment, what the worker answers while "whole character" is drawn). Each is the median CPU time
// (user + system) of MOMENTS moments spread over the first clip.
//   node web/bench/asset_draw.mjs [MOMENTS] [METHOD]     (build-web/skinframe.wasm; SKINFRAME_WASM=path)
import { readFileSync, readdirSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkinframe, ALL_METHODS } from '../src/skinframe.js';
import { Character, EVAL_OPTIONS } from '../src/asset_eval.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const moments = Number(process.argv[2] || 20);
const method = process.argv[3] || 'skinned';
const drawn = ALL_METHODS.indexOf(method);
if (drawn < 0) throw new Error(`no method ${method}: ${ALL_METHODS.join(', ')}`);
const sf = await loadSkinframe(readFileSync(process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm')));
const assets = join(root, 'tests/assets/gltf');
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const cpu = (fn) => { const c = process.cpuUsage(); fn(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000; };

const files = readdirSync(assets).sort().flatMap((d) => {
  const dir = join(assets, d, 'glTF-Binary');
  return existsSync(dir) ? [[d, join(dir, readdirSync(dir).find((f) => f.endsWith('.glb')))]] : [];
});
const scratch = mkdtempSync(join(tmpdir(), 'asset-draw-'));
const fox59 = join(scratch, 'Fox59.glb');
const made = spawnSync('python3', [join(root, 'bench/primitives.py'), join(assets, 'Fox/glTF-Binary/Fox.glb'), '59', fox59]);
if (made.status === 0) files.push(['Fox x 59', fox59]);

console.log(`drawn method ${method}; median of ${moments} moments, CPU ms`);
console.log('asset                      units  vertices   table ms  table+drawing ms  ratio');
for (const [name, file] of files) {
  const c = new Character(sf, readFileSync(file));
  const a = c._assetFor(EVAL_OPTIONS);
  const anim = a.animationCount ? 0 : -1;
  const at = (k) => (a.duration(anim) * k) / moments;
  c.moment(anim, at(0), EVAL_OPTIONS, drawn); // the drawing's arrays made once, as the worker keeps them
  const table = [], both = [];
  for (let k = 0; k < moments; ++k) {
    table.push(cpu(() => a.frame(anim, at(k))));
    c.key = ''; // no table kept from before: every moment evaluated
    both.push(cpu(() => c.moment(anim, at(k), EVAL_OPTIONS, drawn)));
  }
  const t = median(table), b = median(both);
  console.log(`${name.padEnd(26)} ${String(a.units).padStart(5)} ${String(a.vertices).padStart(9)} ${t.toFixed(2).padStart(10)} ` +
    `${b.toFixed(2).padStart(17)} ${(b / t).toFixed(2).padStart(6)}`);
  c.destroy();
}
rmSync(scratch, { recursive: true, force: true });
