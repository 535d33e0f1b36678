// The views the scene worker draws with WebGPU from the GPU passes' buffers (web/src/gpu_views.js) against
// views.js's three.js drawing of the same state (the lab with gpuviews=0: the worker sends the core's arrays
// and three.js draws them), pixel by pixel; and what a moment posts from the worker to the page on each.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ASSETS = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../tests/assets/gltf');

const IDS = ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error'];
// Pixels that differ by more than this (sum over r, g, b of 0..255) count as different: the two rasterizers
// (Dawn's and ANGLE's, both on SwiftShader) interpolate and resolve their 4 samples each their own way.
const PIXEL_TOLERANCE = 24;
// At most this share of the mesh's inner pixels (no background pixel among the 8 around, in either drawing)
// may differ (measured up to 0.26 %: heat colours where the two angles straddle a rounding step); the
// silhouette's antialiased edge (2 to 3 % of the mesh's pixels here) is left out.
const DIFFERENT_SHARE = 0.01;
// What a moment may post from the worker to the page where the worker draws: the statistics, the GPU check,
// the rig and the framing box, a few KiB, where the per-vertex arrays of the mesh below are megabytes.
const MOMENT_BYTES = 16384;

// Every pixel of each view (the canvas drawn into a 2D canvas at its own size).
async function viewPixels(page) {
  return page.evaluate((ids) => ids.map((id) => {
    const c = document.getElementById(id);
    if (!c.offsetWidth) return null; // a pair demo hides the error views
    // a canvas handed to the worker keeps its element here; its overlay has the size the worker draws at
    const sized = document.getElementById(`${id}-overlay`) || c;
    const w = sized.width, h = sized.height;
    const off = document.createElement('canvas');
    off.width = w; off.height = h;
    const ctx = off.getContext('2d');
    ctx.drawImage(c, 0, 0, w, h);
    // what the reader sees: the worker's drawing under the page's overlay (rig, vectors, marker)
    if (sized !== c) ctx.drawImage(sized, 0, 0, w, h);
    return { w, h, data: Array.from(ctx.getImageData(0, 0, w, h).data) };
  }), IDS);
}

const background = (d, i) => Math.abs(d[i] - 13) + Math.abs(d[i + 1] - 14) + Math.abs(d[i + 2] - 17) <= PIXEL_TOLERANCE;

// The mesh's pixels (non-background in either), its inner ones and the share of those that differ; the centre
// pixels' colours.
function compare(a, b) {
  assert.equal(a.w, b.w); assert.equal(a.h, b.h);
  let mesh = 0, inner = 0, differ = 0, sum = 0;
  const edge = (x, y) => {
    for (let dy = -1; dy <= 1; ++dy) {
      for (let dx = -1; dx <= 1; ++dx) {
        const j = 4 * ((y + dy) * a.w + x + dx);
        if (background(a.data, j) || background(b.data, j)) return true;
      }
    }
    return false;
  };
  for (let i = 0; i < a.data.length; i += 4) {
    if (background(a.data, i) && background(b.data, i)) continue;
    ++mesh;
    const x = (i / 4) % a.w, y = Math.floor(i / 4 / a.w);
    if (x === 0 || y === 0 || x === a.w - 1 || y === a.h - 1 || edge(x, y)) continue;
    ++inner;
    const d = Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]);
    sum += d;
    if (d > PIXEL_TOLERANCE) ++differ;
  }
  const c = 4 * (Math.floor(a.h / 2) * a.w + Math.floor(a.w / 2));
  return { pixels: a.w * a.h, mesh, inner, differ, share: inner ? differ / inner : 1, meanDiff: inner ? sum / inner : 0,
    centre: [a.data.slice(c, c + 3), b.data.slice(c, c + 3)] };
}

