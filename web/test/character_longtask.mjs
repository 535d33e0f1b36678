// Long tasks while a whole character plays and while its time is scrubbed: the library's asset evaluation runs
// in a worker (web/src/character_answer.js: the character worker, or with WebGPU the scene worker, which also runs
// the moment's GPU passes and draws the views), so the main thread only poses the drawn primitive and draws. A PerformanceObserver (type longtask) records every main-thread task over 50 ms. On the biggest staged
// multi-primitive asset (MorphStressTest, 2 primitives) and on Fox drawn 59 times (bench/primitives.py, 59
// primitive instances), twice, as longtask_checks.mjs does: with the views' drawing left out (the page's own
// work: held to 50 ms without WebGPU, reported with it) and with drawing, whose cost here is SwiftShader
// rasterizing four views on the CPU (reported). Numbers go to character-longtask-MODE.json.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

async function measure(page, scrubs, draw) {
  return page.evaluate(async ([inputs, withDraw]) => {
    const p = window.sfPage;
    // the views' last drawing finished (its fences signalled) before the drawing is left out
    while (p.views.busy || p.views.dirty) await new Promise((r) => requestAnimationFrame(r));
    const render = p.views.render;
    if (!withDraw) p.views.render = () => { p.views.dirty = false; p.views.stale?.fill(false); }; // views drawn over frames: none left
    const tasks = [];
    const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration); });
    obs.observe({ type: 'longtask' });
    const idle = async () => {
      const end = performance.now() + 60000;
      while (p.busy || p.characterBusy || p.views.busy || p.views.dirty) {
        if (performance.now() > end) throw new Error(`still busy after 60 s: page ${p.busy}, character ${p.characterBusy}, views ${p.views.busy} ${p.views.dirty}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    };
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    p.timing.characterMainMax = 0;
    const tables0 = p.character().tables;
    // playing: the clip from its start for up to 2 s (or to its end)
    const play = document.getElementById('play');
    const t0 = performance.now();
    play.click();
    while (document.getElementById('play').textContent === 'Pause' && performance.now() - t0 < 2000) await frame();
    if (play.textContent === 'Pause') play.click();
    await idle();
    const playing = { tasks: tasks.splice(0), ms: Math.round(performance.now() - t0), tables: p.character().tables - tables0 };
    // scrubbing: one input per animation frame across the clip
    const scrub = document.getElementById('scrub');
    const tables1 = p.character().tables, t1 = performance.now();
    for (let i = 1; i <= inputs; ++i) {
      await frame();
      scrub.value = String(i / inputs * 0.9);
      scrub.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await idle();
    await new Promise((r) => setTimeout(r, 100));
    obs.disconnect();
    p.views.render = render;
    const scrubbing = { tasks, ms: Math.round(performance.now() - t1), tables: p.character().tables - tables1 };
    const c = p.character();
    const round = (r) => ({ ...r, maxTaskMs: r.tasks.length ? Math.round(Math.max(...r.tasks)) : 0, tasks: r.tasks.map(Math.round) });
    return { playing: round(playing), scrubbing: round(scrubbing), inputs, units: c.units, vertices: c.vertices,
      workerMs: Math.round(c.workerMs), mainMs: Number(p.timing.characterMainMax.toFixed(1)), tableTime: c.time, time: window.sfPage.duration() * 0.9, errors: p.errors };
  }, [scrubs, draw]);
}

export async function characterLongTaskCheck(page, mode, artifacts, assets, root, check) {
  await check('whole character while playing and scrubbing (MorphStressTest, Fox x 59): long tasks', async () => {
    const fox59 = join(artifacts, 'Fox59.glb');
    const made = spawnSync('python3', [join(root, 'bench/primitives.py'), join(assets, 'Fox/glTF-Binary/Fox.glb'), '59', fox59], { encoding: 'utf8' });
    assert.equal(made.status, 0, `bench/primitives.py: ${made.stderr}`);
    const results = [];
    for (const [file, units] of [[join(assets, 'MorphStressTest/glTF-Binary/MorphStressTest.glb'), 2], [fox59, 59]]) {
      const name = file.split('/').pop();
      await page.setInputFiles('#file', file);
      await page.waitForFunction((n) => document.getElementById('message').textContent.startsWith(`${n}: `), name, { timeout: 120000 });
      await page.waitForFunction(() => !window.sfPage.characterBusy && window.sfPage.character()?.tables > 0, null, { timeout: 120000 });
      const r = { mode, name, ...(await measure(page, 30, false)) };
      r.withDrawing = await measure(page, 30, true);
      results.push(r);
      for (const [what, x] of [['without drawing', r], ['with drawing', r.withDrawing]])
        console.log(`  # ${mode}: ${name} (${r.units} primitive instances, ${r.vertices} vertices, ${x.workerMs} ms a moment in the worker, at most ${x.mainMs} ms on the main thread to draw a table), ${what}: ` +
          `largest main-thread task playing ${x.playing.maxTaskMs} ms (${x.playing.tables} tables in ${x.playing.ms} ms), ` +
          `scrubbing ${x.scrubbing.maxTaskMs} ms (${x.scrubbing.tables} tables for ${x.inputs} inputs in ${x.scrubbing.ms} ms)`);
      assert.deepEqual(r.errors, [], `${name}: errors`);
      assert.equal(r.units, units, `${name}: primitive instances`);
      assert.ok(r.playing.tables > 0 && r.scrubbing.tables > 0, `${name}: no table while playing or scrubbing`);
      assert.ok(Math.abs(r.tableTime - r.time) < 1e-9, `${name}: the table is at ${r.tableTime} s, the last input at ${r.time} s`);
      // coalesced: the worker takes longer per moment than a frame, so it answers fewer times than it is asked
      if (units === 59) assert.ok(r.scrubbing.tables < r.inputs, `${name}: ${r.scrubbing.tables} tables for ${r.inputs} inputs`);
      if (mode === 'webgl2')
        for (const [what, x] of [['playing', r.playing], ['scrubbing', r.scrubbing]])
          assert.ok(x.maxTaskMs < 50, `${name} ${what}: a ${x.maxTaskMs} ms main-thread task (${x.tasks})`);
    }
    writeFileSync(join(artifacts, `character-longtask-${mode}.json`), JSON.stringify(results, null, 1));
  });
}
