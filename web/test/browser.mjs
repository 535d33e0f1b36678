// The page in Debian's headless chromium (playwright-core), on the static build (`vite build`) served from a
// local http server: once with a WebGPU adapter (SwiftShader Vulkan) and once with WebGL2 only (ANGLE on
// SwiftShader). Screenshots go to $SF_ARTIFACTS (default build-web/browser-artifacts).
//   node web/test/browser.mjs [webgpu|webgl2|both]
// Exit 77 (CTest's skip) when chromium or web/node_modules is missing; 1 on a failed check.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { ALL_METHODS, METHODS } from '../src/skinframe.js';
import { articleChecks } from './article_checks.mjs';
import { longTaskCheck } from './longtask_checks.mjs';
import { characterLongTaskCheck } from './character_longtask.mjs';
import { gpuViewsChecks } from './gpu_views_checks.mjs';
import { servePage } from './page_server.mjs';
import { twoSkins } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const chromium = process.env.SF_CHROMIUM || '/usr/bin/chromium';
const dist = process.env.SKINFRAME_DIST || resolve(root, 'build-web/browser-dist');
const artifacts = process.env.SF_ARTIFACTS || resolve(root, 'build-web/browser-artifacts');
const assets = resolve(root, 'tests/assets/gltf');

if (!existsSync(chromium)) { console.log(`browser tests skipped: ${chromium} missing (SF_BOOTSTRAP_VIEWER=1 scripts/bootstrap.sh)`); process.exit(77); }
let playwright;
try { playwright = await import('playwright-core'); } catch {
  console.log('browser tests skipped: web/node_modules missing (cd web && npm ci)'); process.exit(77);
}
// The static build of the current sources (what `make viewer-dist` writes), unless SKINFRAME_DIST names one.
let served;
try { served = await servePage(root, dist); } catch (e) { console.error(e.message); process.exit(1); }
const { server, url } = served;
mkdirSync(artifacts, { recursive: true });

// SF_BROWSER_CHECKS=regex runs only the checks whose names match (while working on one; CI runs them all).
const only = process.env.SF_BROWSER_CHECKS ? new RegExp(process.env.SF_BROWSER_CHECKS) : null;

const BASE = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
const MODES = {
  // without --disable-gpu: the views a worker draws with WebGPU need the GPU process's compositing (with it, a
  // WebGPU canvas's swap chain finds no shared-image backing and the GPU process restarts)
  webgpu: [...BASE.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader', '--use-vulkan=swiftshader', '--use-angle=swiftshader'],
  webgl2: [...BASE, '--use-angle=swiftshader'],
};

// Fraction of non-background pixels and a digest of a canvas's pixels.
async function canvasPixels(page, id) {
  return page.evaluate((cid) => {
    const c = document.getElementById(cid);
    const off = document.createElement('canvas');
    off.width = 96; off.height = 72;
    const ctx = off.getContext('2d');
    ctx.drawImage(c, 0, 0, 96, 72);
    const d = ctx.getImageData(0, 0, 96, 72).data;
    let lit = 0, hash = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 13) + Math.abs(d[i + 1] - 14) + Math.abs(d[i + 2] - 17) > 24) ++lit;
      hash = (hash * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) >>> 0;
    }
    return { lit: lit / (96 * 72), hash };
  }, id);
}