// Waits for a lab (a page or an article's frame) to show its first moment, the GPU idle.
async function settled(page) {
  await page.waitForFunction(() => window.sfPage?.ready && window.sfPage.runs > 0 && !window.sfPage.busy &&
    !window.sfPage.views.busy && !window.sfPage.gpu.busy, null, { timeout: 120000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// A whole character's moment on the GPU (state: the page's views, check, readout and character): drawn by the
// worker, the drawn method within 1e-3 deg of the core's, every method's statistics within 1e-3 deg of the table's.
function characterOnGpu(name, state) {
  assert.deepEqual(state.errors, [], `${name}: errors`);
  assert.equal(state.character.filter, -1, `${name}: the whole character`);
  assert.ok(state.gpuDrawn, `${name}: the worker draws the whole character`);
  const c = state.check;
  assert.ok(c.ok, `${name}: ${JSON.stringify(c)}`);
  assert.ok(c.methods.skinned && c.methods.skinned.normalDeg <= 1e-3, `${name}: the drawn method against the core's: ${JSON.stringify(c.methods)}`);
  let worst = 0, compared = 0;
  for (const [m, t] of Object.entries(state.stats)) {
    const g = c.stats?.[m];
    if (!Number.isFinite(t.normalMean)) continue; // a method the library cannot run on this asset
    assert.ok(g, `${name} ${m}: no GPU statistics`);
    const pairs = [[g.normalMean, t.normalMean], [g.normalMax, t.normalMax]];
    if (t.tangentMean !== null && g.tangentMean !== undefined) pairs.push([g.tangentMean, t.tangentMean], [g.tangentMax, t.tangentMax]);
    for (const [got, want] of pairs) {
      assert.ok(Math.abs(got - want) <= 1e-3, `${name} ${m}: GPU ${got}, the table (eval's) ${want}`);
      worst = Math.max(worst, Math.abs(got - want));
    }
    ++compared;
  }
  assert.ok(compared >= 5, `${name}: ${compared} methods compared`);
  console.log(`  # ${name}: ${state.character.units} units, ${state.character.vertices} vertices joined on the GPU; ` +
    `${compared} methods' statistics within ${worst.toExponential(2)} deg of the table's (eval's)`);
  return { units: state.character.units, vertices: state.character.vertices, worstDeg: worst };
}

// The page's moment of a whole character at `fraction` of its clip once drawn (on the GPU path, with its passes'
// check after it): what characterOnGpu reads.
async function characterMoment(page, fraction, gpu) {
  await page.$eval('#scrub', (el, x) => { el.value = String(x); el.dispatchEvent(new Event('input', { bubbles: true })); }, fraction);
  await page.waitForFunction((g) => {
    const p = window.sfPage, c = p.character(), m = p.gpu.check?.moment;
    return c?.table && !p.characterBusy && Math.abs(c.time - p.time()) < 1e-9 && !p.views.busy && !p.gpu.busy &&
      (!g || (m && m.time === c.time));
  }, gpu, { timeout: 60000 });
  await settled(page);
  return page.evaluate(() => ({ gpuDrawn: window.sfPage.views.gpuDrawn, errors: window.sfPage.errors,
    check: window.sfPage.gpu.check, stats: window.sfPage.stats, character: window.sfPage.character() }));
}

// The whole character with the reference options the shaders cover (no weld, UV tangents): the reference, and
// recompute-fused, computed by the passes of the joined mesh too, each against the asset's within the rebuilt
// reference's bound, and the statistics against the table's.
async function characterReferenceOnGpu(page, name) {
  const runs0 = await page.evaluate(() => window.sfPage.gpu.check?.runs || 0);
  await page.selectOption('#weld', '0');
  await page.selectOption('#tangents', '0');
  await page.waitForFunction((r) => {
    const p = window.sfPage, c = p.gpu.check;
    return c && c.runs > r && !c.referenceOff && !p.characterBusy && !p.gpu.busy;
  }, runs0, { timeout: 60000 });
  const s = await page.evaluate(() => ({ check: window.sfPage.gpu.check, stats: window.sfPage.stats, errors: window.sfPage.errors }));
  assert.deepEqual(s.errors, [], `${name}: errors`);
  const c = s.check, ref = c.methods.recompute;
  assert.ok(ref && ref.normalDeg <= c.rebuiltToleranceDeg, `${name}: the GPU's reference against the asset's: ${JSON.stringify(ref)}`);
  assert.ok(c.ok, `${name}: ${JSON.stringify(c)}`);
  let worst = 0;
  for (const [m, t] of Object.entries(s.stats)) {
    if (!Number.isFinite(t.normalMean)) continue;
    const g = c.stats[m];
    worst = Math.max(worst, Math.abs(g.normalMean - t.normalMean), Math.abs(g.normalMax - t.normalMax));
  }
  assert.ok(worst <= 1e-3, `${name}: the GPU's statistics against its own reference, ${worst} deg from the table's`);
  console.log(`  # ${name}, no weld and UV tangents: the joined mesh's reference on the GPU within ${ref.normalDeg.toExponential(2)} deg ` +
    `of the asset's (bound ${c.rebuiltToleranceDeg.toExponential(1)}), statistics within ${worst.toExponential(2)} deg of the table's`);
  return { referenceDeg: ref.normalDeg, statsDeg: worst };
}

async function openLab(page, base, search) {
  await page.goto(`${base}lab.html?${search}`);
  await settled(page);
}

// Each shown view of a GPU drawing against three.js's of the same state: the mesh covers part of it, and its
// inner pixels (the error views' heat colours among them) agree within the bounds above.
function agree(name, drawn, three, differentShare = DIFFERENT_SHARE) {
  const out = [];
  for (const [k, id] of IDS.entries()) {
    assert.equal(drawn[k] === null, three[k] === null, `${name} ${id}: shown in one drawing only`);
    if (!drawn[k]) continue;
    const r = { id, ...compare(drawn[k], three[k]) };
    console.log(`  # ${name}, ${id}: ${r.mesh} mesh pixels, ${r.inner} inner, ${(100 * r.share).toFixed(2)}% of those differ by more than ${PIXEL_TOLERANCE} (mean ${r.meanDiff.toFixed(2)})`);
    assert.ok(r.mesh > 0.02 * r.pixels, `${name} ${id}: the mesh covers ${r.mesh} of ${r.pixels} pixels`);
    assert.ok(r.inner > 0.01 * r.pixels, `${name} ${id}: ${r.inner} inner mesh pixels of ${r.pixels}`);
    assert.ok(r.share <= differentShare, `${name} ${id}: ${r.differ} of ${r.inner} inner mesh pixels differ`);
    out.push(r);
  }
  assert.ok(out.length >= 2, `${name}: ${out.length} views shown`);
  return out;
}

export async function gpuViewsChecks(browser, base, mode, artifacts, check) {
  if (mode !== 'webgpu') return;
  const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const result = {};
  try {
    await check('views drawn on the GPU from the passes\' buffers match three.js\'s drawing of the same state', async () => {
      // a twisted, morphed sheet: the errors vary over the mesh, so the heat colours have something to match
      for (const [material, search] of [['lambert', 'scene=sheet&p.twist=120&m.towel-twist=0.6&method=skinned&material=1'],
        ['normal colours', 'scene=sheet&p.twist=120&m.towel-twist=0.6&method=unchanged&material=0'],
        ['normal-mapped', 'scene=sheet&p.bend=60&m.ripples=0.5&method=inverse-transpose&material=2']]) {
        await openLab(page, base, search);
        const gpu = await page.evaluate(() => ({ remote: !!window.sfPage.remoteViews, check: window.sfPage.gpu.check?.ok }));
        assert.ok(gpu.remote, 'the worker draws the views (WebGPU)');
        assert.ok(gpu.check, 'the GPU passes equal the core');
        const drawn = await viewPixels(page);
        await page.screenshot({ path: join(artifacts, `webgpu-views-gpu-${material.replace(/ /g, '-')}.png`) });
        await openLab(page, base, `${search}&gpuviews=0`);
        assert.equal(await page.evaluate(() => !!window.sfPage.remoteViews), false, 'gpuviews=0: three.js draws');
        const three = await viewPixels(page);
        await page.screenshot({ path: join(artifacts, `webgpu-views-three-${material.replace(/ /g, '-')}.png`) });
        result[material] = IDS.map((id, k) => ({ id, ...compare(drawn[k], three[k]) }));
        for (const r of result[material]) {
          console.log(`  # ${material}, ${r.id}: ${r.mesh} mesh pixels, ${r.inner} inner, ${(100 * r.share).toFixed(2)}% of those differ by more than ${PIXEL_TOLERANCE} (mean ${r.meanDiff.toFixed(2)}), centre GPU ${r.centre[0]} three.js ${r.centre[1]}`);
          assert.ok(r.mesh > 0.02 * r.pixels, `${material} ${r.id}: the mesh covers ${r.mesh} of ${r.pixels} pixels`);
          assert.ok(r.share <= DIFFERENT_SHARE, `${material} ${r.id}: ${r.differ} of ${r.inner} inner mesh pixels differ`);
          const [g, t] = r.centre;
          assert.ok(Math.abs(g[0] - t[0]) + Math.abs(g[1] - t[1]) + Math.abs(g[2] - t[2]) <= PIXEL_TOLERANCE, `${material} ${r.id}: centre ${g} against ${t}`);
        }
      }
    });

    // The article's demos (lab frames embedded in index.html) on the WebGPU path: a step's four views and the ramp's
    // side-by-side pane, each against three.js's drawing of the same state in a page of the frame's size.
    await check('article demos drawn on the GPU match three.js\'s drawing of the same state', async () => {
      const article = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      try {
        await article.goto(`${base}index.html`);
        await article.waitForFunction(() => window.sfArticle?.ready, null, { timeout: 30000 });
        for (const [name, selector] of [['step 2 (skinned), four views', 'section[data-section="skinned"] .demo'],
          ['ramp pane (same matrix | inverse transpose)', 'section[data-section="inverse-transpose"] .demo.pair']]) {
          const el = article.locator(selector).first();
          await el.scrollIntoViewIfNeeded();
          const handle = await el.locator('iframe').elementHandle({ timeout: 20000 });
          const frame = await handle.contentFrame();
          await settled(frame);
          const state = await frame.evaluate(() => ({ remote: !!window.sfPage.remoteViews, check: window.sfPage.gpu.check?.ok,
            errors: window.sfPage.errors, search: location.search, width: innerWidth, height: innerHeight }));
          assert.deepEqual(state.errors, [], `${name}: errors`);
          assert.ok(state.remote, `${name}: the worker draws the views (WebGPU)`);
          assert.ok(state.check, `${name}: the GPU passes equal the core`);
          const drawn = await viewPixels(frame);
          const tag = name.split(' ')[0] + name.split(' ')[1];
          await el.screenshot({ path: join(artifacts, `webgpu-article-${tag}-gpu.png`) });
          const three = await browser.newPage({ viewport: { width: state.width, height: state.height } });
          try {
            await openLab(three, base, `${state.search.slice(1)}&gpuviews=0`);
            assert.equal(await three.evaluate(() => !!window.sfPage.remoteViews), false, 'gpuviews=0: three.js draws');
            result[`article ${name}`] = agree(name, drawn, await viewPixels(three));
            await three.screenshot({ path: join(artifacts, `webgpu-article-${tag}-three.png`) });
          } finally {
            await three.close();
          }
        }
      } finally {
        await article.close();
      }
    });

    // A glTF primitive's views: the worker draws them from its passes' buffers (the reference slot holding the
    // core's weld + MikkTSpace reference), placed by the primitive's model matrix, against three.js's drawing.
    await check('a glTF primitive drawn on the GPU from the passes\' buffers matches three.js\'s drawing of it', async () => {
      const shots = {};
      for (const [path, search] of [['gpu', 'method=skinned&material=1'], ['three.js', 'method=skinned&material=1&gpuviews=0']]) {
        await openLab(page, base, search);
        await page.setInputFiles('#file', join(ASSETS, 'CesiumMan/glTF-Binary/CesiumMan.glb'));
        await page.waitForFunction(() => /vertices/.test(document.getElementById('message').textContent) ||
          document.getElementById('message').className === 'error', null, { timeout: 60000 });
        await page.selectOption('#gltf-mesh', '0');
        await page.$eval('#scrub', (el) => { el.value = '0.4'; el.dispatchEvent(new Event('input', { bubbles: true })); });
        await settled(page);
        const state = await page.evaluate(() => ({ gpuDrawn: window.sfPage.views.gpuDrawn, errors: window.sfPage.errors,
          check: window.sfPage.gpu.check?.ok, n: window.sfPage.view().vertexCount }));
        assert.deepEqual(state.errors, [], `${path}: errors`);
        assert.equal(state.gpuDrawn, path === 'gpu', `${path}: the worker draws the primitive's mesh`);
        if (path === 'gpu') assert.ok(state.check, 'the GPU passes equal the core');
        shots[path] = await viewPixels(page);
        await page.screenshot({ path: join(artifacts, `webgpu-views-gltf-${path.replace('.', '')}.png`) });
      }
      // a character's limbs in front of its body make antialiased edges inside the mesh, which the inner pixels
      // keep: measured 0.45 % (shaded) to 0.97 % (heat) of them differ, against the sheet's 0.26 %
      result.gltf = agree('CesiumMan primitive', shots.gpu, shots['three.js'], 2 * DIFFERENT_SHARE);
    });

    // A whole character: every unit joined in one mesh for the passes (gpu_character.js), each drawn placed by its
    // node, against three.js's drawing of the library's arrays; the GPU's statistics are the table's (eval's).
    // InterpolationTest: rigid units, each moved by its own node; CesiumMan: a skin.
    await check('a whole character on the GPU: every unit joined, drawn as three.js draws it, its statistics eval\'s', async () => {
      result.character = {};
      for (const rel of ['InterpolationTest/glTF-Binary/InterpolationTest.glb', 'CesiumMan/glTF-Binary/CesiumMan.glb']) {
        const name = rel.split('/').pop(), shots = {};
        for (const [path, search] of [['gpu', 'method=skinned&material=1'], ['three.js', 'method=skinned&material=1&gpuviews=0']]) {
          await openLab(page, base, search);
          await page.setInputFiles('#file', join(ASSETS, rel));
          await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `) ||
            document.getElementById('message').className === 'error', name, { timeout: 60000 });
          const state = await characterMoment(page, 0.4, path === 'gpu');
          assert.deepEqual(state.errors, [], `${name} ${path}: errors`);
          assert.equal(state.gpuDrawn, path === 'gpu', `${name} ${path}: the worker draws the whole character`);
          if (path === 'gpu') result.character[name] = characterOnGpu(name, state);
          shots[path] = await viewPixels(page);
          await page.screenshot({ path: join(artifacts, `webgpu-views-character-${name.replace('.glb', '')}-${path.replace('.', '')}.png`) });
          if (path === 'gpu') result.character[name].reference = await characterReferenceOnGpu(page, name);
        }
        result.character[name].views = agree(`${name} whole character`, shots.gpu, shots['three.js'], 2 * DIFFERENT_SHARE);
      }
    });

    await check('every staged character on the GPU: its passes equal the library\'s evaluation, its statistics eval\'s table', async () => {
      const files = readdirSync(ASSETS).filter((d) => d !== 'LICENSES').flatMap((d) => {
        const dir = join(ASSETS, d, 'glTF-Binary');
        const f = existsSync(dir) && readdirSync(dir).find((x) => x.endsWith('.glb'));
        return f ? [join(dir, f)] : [];
      });
      assert.ok(files.length >= 7, `staged assets: ${files.length}`);
      await openLab(page, base, 'method=skinned');
      result.staged = {};
      for (const file of files) {
        const name = file.split('/').pop();
        await page.setInputFiles('#file', file);
        await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 60000 });
        result.staged[name] = characterOnGpu(name, await characterMoment(page, 0.37, true));
      }
    });

    await check('a whole character over the adapter\'s limits: the page says so and draws the library\'s arrays', async () => {
      await openLab(page, base, 'method=skinned');
      const cap = 512 << 10; // bytes: under CesiumMan's joined frames (8 slots of 28 bytes for each of 3572 vertices)
      await page.evaluate((c) => { window.sfPage.gpu.capBytes = c; }, cap);
      // a scene request carries the page's GPU settings to the worker
      await page.$eval('#param-twist', (el) => { el.value = '30'; el.dispatchEvent(new Event('input', { bubbles: true })); });
      await settled(page);
      await page.setInputFiles('#file', join(ASSETS, 'CesiumMan/glTF-Binary/CesiumMan.glb'));
      await page.waitForFunction(() => /vertices, [\d,]+ triangles \(whole character\)/.test(document.getElementById('status').textContent) &&
        /GPU check off for this mesh/.test(document.getElementById('gpu-check').textContent), null, { timeout: 60000 });
      await settled(page);
      const s = await page.evaluate(() => ({ gpuDrawn: window.sfPage.views.gpuDrawn, errors: window.sfPage.errors, limit: window.sfPage.gpu.limit,
        line: document.getElementById('gpu-check').textContent, drawn: window.sfPage.character().drawn }));
      assert.deepEqual(s.errors, []);
      assert.equal(s.gpuDrawn, false, 'the page draws the whole character');
      assert.equal(s.limit.limit, cap);
      assert.ok(s.limit.need > cap, JSON.stringify(s.limit));
      assert.match(s.line, /^GPU check off for this mesh: it needs a 0\.8 MiB buffer, this WebGPU adapter allows 0\.5 MiB/);
      assert.equal(s.drawn.vertices, 3572, 'the library\'s arrays drawn');
    });

    await check('a moment posts no per-vertex arrays where the worker draws the views', async () => {
      const bytes = {};
      for (const [path, search] of [['gpu', 'scene=sheet&p.resolution=64'], ['three.js', 'scene=sheet&p.resolution=64&gpuviews=0']]) {
        await openLab(page, base, search);
        bytes[path] = await page.evaluate(async () => {
          const p = window.sfPage, input = document.getElementById('param-twist');
          const m0 = { ...p.messages }, runs0 = p.runs;
          for (let i = 1; i <= 10; ++i) {
            input.value = String(10 * i);
            input.dispatchEvent(new Event('input', { bubbles: true }));
            // one moment at a time: each input's answer and its GPU check before the next
            const check0 = p.gpu.check?.runs || 0;
            while (p.busy || p.views.busy || p.gpu.busy || (p.gpu.check?.runs || 0) === check0) await new Promise((r) => setTimeout(r, 20));
          }
          const moments = p.runs - runs0;
          return { vertices: p.view().vertexCount, moments, messages: p.messages.count - m0.count, bytes: p.messages.bytes - m0.bytes,
            perMoment: (p.messages.bytes - m0.bytes) / moments, errors: p.errors };
        });
        assert.deepEqual(bytes[path].errors, [], `${path}: errors`);
      }
      result.messages = bytes;
      const g = bytes.gpu, t = bytes['three.js'];
      console.log(`  # bytes from the worker per moment, sheet of ${g.vertices} vertices: ${Math.round(g.perMoment)} (GPU-drawn views), ${Math.round(t.perMoment)} (three.js views), ratio ${(g.perMoment / t.perMoment).toExponential(2)}`);
      assert.ok(g.perMoment <= MOMENT_BYTES, `${g.perMoment} bytes a moment`);
      // the three.js path's arrays: a position and a normal per vertex at least (the check can fail)
      assert.ok(t.perMoment > 24 * t.vertices, `three.js path: ${t.perMoment} bytes a moment`);
    });
  } finally {
    writeFileSync(join(artifacts, 'webgpu-views.json'), JSON.stringify(result, (k, v) => (k === 'centre' ? v.map((c) => Array.from(c)) : v), 1));
    await page.close();
  }
}
