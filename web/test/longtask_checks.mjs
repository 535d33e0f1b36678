// Long tasks while a slider is dragged on the sheet at resolution 256 ((5 * 256 + 1) * 257 = 329,217 vertices):
// a PerformanceObserver (type longtask) records every main-thread task over 50 ms from the first of 30 inputs
// (one per animation frame; 6 with drawing) to the last evaluation drawn and, with WebGPU, checked against the GPU
// passes. Twice: with the views' drawing left out, which measures the page's own work (the core runs in a worker
// on both paths, and with WebGPU that worker also runs the GPU passes and compares their frames with the core's:
// no task may exceed 50 ms without WebGPU, WEBGPU_TASK_MS with it, see below), and with drawing,
// whose cost here is SwiftShader rasterizing four views on the CPU (reported, not bounded). Numbers go to
// longtask-MODE.json.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WEBGPU_TASK_MS = 250;

async function drag(page, draw) {
  return page.evaluate(async (withDraw) => {
    const views = window.sfPage.views;
    const render = views.render;
    if (!withDraw) views.render = () => { views.dirty = false; };
    const tasks = [];
    const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration); });
    obs.observe({ type: 'longtask' });
    const input = document.getElementById('param-twist');
    const runs0 = window.sfPage.runs, base = withDraw ? 200 : 0;
    const t0 = performance.now();
    const inputs = withDraw ? 6 : 30;
    for (let i = 1; i <= inputs; ++i) {
      await new Promise((r) => requestAnimationFrame(r));
      input.value = String(base + i * 4);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
    const gpuRuns = () => window.sfPage.gpu.check?.runs || 0;
    const gpu0 = gpuRuns();
    const limit = window.sfPage.gpu.limit; // a mesh over the adapter's limits leaves the GPU check off
    const gpuOn = window.sfPage.gpu.backend === 'webgpu' && limit && limit.need <= limit.limit && !(limit.groups > limit.maxGroups);
    const gpuBusy = () => gpuOn && (window.sfPage.gpu.busy || gpuRuns() === gpu0);
    while (window.sfPage.busy || gpuBusy() || (withDraw && (views.busy || views.dirty))) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await new Promise((r) => setTimeout(r, 100));
    obs.disconnect();
    views.render = render;
    return { inputs, longTasks: tasks.map((t) => Math.round(t)), maxTaskMs: tasks.length ? Math.max(...tasks) : 0,
      evaluations: window.sfPage.runs - runs0, totalMs: Math.round(performance.now() - t0), twist: window.sfPage.state.values.twist,
      evaluationMs: Math.round(window.sfPage.timing.wasm), drawSubmitMs: Math.round(window.sfPage.timing.draw),
      reposed: !!window.sfPage.view().reposed, gpuChecks: gpuRuns() - gpu0, gpuOk: window.sfPage.gpu.check?.ok ?? null };
  }, draw);
}

export async function longTaskCheck(page, mode, artifacts, check) {
  await check('dragging a slider at sheet resolution 256: long tasks', async () => {
    await page.goto(page.url().replace(/\?.*$/, '') + '?scene=sheet&p.resolution=256');
    await page.waitForFunction(() => window.sfPage?.ready && window.sfPage.runs > 0 && !window.sfPage.busy, null, { timeout: 120000 });
    const info = await page.evaluate(() => ({ worker: window.sfPage.worker, vertices: window.sfPage.view().vertexCount }));
    const compute = await drag(page, false);
    const drawn = await drag(page, true);
    const after = await page.evaluate(() => ({ errors: window.sfPage.errors, gpuLimit: window.sfPage.gpu.limit || null }));
    const result = { mode, ...info, withoutDrawing: compute, withDrawing: drawn, gpuLimit: after.gpuLimit };
    // a new mesh per input while a WebGPU read-back is in flight: no "destroyed before mapping" or other error
    assert.deepEqual(after.errors, [], 'errors while dragging');
    for (const [what, r] of [['without drawing', compute], ['with drawing', drawn]])
      console.log(`  # ${mode}: resolution 256 drag ${what}: ${info.vertices} vertices, worker ${info.worker}, ${r.evaluations} evaluations for ${r.inputs} inputs in ${r.totalMs} ms, largest main-thread task ${r.maxTaskMs.toFixed(0)} ms (${r.longTasks.length} over 50 ms), last evaluation ${r.evaluationMs} ms (${info.worker ? 'worker' : 'main thread'}), last draw submitted in ${r.drawSubmitMs} ms`);
    writeFileSync(join(artifacts, `longtask-${mode}.json`), JSON.stringify(result, null, 1));
    assert.equal(info.vertices, 329217);
    assert.equal(compute.twist, 4 * compute.inputs, 'the last input wins');
    assert.equal(drawn.twist, 200 + 4 * drawn.inputs, 'the last input wins');
    assert.ok(info.worker, 'the core runs in a worker');
    assert.ok(compute.reposed && drawn.reposed, 'a pose slider re-poses the open scene');
    assert.ok(compute.evaluations < 30, `inputs coalesced: ${compute.evaluations} evaluations`);
    // With WebGPU the worker runs the GPU passes too and the page uploads nothing, but SwiftShader computes them
    // on the same 2 shared cores and the drag lasts until its check of 329k vertices ends (tens of seconds
    // against a few): ordinary tasks stretched by that load still pass 50 ms there (docs/benchmarks.md), so
    // that path is held to WEBGPU_TASK_MS.
    const bound = mode === 'webgpu' ? WEBGPU_TASK_MS : 50;
    assert.ok(compute.maxTaskMs <= bound, `a ${compute.maxTaskMs} ms task on the main thread: ${compute.longTasks}`);
    if (mode === 'webgpu') {
      assert.ok(compute.gpuChecks > 0 && drawn.gpuChecks > 0, 'the GPU passes checked the worker\'s frames');
      assert.ok(compute.gpuOk && drawn.gpuOk, 'the GPU passes equal the worker\'s frames within 1e-3 deg');
    }
  });
}
