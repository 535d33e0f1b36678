// WebAssembly SIMD against none in one run, in interleaved rounds (the order alternating), medians over rounds:
// - the page's frame (frame.mjs's: the sheet at resolution 63, 20224 vertices, every method, the reference and
//   the live statistics, the pose changing every frame) in build-web/skinframe.wasm and skinframe-simd.wasm;
// - each method's ns per vertex on that mesh (bench/wasm_methods.c) from build-wasm/ and build-wasm-simd/'s
//   sf_wasm_methods.wasm, where they are built (`make wasm-core`).
//   node web/bench/simd.mjs [ROUNDS] [FRAMES]        (defaults 9 rounds, 40 frames a round after 10 warm-up)
// SKINFRAME_WASM / SKINFRAME_WASM_SIMD name the page's modules, WASM_BUILD / WASM_SIMD_BUILD the wasm builds.
import { readFileSync, existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';
import { loadSkinframe } from '../src/skinframe.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rounds = Number(process.argv[2] || 9);
const frames = Number(process.argv[3] || 40);
const scalarPath = process.env.SKINFRAME_WASM || resolve(root, 'build-web/skinframe.wasm');
const simdPath = process.env.SKINFRAME_WASM_SIMD || resolve(dirname(scalarPath), 'skinframe-simd.wasm');
const median = (a) => { const s = [...a].sort((x, y) => x - y); const h = s.length >> 1; return s.length % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]); };

// The page's frame: two views of the same sheet, one per module, posed alike every frame.
async function pageView(path) {
  const sf = await loadSkinframe(readFileSync(path));
  const a = sf.openScene('sheet', '', { resolution: 63, twist: 60, bend: 20, 'towel-twist': 0.5, ripples: 0.3 });
  const b = sf.openScene('sheet', '', { resolution: 63, twist: -30, bend: 70, swirl: 0.6, 'middle-fold': 0.4 });
  const poses = { boneA: Float32Array.from(a.bones), boneB: Float32Array.from(b.bones),
    morphA: Float32Array.from(a.morph), morphB: Float32Array.from(b.morph) };
  b.destroy();
  a.setLive(true);
  return { view: a, poses, f: 0 };
}
function pageRound(p, count) {
  const { view, poses } = p, time = [];
  for (let i = 0; i < count; ++i, ++p.f) {
    const s = 0.5 - 0.5 * Math.cos((p.f / 30) * Math.PI);
    view.sync();
    for (let k = 0; k < poses.boneA.length; ++k) view.bones[k] = poses.boneA[k] + s * (poses.boneB[k] - poses.boneA[k]);
    for (let k = 0; k < poses.morphA.length; ++k) view.morph[k] = poses.morphA[k] + s * (poses.morphB[k] - poses.morphA[k]);
    const t0 = performance.now();
    view.run();
    time.push(performance.now() - t0);
  }
  return median(time);
}

// One round of bench/wasm_methods.c in a fresh WASI instance of the compiled program; its JSON line.
async function methodsProgram(path) {
  if (!existsSync(path)) return null;
  const module = await WebAssembly.compile(readFileSync(path));
  return async () => {
    let text = '';
    const wasi = new WASI({ version: 'preview1', args: ['wasm_methods', '15'], env: {}, returnOnExit: true,
      stdout: 1 });
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: {
      ...wasi.wasiImport,
      // stdout captured (fd 1), the rest as WASI has it
      fd_write(fd, iovs, len, nwritten) {
        if (fd !== 1) return wasi.wasiImport.fd_write(fd, iovs, len, nwritten);
        const view = new DataView(instance.exports.memory.buffer);
        let total = 0;
        for (let i = 0; i < len; ++i) {
          const ptr = view.getUint32(iovs + 8 * i, true), n = view.getUint32(iovs + 8 * i + 4, true);
          text += Buffer.from(instance.exports.memory.buffer, ptr, n).toString();
          total += n;
        }
        view.setUint32(nwritten, total, true);
        return 0;
      },
    } });
    if (wasi.start(instance) !== 0) throw new Error(`${path} failed`);
    return JSON.parse(text).ns_per_vertex;
  };
}

const page = { scalar: await pageView(scalarPath), simd: await pageView(simdPath) };
pageRound(page.scalar, 10), pageRound(page.simd, 10); // warm-up
const methods = {
  scalar: await methodsProgram(resolve(root, process.env.WASM_BUILD || 'build-wasm', 'sf_wasm_methods.wasm')),
  simd: await methodsProgram(resolve(root, process.env.WASM_SIMD_BUILD || 'build-wasm-simd', 'sf_wasm_methods.wasm')),
};
const withMethods = methods.scalar && methods.simd;
const got = { scalar: { page: [], methods: [] }, simd: { page: [], methods: [] } };
for (let r = 0; r < rounds; ++r) {
  const order = r % 2 ? ['simd', 'scalar'] : ['scalar', 'simd'];
  for (const k of order) got[k].page.push(pageRound(page[k], frames));
  if (withMethods) for (const k of order) got[k].methods.push(await methods[k]());
}
const result = { vertices: page.scalar.view.vertexCount, rounds, frames_per_round: frames,
  page_ms: { scalar: +median(got.scalar.page).toFixed(3), simd: +median(got.simd.page).toFixed(3) } };
result.page_ms.speedup = +(result.page_ms.scalar / result.page_ms.simd).toFixed(2);
if (withMethods) {
  result.ns_per_vertex = {};
  for (const m of Object.keys(got.scalar.methods[0])) {
    const s = median(got.scalar.methods.map((x) => x[m])), v = median(got.simd.methods.map((x) => x[m]));
    result.ns_per_vertex[m] = { scalar: +s.toFixed(1), simd: +v.toFixed(1), speedup: +(s / v).toFixed(2) };
  }
}
console.log(JSON.stringify(result, null, 1));
