// The sheet at a resolution (default 512: (5 r + 1)(r + 1) = 1,313,793 vertices) on the page's WebGPU path in
// headless chromium, against the wasm path in the same run, in interleaved rounds:
// - WebGPU: one update is the WGSL passes (deform, every method, the reference) and the error statistics of
//   every method reduced on the GPU, submitted and their 16 bytes per method read back (gpu.js timeUpdates:
//   the open pose written again each update; the work does not depend on its values);
// - wasm: one pose-slider input evaluated by the scene worker (re-pose, every method, the reference, the live
//   statistics) until the page holds the result, the GPU idle meanwhile.
// Also what the mesh needs of the adapter's limits, what the page was granted, and the GPU check's verdict.
// The page's static build of the current sources (vite); chromium as web/test/browser.mjs runs it (SwiftShader
// Vulkan: the GPU is emulated on this machine's CPU, so the numbers are a ratio, not a GPU's speed).
//   node web/bench/sheet_gpu.mjs [ROUNDS] [RESOLUTION] [GPU_UPDATES_PER_ROUND]     (defaults 3, 512, 3)
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { servePage } from '../test/page_server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rounds = Number(process.argv[2] || 3);
const resolution = Number(process.argv[3] || 512);
const perRound = Number(process.argv[4] || 3);
const chromium = process.env.SF_CHROMIUM || '/usr/bin/chromium';
const dist = process.env.SKINFRAME_DIST || resolve(root, 'build-web/bench-dist');
const playwright = await import('playwright-core');
const { server, url } = await servePage(root, dist);
// no --disable-gpu: the views the scene worker draws with WebGPU need the GPU process's compositing
const args = ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader', '--use-vulkan=swiftshader', '--use-angle=swiftshader'];
const browser = await playwright.chromium.launch({ executablePath: chromium, args, headless: true });
const median = (a) => { const s = [...a].sort((x, y) => x - y); const h = s.length >> 1; return s.length % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]); };
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const t0 = performance.now();
  await page.goto(`${url}lab.html?scene=sheet&p.resolution=${resolution}`);
  // the first evaluation and its GPU check
  await page.waitForFunction(() => {
    const p = window.sfPage;
    return p?.errors.length || (p?.ready && p.runs > 0 && !p.busy && (p.gpu.backend !== 'webgpu' || (p.gpu.check && !p.gpu.busy) ||
      (p.gpu.limit && p.gpu.limit.need > p.gpu.limit.limit)));
  }, null, { timeout: 600000, polling: 200 });
  const info = await page.evaluate(() => {
    const p = window.sfPage;
    return { vertices: p.view().vertexCount, backend: p.gpu.backend, limit: p.gpu.limit, granted: p.gpu.granted,
      check: p.gpu.check && { ok: p.gpu.check.ok, maxNormalDeg: p.gpu.check.maxNormalDeg, maxTangentDeg: p.gpu.check.maxTangentDeg,
        statsDifference: p.gpu.check.stats?.largestDifference }, errors: p.errors, line: document.getElementById('gpu-check').textContent };
  });
  info.openMs = Math.round(performance.now() - t0);
  console.log(JSON.stringify({ resolution, ...info }));
  if (info.backend !== 'webgpu' || !info.check) throw new Error('no WebGPU run on this mesh');
  const gpu = [], wasm = [], worker = [];
  for (let r = 0; r < rounds; ++r) {
    const w = await page.evaluate(async (value) => {
      const p = window.sfPage, runs = p.runs, checks = p.gpu.check.runs, input = document.getElementById('param-twist');
      const t = performance.now();
      input.value = String(value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      while (p.runs === runs || p.busy) await new Promise((res) => setTimeout(res, 5));
      const ms = performance.now() - t;
      while (p.gpu.busy || p.gpu.check.runs === checks) await new Promise((res) => setTimeout(res, 20)); // its check, before timing the GPU
      return { ms, worker: p.timing.wasm, ok: p.gpu.check.ok };
    }, 10 + 7 * r);
    if (!w.ok) throw new Error('the GPU check failed');
    wasm.push(w.ms); worker.push(w.worker);
    const g = await page.evaluate((k) => window.sfPage.gpu.timeUpdates(k), perRound);
    gpu.push(...g);
    console.log(JSON.stringify({ round: r + 1, wasm_update_ms: Math.round(w.ms), worker_evaluation_ms: Math.round(w.worker),
      webgpu_update_ms: g.map(Math.round), loadavg: loadavg().map((x) => +x.toFixed(2)) }));
  }
  const g = median(gpu), m = median(wasm);
  console.log(JSON.stringify({ webgpu_update_ms: gpu.map(Math.round), wasm_update_ms: wasm.map(Math.round), worker_evaluation_ms: worker.map(Math.round) }));
  console.log(JSON.stringify({ resolution, vertices: info.vertices, webgpu_updates_per_s: +(1000 / g).toFixed(2),
    wasm_updates_per_s: +(1000 / m).toFixed(2), webgpu_over_wasm: +(m / g).toFixed(2), loadavg: loadavg().map((x) => +x.toFixed(2)) }));
} finally {
  await browser.close();
  server.close();
}
