// The views the scene worker draws with WebGPU from the GPU passes' buffers (web/src/gpu_views.js) against
// views.js's three.js drawing of the same state (the lab with gpuviews=0: the worker sends the core's arrays
// and three.js draws them), pixel by pixel; and what a moment posts from the worker to the page on each.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
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
