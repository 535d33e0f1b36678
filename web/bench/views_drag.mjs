// A slider dragged on the sheet (default resolution 256: 329,217 vertices) in headless chromium, on three
// paths in one run: WebGPU with the views drawn by the scene worker from the GPU passes' buffers (the page's
// default), WebGPU with three.js drawing the worker's arrays (gpuviews=0, the page before the GPU-drawn views),
// and the wasm path (no WebGPU: the worker's arrays, three.js on WebGL2). INPUTS twist inputs, one per
// animation frame; the drag ends when the views show the last input's pose. Reported per path: the poses the
// views showed and their rate over the drag, and the bytes the worker posted per moment (web/src/message_size.js),
// each as a ratio to the wasm path's. SwiftShader is the GPU on both WebGPU and WebGL2 (this machine's CPU):
// only the ratios within one run mean anything.
//   node web/bench/views_drag.mjs [INPUTS] [RESOLUTION]      (defaults 10, 256)
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { servePage } from '../test/page_server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const inputs = Number(process.argv[2] || 10);
const resolution = Number(process.argv[3] || 256);
const chromium = process.env.SF_CHROMIUM || '/usr/bin/chromium';
const dist = process.env.SKINFRAME_DIST || resolve(root, 'build-web/bench-dist');
const playwright = await import('playwright-core');
const { server, url } = await servePage(root, dist);
const BASE = ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// as web/test/browser.mjs: the WebGPU canvases need the GPU process's compositing (no --disable-gpu)
const WEBGPU = [...BASE, '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader', '--use-vulkan=swiftshader', '--use-angle=swiftshader'];
const WEBGL2 = [...BASE, '--disable-gpu', '--use-angle=swiftshader'];
const PATHS = [['wasm (WebGL2, three.js)', WEBGL2, ''], ['WebGPU, views drawn on the GPU', WEBGPU, ''], ['WebGPU, three.js views (gpuviews=0)', WEBGPU, '&gpuviews=0']];

async function drag(args, extra) {
  const browser = await playwright.chromium.launch({ executablePath: chromium, args, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${url}lab.html?scene=sheet&p.resolution=${resolution}${extra}`);
    const idle = () => {
      const p = window.sfPage;
      return p?.ready && p.runs > 0 && !p.busy && !p.views.busy && !p.views.dirty && !(p.gpu.backend === 'webgpu' && (!p.gpu.check || p.gpu.busy));
    };
    await page.waitForFunction(idle, null, { timeout: 900000, polling: 200 });
    return await page.evaluate(async (n) => {
      const p = window.sfPage, input = document.getElementById('param-twist');
      const runs0 = p.runs, m0 = { ...p.messages }, drawn0 = p.remoteViews?.posesDrawn ?? 0;
      const t0 = performance.now();
      for (let i = 1; i <= n; ++i) {
        await new Promise((r) => requestAnimationFrame(r));
        input.value = String(4 * i);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      while (p.busy || p.views.busy || p.views.dirty) await new Promise((r) => setTimeout(r, 20));
      const ms = performance.now() - t0;
      const moments = p.runs - runs0;
      const shown = p.remoteViews ? p.remoteViews.posesDrawn - drawn0 : moments;
      return { vertices: p.view().vertexCount, backend: p.gpu.backend, gpuViews: !!p.remoteViews, ms: Math.round(ms), moments, shown,
        perSecond: (1000 * shown) / ms, bytesPerMoment: Math.round((p.messages.bytes - m0.bytes) / moments), errors: p.errors };
    }, inputs);
  } finally {
    await browser.close();
  }
}

try {
  const rows = [];
  for (const [name, args, extra] of PATHS) {
    const load = loadavg()[0].toFixed(1);
    const r = { path: name, ...(await drag(args, extra)), load };
    rows.push(r);
    console.log(JSON.stringify(r));
  }
  const wasm = rows[0];
  for (const r of rows) {
    console.log(`${r.path}: ${r.shown} poses shown in ${r.ms} ms (${r.perSecond.toFixed(3)} a second, ${(r.perSecond / wasm.perSecond).toFixed(3)} of wasm's), ` +
      `${r.bytesPerMoment} bytes a moment from the worker (${(r.bytesPerMoment / wasm.bytesPerMoment).toExponential(2)} of wasm's), load ${r.load}`);
  }
} finally {
  server.close();
}