// Two animation frames after the last evaluation (without WebGPU the core answers from a worker).
const settle = async (page) => {
  await page.waitForFunction(() => !window.sfPage?.busy && !window.sfPage?.characterBusy && !window.sfPage?.views?.busy && !window.sfPage?.views?.dirty, null, { timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

async function setSlider(page, name, value) {
  await page.$eval(`#param-${name}`, (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, value);
  await settle(page);
}

// The page's table against `skinframe eval` on a compressed file: the page decodes it with three.js's
// MeshoptDecoder and DRACOLoader, the command with libmeshoptimizer and libdraco. meshopt's integer streams and
// filters and Draco's dequantization are specified exactly, so the page evaluates eval's vertices and the bound
// is web/test/positions.test.mjs's for plain files: the poses differ by up to 5e-7 of the diagonal, which moves
// a mean error by far less than 1e-4 degree (measured: 4.2e-5 gltfpack -cc, 1.3e-5 Draco).
const COMPRESSED_MEAN_BOUND_DEG = 1e-4;

// eval's rows (--csv) at 2 frames per second: time, method, mean normal and tangent error.
function evalRows(cli, file) {
  const csv = join(artifacts, 'compressed-frames.csv');
  const r = spawnSync(cli, ['eval', file, '--fps', '2', '--csv', csv, '--force'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `eval ${file}: ${r.stderr}`);
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  const head = lines[0].split(',');
  return lines.slice(1).map((line) => {
    const f = line.match(/("[^"]*"|[^,]*)(,|$)/g).map((x) => x.replace(/,$/, '').replace(/^"|"$/g, ''));
    return { time: Number(f[head.indexOf('time_s')]), method: f[head.indexOf('method')],
      normal: Number(f[head.indexOf('normal_mean_deg')]), tangent: Number(f[head.indexOf('tangent_mean_deg')]) };
  });
}

// The whole character against `skinframe eval`: the page's table is the library's asset evaluation compiled to
// wasm, so only the float code generation differs (wasm's scalar loops against the native SIMD ones): measured
// 1.5e-5 degree at most (CesiumMan's tangent max). The bound is the 1e-3 degree.
const WHOLE_BOUND_DEG = 1e-3;
const WHOLE_FIELDS = [['normalMean', 'normal', 'mean'], ['normalMax', 'normal', 'max'], ['tangentMean', 'tangent', 'mean'],
  ['tangentMax', 'tangent', 'max']];

// eval --json's clips: [{name, frames, methods: {method: {normal: {mean, max}, tangent: {mean, max}}}}].
function evalClips(cli, file, extra = []) {
  const r = spawnSync(cli, ['eval', file, '--json', ...extra], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, `eval ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout).animations.map((a) => ({ name: a.name, frames: a.frames,
    methods: Object.fromEntries(a.methods.map((m) => [m.method, m])) }));
}

// eval --csv rows of one animation at 2 frames per second: time, method, normal and tangent mean and max.
function evalFrameRows(cli, file, animation) {
  const csv = join(artifacts, 'whole-frames.csv');
  const r = spawnSync(cli, ['eval', file, '--animation', String(animation), '--fps', '2', '--csv', csv, '--force'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `eval ${file}: ${r.stderr}`);
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  const head = lines[0].split(',');
  const num = (f, k) => (f[head.indexOf(k)] === '' ? null : Number(f[head.indexOf(k)]));
  return lines.slice(1).map((line) => {
    const f = line.match(/("[^"]*"|[^,]*)(,|$)/g).map((x) => x.replace(/,$/, '').replace(/^"|"$/g, ''));
    return { time: Number(f[head.indexOf('time_s')]), method: f[head.indexOf('method')],
      normalMean: num(f, 'normal_mean_deg'), normalMax: num(f, 'normal_max_deg'),
      tangentMean: num(f, 'tangent_mean_deg'), tangentMax: num(f, 'tangent_max_deg') };
  });
}

// gltfpack -cc's files against eval on the same file: three.js's meshopt decoder (a newer meshoptimizer than
// Debian's 0.18 that the command links) rounds some filtered normals and tangents to the neighbouring 8-bit
// octahedral step, so the vertices differ by up to one quantization step (about 0.45 degree) and the means by a
// few thousandths (measured 2.4e-3, MorphStressTest). The page's decoded bytes given to the command give the
// page's numbers within WHOLE_BOUND_DEG, which the check asserts too.
const QUANTIZED_MEAN_BOUND_DEG = 1e-2, QUANTIZED_MAX_BOUND_DEG = 1;

// The largest difference between a page table row and eval's numbers (want: {normalMean, ...}; null = not measured).
function rowDifference(where, got, want, bound = WHOLE_BOUND_DEG, maxBound = bound) {
  assert.ok(got && got.status === 'measured', `${where}: not in the page's whole-character table`);
  let worst = 0;
  for (const [key] of WHOLE_FIELDS) {
    if (want[key] == null) { assert.equal(got[key], null, `${where}: ${key} measured by the page, not by eval`); continue; }
    const d = Math.abs(got[key] - want[key]);
    assert.ok(d <= (/Max$/.test(key) ? maxBound : bound), `${where}: ${key} page ${got[key]}, eval ${want[key]}`);
    if (!/Max$/.test(key) || maxBound === bound) worst = Math.max(worst, d);
  }
  return worst;
}

const clipRow = (m) => Object.fromEntries(WHOLE_FIELDS.map(([key, part, field]) => [key, m[part]?.count ? m[part][field] : null]));

// While the clip plays, the rig shows the joints of the moment the mesh shows (the worker's last drawing, which
// trails the page's time): each sample's segments against the rig posed at that moment once the clip has ended.
async function rigFollowsMesh(page, name) {
  await page.evaluate(() => window.sfPage.seek(0));
  await settle(page);
  await page.click('#play');
  const samples = [];
  for (;;) {
    const s = await page.evaluate(() => {
      const p = window.sfPage, g = p.views.rigGeometry;
      return { playing: document.getElementById('play').textContent === 'Pause', moment: p.character().time, time: p.time(),
        rig: Array.from(g.attributes.position.array.subarray(0, 3 * g.drawRange.count)) };
    });
    if (!s.playing) break;
    samples.push(s);
    await page.waitForTimeout(40);
  }
  await settle(page);
  // the moments where the mesh trailed the page first (those a rig posed at the page's time gets wrong), 8 at most
  const moments = [...new Map(samples.map((s) => [s.moment, s])).values()].sort((a, b) => (b.moment !== b.time) - (a.moment !== a.time)).slice(0, 8);
  let worst = 0;
  for (const s of moments) {
    await page.evaluate((t) => window.sfPage.seek(t), s.moment);
    await settle(page);
    const rig = await page.evaluate(() => { const g = window.sfPage.views.rigGeometry; return Array.from(g.attributes.position.array.subarray(0, 3 * g.drawRange.count)); });
    assert.equal(rig.length, s.rig.length);
    const d = Math.max(...rig.map((x, i) => Math.abs(x - s.rig[i])));
    assert.ok(d <= 1e-6, `${name}: the rig while playing is ${d} away from the joints at the mesh's moment ${s.moment} s (page at ${s.time} s)`);
    worst = Math.max(worst, d);
  }
  const behind = samples.filter((s) => s.moment !== s.time).length;
  assert.ok(moments.length >= 2, `${name}: ${moments.length} moments drawn while playing`);
  console.log(`  ${name}: rig while playing at the mesh's moment in ${samples.length} samples (${behind} with the mesh behind the page's time), ${moments.length} moments, within ${worst.toExponential(1)}`);
}

async function run(mode) {
  const browser = await playwright.chromium.launch({ executablePath: chromium, args: MODES[mode], headless: true });
  const failures = [];
  const check = async (name, fn) => {
    if (only && !only.test(name)) return;
    try { await fn(); console.log(`ok - ${mode}: ${name}`); } catch (e) { failures.push(`${name}: ${e.message}`); console.log(`not ok - ${mode}: ${name}\n  ${e.message}`); }
  };
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
    // the main thread's WebGPU adapters and devices, counted (the scene worker's are its own)
    await page.addInitScript(() => {
      const calls = window.sfGpuCalls = { requestAdapter: 0, requestDevice: 0 };
      if (!self.GPU || !self.GPUAdapter) return;
      const adapter = GPU.prototype.requestAdapter, device = GPUAdapter.prototype.requestDevice;
      GPU.prototype.requestAdapter = function (...a) { ++calls.requestAdapter; return adapter.apply(this, a); };
      GPUAdapter.prototype.requestDevice = function (...a) { ++calls.requestDevice; return device.apply(this, a); };
    });
    await page.goto(`${url}lab.html`);
    await page.waitForFunction(() => window.sfPage?.ready || window.sfPage?.errors.length, null, { timeout: 60000 });
    const shot = (name) => page.screenshot({ path: join(artifacts, `${mode}-${name}.png`), fullPage: true });

    await check('page loads the wasm core', async () => {
      const errors = await page.evaluate(() => window.sfPage.errors);
      assert.deepEqual(errors, [], logs.join('\n'));
      // chromium has WebAssembly SIMD: the page takes the SIMD128 module and says so
      const wasm = await page.evaluate(() => window.sfPage.wasm);
      assert.deepEqual(wasm, { simd: true, file: 'skinframe-simd.wasm' });
      assert.ok(logs.some((l) => l.includes('skinframe-simd.wasm (WebAssembly SIMD)')), logs.join('\n'));
    });
    await check('backend', async () => {
      const backend = await page.evaluate(() => window.sfPage.gpu.backend);
      console.log(`  # ${mode}: ${backend}; WebGL2: ${await page.evaluate(() => !!document.createElement('canvas').getContext('webgl2'))}`);
      if (mode === 'webgpu') assert.equal(backend, 'webgpu'); else assert.match(backend, /wasm$/);
    });
    // Every WGSL pass against the wasm core: the per-vertex methods always, the reference and recompute-fused
    // where the shaders cover the reference options (`reference`: true).
    const gpuCheck = async (what, reference = true) => {
      if (mode !== 'webgpu') return;
      // a run for the state asked about: one from before the last option change can arrive first, and where the
      // reference is wanted, a run with it off belongs to that earlier state
      await page.waitForFunction(([r, ref]) => {
        const c = window.sfPage.gpu.check;
        return (c?.runs || 0) > r && !(ref && c.referenceOff);
      }, [gpuRuns, reference], { timeout: 30000 }).catch(async (e) => {
        throw new Error(`${e.message}: ${await page.$eval('#gpu-check', (el) => el.textContent)} ${logs.join('; ')}`);
      });
      const c = await page.evaluate(() => window.sfPage.gpu.check);
      gpuRuns = c.runs;
      const deg = (x) => (x === null ? 'not measured' : `${x.toExponential(2)} deg`);
      const line = Object.entries(c.methods).map(([m, r]) => `${m} ${deg(r.normalDeg)}/${deg(r.tangentDeg)}`).join(', ');
      console.log(`  # ${what}: WebGPU vs wasm (normals/tangents): ${line}`);
      gpuLog.push({ what, methods: c.methods });
      const want = ALL_METHODS.filter((m) => reference || !m.startsWith('recompute'));
      assert.deepEqual(Object.keys(c.methods).sort(), want.sort(), 'every method has its GPU pass');
      for (const [m, r] of Object.entries(c.methods)) {
        assert.ok(r.normalDeg <= 1e-3 && (r.tangentDeg === null || r.tangentDeg <= 1e-3), `${m}: ${JSON.stringify(r)}`);
        assert.ok(!r.handedness, `${m}: ${r.handedness} handedness differences`);
      }
      // the statistics reduced on the GPU (gpu_stats.wgsl) against the core's, per method: against the GPU's
      // reference, or the core's in its slot where the options keep it off the GPU
      {
        assert.ok(c.stats, 'the GPU reduced the statistics');
        const measured = c.maxTangentDeg !== null; // tangents are compared and reduced where the mesh has a tangent frame
        for (const m of METHODS) {
          const g = c.stats[m];
          if (!g) continue; // a method the core did not evaluate for this mesh
          for (const [got, want, what] of [[g.normalMean, g.coreMean, 'normal mean'], [g.normalMax, g.coreMax, 'normal max'],
            [g.tangentMean, g.coreTangentMean, 'tangent mean'], [g.tangentMax, g.coreTangentMax, 'tangent max']]) {
            if (what.startsWith('tangent') && !measured) { assert.equal(got, undefined, `${m} ${what} without a tangent frame`); continue; }
            assert.ok(Number.isFinite(got) && Math.abs(got - want) <= 1e-3, `${m} ${what}: GPU ${got}, core ${want}`);
          }
        }
        assert.ok(Object.keys(c.stats).length > 1 + 4, `methods with GPU statistics: ${Object.keys(c.stats)}`);
        console.log(`  # ${what}: GPU statistics (normal${measured ? ' and tangent' : ''} mean/max) within ${c.stats.largestDifference.toExponential(2)} deg of the core's`);
      }
      assert.ok(c.ok, JSON.stringify(c));
    };
    let gpuRuns = 0;
    const gpuLog = [];
    await page.selectOption('#preset', 'bone-twist');
    await settle(page);
    await shot('sheet-bone-twist');
    await check('four canvases show non-blank, different pixels', async () => {
      const px = [];
      for (const id of ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error']) px.push(await canvasPixels(page, id));
      for (const [i, p] of px.entries()) assert.ok(p.lit > 0.02, `canvas ${i} blank (${p.lit})`);
      // every slider's value inside its panel
      const out = await page.$$eval('#controls .slider output', (os) => os.map((o) => {
        const r = o.getBoundingClientRect(), panel = o.closest('section').getBoundingClientRect();
        return r.right <= panel.right + 0.5 ? null : `${o.previousElementSibling.id}: ${r.right} > ${panel.right}`;
      }).filter(Boolean));
      assert.deepEqual(out, [], 'slider values outside the panel');
      assert.equal(new Set(px.map((p) => p.hash)).size, 4, 'canvases differ');
    });
    await check('bone twist: unchanged error rises, recompute stays 0', async () => {
      await page.selectOption('#method', 'unchanged');
      await setSlider(page, 'twist', 0);
      const a = await page.evaluate(() => window.sfPage.stats);
      await setSlider(page, 'twist', 120);
      const b = await page.evaluate(() => window.sfPage.stats);
      await gpuCheck('sheet twist 120');
      assert.ok(a.unchanged.normalMean < 1e-6, `rest ${a.unchanged.normalMean}`);
      assert.ok(b.unchanged.normalMean > 5, `twisted ${b.unchanged.normalMean}`);
      assert.ok(b.unchanged.tangentMean > a.unchanged.tangentMean);
      assert.equal(b.recompute.normalMax, 0); assert.equal(b.recompute.tangentMax, 0);
      const cell = await page.$eval('#readout tr[data-method="unchanged"] td:nth-child(2)', (td) => td.textContent);
      assert.equal(Number(cell).toFixed(3), b.unchanged.normalMean.toFixed(3));
      await shot('twist-unchanged');
    });
    await check('methods and the morph-directions switch change the views', async () => {
      await page.selectOption('#scene', 'sheet');
      await settle(page);
      await setSlider(page, 'towel-twist', 1);
      await page.selectOption('#method', 'skinned');
      await settle(page);
      const withDeltas = await page.evaluate(() => window.sfPage.stats.skinned.normalMean);
      const before = await canvasPixels(page, 'view-method');
      await page.uncheck('#morph-directions');
      await settle(page);
      const without = await page.evaluate(() => window.sfPage.stats.skinned.normalMean);
      await gpuCheck('sheet towel-twist, no morph deltas');
      assert.ok(without > withDeltas + 1, `no deltas ${without} vs deltas ${withDeltas}`);
      const after = await canvasPixels(page, 'view-method');
      assert.notEqual(before.hash, after.hash);
      await page.selectOption('#method', 'jacobian');
      await settle(page);
      assert.equal(await page.$eval('#caption-method', (e) => e.textContent), 'jacobian');
      await page.selectOption('#material', '2');
      await page.check('#show-normals'); await page.check('#show-tangents'); await page.check('#show-rig');
      await settle(page);
      await shot('towel-twist-no-deltas-normal-mapped');
      await page.check('#morph-directions');
    });
    await check('vertex inspector', async () => {
      const box = await page.$eval('#view-method', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
      let hit = null;
      for (const [fx, fy] of [[0.5, 0.5], [0.45, 0.55], [0.55, 0.45], [0.4, 0.5], [0.6, 0.5]]) {
        await page.mouse.click(box[0] + fx * box[2], box[1] + fy * box[3]);
        await settle(page);
        hit = await page.evaluate(() => window.sfPage.inspection);
        if (hit) break;
      }
      assert.ok(hit, 'a click on the mesh inspects a vertex');
      const stats = await page.evaluate((v) => { const view = window.sfPage.view(); return { n: view.vertexCount, skinned: view.rows[1].normalDeg[v] }; }, hit.vertex);
      assert.ok(hit.vertex >= 0 && hit.vertex < stats.n);
      assert.equal(hit.rows.skinned.normalDeg, stats.skinned);
      assert.equal(hit.rows.recompute.normalDeg, 0);
      const rows = await page.$$eval('#inspector tr[data-method]', (r) => r.length);
      assert.equal(rows, METHODS.length);
      await shot('inspector');
    });
    await check('chart over a slider', async () => {
      await page.selectOption('#chart-over', 'twist');
      await page.click('#chart-run');
      await page.waitForFunction(() => window.sfPage.chart?.over === 'twist');
      const chart = await page.evaluate(() => window.sfPage.chart);
      assert.equal(chart.series.length, METHODS.length);
      const rec = chart.series.find((s) => s.name === 'recompute');
      assert.ok(rec.values.every((v) => v === 0));
      const un = chart.series.find((s) => s.name === 'unchanged');
      assert.ok(Math.max(...un.values) > 10);
      await page.locator('#chart').screenshot({ path: join(artifacts, `${mode}-chart-twist.png`) });
    });
    await check('every scene and preset: each GPU pass within 1e-3 deg of the wasm core', async () => {
      if (mode !== 'webgpu') return;
      const scenes = await page.$$eval('#scene option', (os) => os.map((o) => o.value));
      assert.ok(scenes.length >= 5, scenes.join());
      for (const scene of scenes) {
        await page.selectOption('#scene', scene);
        await settle(page);
        const presets = (await page.$$eval('#preset option', (os) => os.map((o) => o.value))).filter(Boolean);
        for (const preset of presets.length ? presets : ['']) {
          await page.selectOption('#preset', preset);
          await settle(page);
          await gpuCheck(`${scene} ${preset || 'rest'}`);
        }
      }
      // the sheet's morph targets at once (normal and tangent deltas on): morph gradients in both jacobians
      await page.selectOption('#scene', 'sheet');
      await settle(page);
      for (const [name, value] of [['towel-twist', 0.7], ['swirl', 0.5], ['ripples', 0.6], ['twist', 60]]) await setSlider(page, name, value);
      await gpuCheck('sheet towel-twist 0.7, swirl 0.5, ripples 0.6, twist 60');
      // the comparison on the GPU sees a difference: the GPU's skinned frames against the core's unchanged ones
      const apart = await page.evaluate(async () => {
        const p = window.sfPage, runs = p.gpu.check.runs, errors = p.errors.length;
        p.gpu.compareAgainst = { skinned: 'unchanged' };
        p.refresh();
        while ((p.gpu.check?.runs || 0) <= runs) await new Promise((r) => setTimeout(r, 20));
        delete p.gpu.compareAgainst;
        const c = p.gpu.check, line = document.getElementById('gpu-check').textContent;
        p.errors.splice(errors); // the report this check provoked
        return { ok: c.ok, skinned: c.methods.skinned, unchanged: c.methods.unchanged, line };
      });
      assert.ok(!apart.ok && apart.skinned.normalDeg > 1 && /DIFFERENT/.test(apart.line), JSON.stringify(apart));
      assert.ok(apart.unchanged.normalDeg <= 1e-3, JSON.stringify(apart));
      console.log(`  # GPU skinned against the core's unchanged: ${apart.skinned.normalDeg.toFixed(2)} deg normals, ` +
        `${apart.skinned.tangentDeg?.toFixed(2)} deg tangents, ${apart.skinned.handedness} handedness differences (reported DIFFERENT)`);
      for (const name of ['towel-twist', 'swirl', 'ripples']) await setSlider(page, name, 0);
      await page.selectOption('#scene', 'sheet');
      await page.selectOption('#preset', 'bone-twist');
      await settle(page);
    });
    await check('a mesh over the WebGPU adapter\'s limits: the page says so and the core computes it', async () => {
      if (mode !== 'webgpu') return;
      const granted = await page.evaluate(() => window.sfPage.gpu.granted);
      assert.ok(granted.maxStorageBufferBindingSize > 128 << 20, `the device asks for the adapter's limits: ${JSON.stringify(granted)}`);
      const cap = 4 << 20; // bytes: under the sheet's frames at resolution 64 (8 slots of 28 bytes per vertex)
      await page.evaluate((c) => { window.sfPage.gpu.capBytes = c; }, cap);
      await page.selectOption('#scene', 'sheet');
      await setSlider(page, 'resolution', 64);
      const over = await page.evaluate(() => ({ limit: window.sfPage.gpu.limit, line: document.getElementById('gpu-check').textContent,
        errors: window.sfPage.errors, n: window.sfPage.view().vertexCount, mean: window.sfPage.stats.skinned.normalMean }));
      assert.equal(over.limit.limit, cap);
      assert.ok(over.limit.need > cap && over.limit.need >= 28 * 8 * over.n, JSON.stringify(over.limit)); // the frames of 8 slots or a larger array
      assert.match(over.line, /^GPU check off for this mesh: it needs a \d+ MiB buffer, this WebGPU adapter allows 4 MiB/);
      assert.deepEqual(over.errors, []);
      assert.ok(Number.isFinite(over.mean), 'the table holds the core\'s numbers');
      await page.evaluate(() => { delete window.sfPage.gpu.capBytes; });
      await setSlider(page, 'resolution', 8);
      await page.waitForFunction(() => /equal within/.test(document.getElementById('gpu-check').textContent), null, { timeout: 60000 });
    });
    await check('a malformed file keeps the scene and shows the loader message', async () => {
      const before = await page.evaluate(() => window.sfPage.view().vertexCount);
      await page.setInputFiles('#file', { name: 'broken.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('glTF\x02\x00\x00\x00garbage') });
      await page.waitForFunction(() => document.getElementById('message').className === 'error');
      const text = await page.$eval('#message', (e) => e.textContent);
      assert.match(text, /broken\.glb: /);
      assert.equal(await page.evaluate(() => window.sfPage.view().vertexCount), before);
      await page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await page.waitForFunction(() => /notes\.txt/.test(document.getElementById('message').textContent));
      assert.match(await page.$eval('#message', (e) => e.textContent), /not a glTF file/);
      assert.equal(await page.$eval('#file', (e) => e.files.length), 0, 'the picker still names the rejected file');
      await shot('bad-file');
    });
    await check('a damaged .glb shows the command\'s message', async () => {
      const cli = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');
      if (!existsSync(cli)) {
        if (process.env.CI === 'true') throw new Error(`${cli} missing`);
        console.log(`  # skipped: ${cli} missing (make build)`); return;
      }
      const src = readFileSync(join(assets, 'Fox/glTF-Binary/Fox.glb'));
      const bad = (b, at, v) => { const c = Buffer.from(b); c.writeUInt32LE(v, at); return c; };
      const cases = { 'truncated.glb': src.subarray(0, src.length >> 1), 'version.glb': bad(src, 4, 1),
        'chunk.glb': bad(src, 12, src.length), 'short.glb': src.subarray(0, 9) };
      for (const [name, bytes] of Object.entries(cases)) {
        const file = join(artifacts, name);
        writeFileSync(file, bytes);
        const r = spawnSync(cli, ['info', file], { encoding: 'utf8' });
        const want = (r.stderr || r.stdout).trim().replace(`skinframe: ${file}: `, '');
        assert.notEqual(r.status, 0, `${name}: the command accepted it`);
        await page.setInputFiles('#file', { name, mimeType: 'model/gltf-binary', buffer: bytes });
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `) &&
          document.getElementById('message').className === 'error', name);
        const got = (await page.$eval('#message', (e) => e.textContent)).replace(`${name}: `, '');
        assert.equal(got, want, name);
      }
      assert.equal(await page.evaluate(() => window.sfPage.state.source), 'scene', 'the scene stays open');
    });
    await check('a file too large is refused before it is read', async () => {
      const text = await page.evaluate(async () => {
        const big = new File([new Uint8Array(1)], 'huge.glb');
        Object.defineProperty(big, 'size', { value: 300 * 1024 * 1024 });
        big.arrayBuffer = () => { throw new Error('read'); };
        await window.sfPage.openFiles([big]);
        return document.getElementById('message').textContent;
      });
      assert.match(text, /too large for the page/);
    });
    await check('a staged glTF asset loads and its animation scrubs', async () => {
      await page.setInputFiles('#file', join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb'));
      await page.waitForFunction(() => /vertices/.test(document.getElementById('message').textContent) || document.getElementById('message').className === 'error', null, { timeout: 60000 });
      assert.doesNotMatch(await page.$eval('#message', (e) => e.textContent), /error|failed/i);
      // the one primitive the page evaluates itself (and the GPU passes check): the whole character is the worker's
      await page.selectOption('#gltf-mesh', '0');
      await settle(page);
      const n = await page.evaluate(() => window.sfPage.view().vertexCount);
      assert.ok(n > 1000);
      const p0 = await page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 30)));
      await page.$eval('#scrub', (el) => { el.value = '0.5'; el.dispatchEvent(new Event('input', { bubbles: true })); });
      await settle(page);
      const p1 = await page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 30)));
      assert.notDeepEqual(p0, p1, 'scrubbing moves the mesh');
      assert.match(await page.$eval('#time', (e) => e.textContent), /s$/);
      const stats = await page.evaluate(() => window.sfPage.stats);
      assert.ok(stats.recompute.normalMax < 1e-3);
      // eval's reference (weld, MikkTSpace) is the wasm's: the per-vertex passes are checked all the same; then
      // the reference the GPU passes cover (no weld, UV tangents) for the reference and recompute-fused
      await page.$eval('#scrub', (el) => { el.value = '0.4'; el.dispatchEvent(new Event('input', { bubbles: true })); });
      await gpuCheck('CesiumMan at 0.4 of its clip, eval\'s reference', false);
      await page.selectOption('#weld', '0'); await page.selectOption('#tangents', '0');
      await gpuCheck('CesiumMan at 0.5 of its clip');
      // the primitive's passes ran on the scene worker's device: the page asked for none of its own
      if (mode === 'webgpu') assert.deepEqual(await page.evaluate(() => window.sfGpuCalls), { requestAdapter: 0, requestDevice: 0 });
      await shot('cesium-man');
    });
    await check('the scrubber\'s end is the clip\'s last pose, not its first', async () => {
      const at = async (v) => {
        await page.$eval('#scrub', (el, x) => { el.value = String(x); el.dispatchEvent(new Event('input', { bubbles: true })); }, v);
        await settle(page);
        return page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 300)));
      };
      const start = await at(0), nearEnd = await at(0.999), end = await at(1);
      const dist = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
      assert.ok(dist(end, nearEnd) < dist(end, start), `end-near end ${dist(end, nearEnd)}, end-start ${dist(end, start)}`);
      await at(0.5); // seeking back from the end moves the mesh again
      assert.notDeepEqual(await page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 300))), end);
    });
    await check('Play runs the clip once and holds its last pose (docs/viewer.md)', async () => {
      await page.$eval('#scrub', (el) => { el.value = '0.8'; el.dispatchEvent(new Event('input', { bubbles: true })); });
      await settle(page);
      await page.click('#play');
      await page.waitForFunction(() => document.getElementById('play').textContent === 'Play', null, { timeout: 30000 });
      await settle(page);
      assert.equal(await page.$eval('#scrub', (e) => e.value), '1', 'held at the end');
      const held = await page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 30)));
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      assert.deepEqual(await page.evaluate(() => Array.from(window.sfPage.view().positions.subarray(0, 30))), held, 'no loop');
    });
    await check('a mesh without UVs: tangents not measured, not 0', async () => {
      await page.setInputFiles('#file', join(assets, 'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'));
      await page.waitForFunction(() => /AnimatedMorphCube.*vertices/.test(document.getElementById('message').textContent) || document.getElementById('message').className === 'error', null, { timeout: 60000 });
      await page.$eval('#scrub', (el) => { el.value = '0.5'; el.dispatchEvent(new Event('input', { bubbles: true })); });
      await settle(page);
      const cells = await page.$$eval('#readout tbody tr', (rows) => rows.map((r) => Array.from(r.cells).map((c) => c.textContent)));
      assert.equal(cells.length, METHODS.length);
      for (const c of cells) assert.deepEqual(c.slice(3), ['not measured', 'not measured', 'not measured'], c.join(' | '));
      assert.match(await page.$eval('#readout-note', (e) => e.textContent), /Tangents not measured/);
      assert.match(await page.$eval('#caption-tangent', (e) => e.textContent), /not measured/);
      const stats = await page.evaluate(() => window.sfPage.stats);
      assert.equal(stats.skinned.tangentMean, null);
      assert.ok(Number.isFinite(stats.skinned.normalMean));
      await page.selectOption('#chart-kind', 'tangent');
      await page.click('#chart-run');
      await page.waitForFunction(() => /tangents not measured/.test(document.getElementById('message').textContent));
      await page.selectOption('#chart-kind', 'normal');
      await page.click('#chart-run');
      await page.waitForFunction(() => window.sfPage.chart?.over === '@time' && window.sfPage.chart.kind === 'normal');
      await page.locator('#chart').screenshot({ path: join(artifacts, `${mode}-chart-time.png`) });
      // the GPU passes check the primitive the page evaluates (the whole character is the worker's)
      await page.selectOption('#gltf-mesh', '0');
      await settle(page);
      await page.selectOption('#weld', '0'); await page.selectOption('#tangents', '0');
      await gpuCheck('AnimatedMorphCube, no UVs');
      if (mode === 'webgpu') assert.match(await page.$eval('#gpu-check', (e) => e.textContent), /tangents not measured/);
      await shot('no-uvs');
    });
    await check('whole characters (InterpolationTest, CesiumMan): the table is skinframe eval\'s, per clip and per moment', async () => {
      const cli = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');
      if (!existsSync(cli)) {
        if (process.env.CI === 'true') throw new Error(`${cli} missing`);
        console.log(`  # skipped: ${cli} missing (make build)`);
        return;
      }
      for (const [rel, moments] of [['InterpolationTest/glTF-Binary/InterpolationTest.glb', 5], ['CesiumMan/glTF-Binary/CesiumMan.glb', 0]]) {
        const file = join(assets, rel);
        const name = rel.split('/').pop();
        const t0 = Date.now();
        await page.setInputFiles('#file', file);
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 60000 });
        // eval's reference for real assets (an earlier check may have changed the selects)
        await page.selectOption('#weld', '2'); await page.selectOption('#tangents', '1');
        await settle(page);
        const info = await page.evaluate(() => window.sfPage.character());
        assert.equal(info.filter, -1, `${name}: the whole character is not the default`);
        assert.equal(await page.$eval('#gltf-mesh', (e) => e.value), '-1');
        const clips = evalClips(cli, file);
        let worst = 0;
        // every clip as eval --json reports it (30 frames per second and the end)
        for (let a = 0; a < clips.length; ++a) {
          await page.selectOption('#animation', String(a));
          await settle(page);
          const table = await page.evaluate(async () => { const t = await window.sfPage.characterClip(); return { t, frames: t.frames }; });
          assert.equal(table.frames, clips[a].frames, `${name} clip ${a}: frames`);
          for (const m of METHODS) worst = Math.max(worst, rowDifference(`${name} clip ${a} ${m}`, table.t[m], clipRow(clips[a].methods[m])));
        }
        // and the live table at eval --csv's moments (2 per second) of one clip
        await page.selectOption('#animation', String(moments));
        await settle(page);
        const rows = evalFrameRows(cli, file, moments);
        const duration = await page.evaluate(() => window.sfPage.duration());
        const times = [...new Set(rows.map((r) => r.time))];
        for (const time of times) {
          await page.evaluate((t) => window.sfPage.seek(t), Math.abs(time - duration) <= 1e-6 ? duration : time);
          await settle(page);
          const table = (await page.evaluate(() => window.sfPage.character())).table;
          const stats = await page.evaluate(() => window.sfPage.stats);
          for (const r of rows.filter((x) => x.time === time)) {
            worst = Math.max(worst, rowDifference(`${name} at ${time} s ${r.method}`, table[r.method], r));
            assert.equal(stats[r.method].normalMean, table[r.method].normalMean, `${name}: the readout is not the whole character's`);
          }
        }
        // the views draw every primitive instance posed together (web/asset_draw.c), against three.js's own
        // posing of the file: its triangles over every mesh it made and its skinned, morphed vertices' box
        const drawn = await page.evaluate(() => {
          const p = window.sfPage, v = p.views, g = v.meshes[2].geometry, err = g.attributes.err.array, pos = v.position.array;
          let sum = 0;
          for (const x of err) sum += x;
          const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
          for (let i = 0; i < pos.length; ++i) { lo[i % 3] = Math.min(lo[i % 3], pos[i]); hi[i % 3] = Math.max(hi[i % 3], pos[i]); }
          return { drawn: p.drawn, vertices: v.vertexCount, triangles: g.index.count / 3, errMean: sum / err.length,
            box: [...lo, ...hi], three: p.sceneBox(), method: p.state.method, stats: p.stats };
        });
        assert.equal(drawn.vertices, info.vertices, `${name}: drawn vertices`);
        assert.equal(drawn.drawn.units, info.units, `${name}: drawn primitive instances`);
        assert.equal(drawn.triangles, drawn.three.triangles, `${name}: drawn triangles against three.js's meshes`);
        const drawnMethod = METHODS[drawn.method];
        assert.ok(Math.abs(drawn.errMean - drawn.stats[drawnMethod].normalMean) <= 1e-4,
          `${name}: the error colours' mean ${drawn.errMean}, the table's ${drawn.stats[drawnMethod].normalMean}`);
        const t3 = drawn.three.box, diagonal = Math.hypot(t3[3] - t3[0], t3[4] - t3[1], t3[5] - t3[2]);
        const boxDiff = Math.max(...drawn.box.map((x, k) => Math.abs(x - t3[k])));
        assert.ok(boxDiff <= 1e-3 * diagonal, `${name}: drawn box ${drawn.box}, three.js's ${t3}`);
        console.log(`  ${name}: the views draw ${drawn.vertices} vertices, ${drawn.triangles} triangles of ${drawn.drawn.units} primitive instances; ` +
          `box within ${(boxDiff / diagonal).toExponential(1)} of the diagonal of three.js's; error colours' mean ${drawn.errMean.toFixed(4)} deg (${drawnMethod})`);
        // the comparison tells frames apart: eval at 7 frames per second is not the page's 30
        const other = evalClips(cli, file, ['--fps', '7', '--animation', String(moments)])[0];
        const page0 = await page.evaluate(() => window.sfPage.characterClip());
        assert.ok(METHODS.some((m) => Math.abs(page0[m].normalMean - other.methods[m].normal.mean) > WHOLE_BOUND_DEG),
          `${name}: eval --fps 7 gives the page's numbers too (the check could not fail)`);
        console.log(`  ${name}: ${info.units} primitive instances, ${info.vertices} vertices; ${clips.length} clip(s) and ${times.length} moments, ` +
          `every method's normal and tangent mean and max within ${worst.toExponential(2)} deg of eval's (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      }
      await shot('whole-character');
    });
    await check('whole characters (CesiumMan, MorphStressTest, CesiumMan with a second skin): the inspector at eval\'s worst vertices, every skin\'s rig, the chart at eval --csv\'s frames', async () => {
      const cli = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');
      if (!existsSync(cli)) {
        if (process.env.CI === 'true') throw new Error(`${cli} missing`);
        console.log(`  # skipped: ${cli} missing (make build)`);
        return;
      }
      // CesiumMan twice: every node copied (the copy's skin a second one over the copied joints), both in the scene
      const twice = join(artifacts, 'CesiumManTwice.glb');
      writeFileSync(twice, twoSkins(readFileSync(join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb'))));
      for (const file of [join(assets, 'CesiumMan/glTF-Binary/CesiumMan.glb'), join(assets, 'MorphStressTest/glTF-Binary/MorphStressTest.glb'), twice]) {
        const name = file.split('/').pop();
        await page.setInputFiles('#file', file);
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 60000 });
        await page.selectOption('#weld', '2'); await page.selectOption('#tangents', '1');
        await page.selectOption('#animation', '0');
        await settle(page);
        const r = spawnSync(cli, ['eval', file, '--json', '--animation', '0'], { encoding: 'utf8', maxBuffer: 1 << 26 });
        assert.equal(r.status, 0, `eval ${file}: ${r.stderr}`);
        const clip = JSON.parse(r.stdout).animations[0];
        // a moment carries the views' arrays and the drawn method's angles, not every method's (the inspector
        // asks the worker for one vertex): 19 floats a vertex, the indices and the units' first vertices
        const sent = await page.evaluate(() => window.sfPage.character());
        const bound = 4 * 19 * sent.drawn.vertices + 12 * sent.drawn.triangles + 4 * (sent.drawn.units + 1);
        assert.ok(sent.drawingBytes > 0 && sent.drawingBytes <= bound, `${name}: a moment's message has ${sent.drawingBytes} bytes, the drawing ${bound}`);
        // the inspector: each method's worst normal and tangent vertex of the clip (eval names its node, mesh,
        // primitive, vertex and frame), clicked in the whole character at that frame: the same vertex, and the
        // method's angle there eval's
        let inspected = 0, worst = 0;
        for (const m of METHODS) {
          const row = clip.methods.find((x) => x.method === m);
          for (const [key, part] of [['worst_normal_vertex', 'normalDeg'], ['worst_tangent_vertex', 'tangentDeg']]) {
            const w = row[key];
            if (!w || !(w.angle_deg > 0)) continue;
            await page.evaluate((t) => window.sfPage.seek(t), Math.min(w.frame / clip.fps, clip.duration_s));
            await settle(page);
            const info = await page.evaluate(() => window.sfPage.character());
            const unit = info.first.slice(0, -1).findIndex((_, u) => info.unitInfo[4 * u] === w.node &&
              info.unitInfo[4 * u + 1] === w.mesh && info.unitInfo[4 * u + 2] === w.primitive);
            assert.ok(unit >= 0, `${name} ${m}: no unit of node ${w.node}, mesh ${w.mesh}, primitive ${w.primitive}`);
            const got = await page.evaluate((v) => window.sfPage.inspect(v), info.first[unit] + w.vertex);
            assert.deepEqual([got.node, got.mesh, got.primitive, got.unitVertex], [w.node, w.mesh, w.primitive, w.vertex], `${name} ${m} ${key}: the inspected vertex`);
            const d = Math.abs(got.rows[m][part] - w.angle_deg);
            assert.ok(d <= WHOLE_BOUND_DEG, `${name} ${m} ${key}: inspector ${got.rows[m][part]}, eval ${w.angle_deg}`);
            worst = Math.max(worst, d);
            ++inspected;
          }
        }
        assert.ok(inspected > 0, `${name}: no worst vertex to inspect`);
        // the rig: every joint of every skin in the file, once
        const glb = readFileSync(file);
        const json = JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString());
        const joints = new Set((json.skins || []).flatMap((s) => s.joints)).size;
        await page.check('#show-rig');
        await settle(page);
        const rig = await page.evaluate(() => { const v = window.sfPage.views; return { count: v.rigGeometry?.drawRange.count ?? 0, visible: !!v.rig?.[0]?.visible }; });
        assert.equal(rig.count, 2 * joints, `${name}: rig segments for ${joints} joints`);
        assert.equal(rig.visible, joints > 0, `${name}: rig shown`);
        if (joints) await rigFollowsMesh(page, name);
        await page.uncheck('#show-rig');
        // the chart: the whole character's normal mean per method at frames of the clip, each eval --csv's frame
        const csv = join(artifacts, 'whole-chart.csv');
        const e = spawnSync(cli, ['eval', file, '--animation', '0', '--csv', csv, '--force'], { encoding: 'utf8' });
        assert.equal(e.status, 0, `eval ${file}: ${e.stderr}`);
        const lines = readFileSync(csv, 'utf8').trim().split('\n');
        const head = lines[0].split(',');
        const rows = lines.slice(1).map((l) => l.match(/("[^"]*"|[^,]*)(,|$)/g).map((x) => x.replace(/,$/, '').replace(/^"|"$/g, '')));
        await page.selectOption('#chart-kind', 'normal');
        await page.evaluate(() => window.sfPage.runChart());
        const chart = await page.evaluate(() => window.sfPage.chart);
        assert.ok(chart.whole && chart.xs.length >= 2, `${name}: the chart is not the whole character's`);
        let points = 0;
        chart.xs.forEach((t, i) => {
          for (const [k, m] of METHODS.entries()) {
            const row = rows.find((f) => f[head.indexOf('method')] === m && Math.abs(Number(f[head.indexOf('time_s')]) - t) <= 1e-6);
            assert.ok(row, `${name}: eval --csv has no frame at ${t} s`);
            const want = Number(row[head.indexOf('normal_mean_deg')]);
            assert.ok(Math.abs(chart.series[k].values[i] - want) <= WHOLE_BOUND_DEG, `${name} chart at ${t} s ${m}: ${chart.series[k].values[i]}, eval ${want}`);
            ++points;
          }
        });
        console.log(`  ${name}: ${inspected} worst vertices inspected within ${worst.toExponential(1)} deg of eval's; rig ${joints} joints of ${(json.skins || []).length} skin(s); chart ${points} points at eval --csv's frames`);
      }
      await shot('whole-inspector');
    });
    await check('staged assets compressed with meshopt (gltfpack -c -noq, -cc) and Draco (edgebreaker, sequential): the whole character is skinframe eval\'s', async () => {
      const cli = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');
      const skip = (why) => {
        if (process.env.CI === 'true') throw new Error(why);
        console.log(`  # skipped: ${why}`);
      };
      if (!existsSync(cli)) return skip(`${cli} missing (make build)`);
      const dir = join(dirname(cli), 'compressed-assets');
      // every staged asset compressed both ways (gltfpack -cc, Draco edgebreaker) on the WebGL2 run (about 8 s a
      // file here, eval included: the table is the wasm core's on either path); the WebGPU run takes the
      // multi-primitive InterpolationTest the four ways generate.sh makes (docs/benchmarks.md)
      const names = ['AnimatedMorphCube', 'CesiumMan', 'Fox', 'InterpolationTest', 'MorphStressTest',
        'NormalTangentMirrorTest', 'NormalTangentTest', 'SimpleMorph', 'SimpleSkin', 'SimpleSparseAccessor'];
      const kinds = process.env.SF_COMPRESSED_KINDS?.split(',') ?? (mode === 'webgl2' ? ['meshoptq', 'draco'] : ['meshopt', 'meshoptq', 'draco', 'dracoseq']);
      const files = (mode === 'webgl2' ? names : ['InterpolationTest']).flatMap((n) => kinds.map((k) => `${n}.${k}.glb`)).map((f) => join(dir, f));
      if (!files.every((f) => existsSync(f))) {
        const g = spawnSync('bash', [join(root, 'tests/compressed/generate.sh'), assets, dir], { encoding: 'utf8' });
        if (!files.every((f) => existsSync(f))) return skip(`tests/compressed/generate.sh could not make the files (status ${g.status}: ${(g.stderr || '').trim()})`);
      }
      const t0 = Date.now();
      let worst = 0, worstQuantized = 0, clipCount = 0;
      for (const file of files) {
        const name = file.slice(dir.length + 1);
        const quantized = /\.meshoptq\./.test(name); // the meshopt decoders' rounding differs (above)
        await page.setInputFiles('#file', file);
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 60000 });
        await page.selectOption('#weld', '2'); await page.selectOption('#tangents', '1');
        await settle(page);
        const info = await page.evaluate(() => window.sfPage.character());
        assert.equal(info.filter, -1, `${name}: no whole character (${info.reason})`);
        const clips = evalClips(cli, file);
        // the command on the vertices the page decoded: the page's numbers within the plain bound
        let decoded = null;
        if (quantized) {
          const bytes = await page.evaluate(() => Array.from(window.sfPage.characterBytes()));
          const plain = join(artifacts, 'meshoptq-decoded-by-page.glb');
          writeFileSync(plain, Uint8Array.from(bytes));
          decoded = evalClips(cli, plain);
        }
        for (let a = 0; a < clips.length; ++a) {
          if (clips.length > 1) { await page.selectOption('#animation', String(a)); await settle(page); }
          const table = await page.evaluate(async () => { const t = await window.sfPage.characterClip(); return { t, frames: t.frames }; });
          assert.equal(table.frames, clips[a].frames, `${name} clip ${a}: frames`);
          for (const m of METHODS) {
            const where = `${name} clip ${a} ${m}`;
            if (!quantized) { worst = Math.max(worst, rowDifference(where, table.t[m], clipRow(clips[a].methods[m]))); continue; }
            worst = Math.max(worst, rowDifference(`${where} (page-decoded file)`, table.t[m], clipRow(decoded[a].methods[m])));
            worstQuantized = Math.max(worstQuantized, rowDifference(where, table.t[m], clipRow(clips[a].methods[m]),
              QUANTIZED_MEAN_BOUND_DEG, QUANTIZED_MAX_BOUND_DEG));
          }
          ++clipCount;
        }
      }
      const seconds = (Date.now() - t0) / 1000;
      console.log(`  ${files.length} files (${kinds.join(', ')}), ${clipCount} clips: every method's normal and tangent mean and max within ${worst.toExponential(2)} deg ` +
        `of eval's on the same vertices; -cc's means within ${worstQuantized.toExponential(2)} deg of eval on the compressed file; ` +
        `${seconds.toFixed(1)} s (${(seconds / files.length).toFixed(1)} s a file, eval included)`);
    });
    await check('compressed CesiumMan (meshopt, Draco): the table is skinframe eval\'s at each frame', async () => {
      const cli = process.env.SKINFRAME_CLI || resolve(root, 'build/skinframe');
      const skip = (why) => {
        if (process.env.CI === 'true') throw new Error(why);
        console.log(`  # skipped: ${why}`);
      };
      if (!existsSync(cli)) return skip(`${cli} missing (make build)`);
      // the files test_compressed makes in the native build (tests/compressed/generate.sh), made here when absent
      const dir = join(dirname(cli), 'compressed-assets');
      const files = ['CesiumMan.meshoptq.glb', 'CesiumMan.draco.glb'].map((f) => join(dir, f));
      if (!files.every((f) => existsSync(f))) {
        const g = spawnSync('bash', [join(root, 'tests/compressed/generate.sh'), assets, dir, 'CesiumMan'], { encoding: 'utf8' });
        if (!files.every((f) => existsSync(f))) return skip(`tests/compressed/generate.sh could not make the files (status ${g.status}: ${(g.stderr || '').trim()})`);
      }
      for (const file of files) {
        const name = file.slice(dir.length + 1);
        const rows = evalRows(cli, file);
        assert.ok(rows.length >= METHODS.length, `${name}: eval wrote no rows`);
        await page.setInputFiles('#file', file);
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 60000 });
        assert.doesNotMatch(await page.$eval('#message', (e) => e.textContent), /error|failed|not supported/i);
        // eval's reference for real assets: weld position+normal, MikkTSpace tangents
        await page.selectOption('#weld', '2'); await page.selectOption('#tangents', '1');
        let worst = 0, frames = 0;
        const duration = await page.evaluate(() => window.sfPage.duration());
        for (const time of [...new Set(rows.map((r) => r.time))]) {
          // the CSV's times have 6 decimals: its last frame is the clip's end, where a tangent mean can move by
          // 0.003 degree in the 3e-7 s the rounding takes off (CesiumMan.meshoptq at 2.0083334 s)
          await page.evaluate((t) => window.sfPage.seek(t), Math.abs(time - duration) <= 1e-6 ? duration : time);
          await settle(page);
          const stats = await page.evaluate(() => window.sfPage.stats);
          for (const r of rows.filter((x) => x.time === time)) {
            const s = stats[r.method];
            assert.ok(s, `${name}: eval's method ${r.method} is not in the page's table`);
            for (const [got, want] of [[s.normalMean, r.normal], [s.tangentMean, r.tangent]]) {
              const d = Math.abs(got - want);
              assert.ok(d <= COMPRESSED_MEAN_BOUND_DEG, `${name} at ${time} s, ${r.method}: page ${got}, eval ${want}`);
              worst = Math.max(worst, d);
            }
          }
          ++frames;
        }
        console.log(`  ${name}: ${frames} frames, every method's mean normal and tangent error within ${worst.toExponential(2)} deg of eval's`);
      }
    });
    if (gpuLog.length) writeFileSync(join(artifacts, `${mode}-gpu-check.json`), JSON.stringify(gpuLog, null, 1));
    await gpuViewsChecks(browser, url, mode, artifacts, check);
    await longTaskCheck(page, mode, artifacts, check);
    await characterLongTaskCheck(page, mode, artifacts, assets, root, check);
    // the article and the phone layout once, on the WebGL2 path
    if (mode === 'webgl2') await articleChecks(browser, url, artifacts, check);
  } finally {
    await browser.close();
  }
  return failures;
}

const which = process.argv[2] || 'both';
const modes = which === 'both' ? ['webgpu', 'webgl2'] : [which];
let failed = [];
for (const m of modes) failed = failed.concat((await run(m)).map((f) => `${m}: ${f}`));
server.close();
console.log(failed.length ? `FAILED ${failed.length}:\n${failed.join('\n')}` : `all browser checks passed; screenshots in ${artifacts}`);
process.exit(failed.length ? 1 : 0);
