// The article and the narrow-screen layout in headless chromium (driven by browser.mjs, which builds and serves
// the page): every section's equation, listing and live demo; a click on an equation term marks a code line; a
// demo's "open in the lab" address reproduces its state; at 390x844 the lab stacks views at least 150 px wide
// without horizontal scrolling. Screenshots per section go to the artifacts folder.
import assert from 'node:assert/strict';
import { join } from 'node:path';

// Fraction of non-background pixels of each view canvas inside a demo's frame.
async function demoPixels(frame) {
  return frame.evaluate(() => ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error'].map((id) => {
    const c = document.getElementById(id);
    if (!c.offsetWidth) return null; // a pair demo hides the error views
    const off = document.createElement('canvas');
    off.width = 64; off.height = 48;
    const ctx = off.getContext('2d');
    ctx.drawImage(c, 0, 0, 64, 48);
    const d = ctx.getImageData(0, 0, 64, 48).data;
    let lit = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 13) + Math.abs(d[i + 1] - 14) + Math.abs(d[i + 2] - 17) > 24) ++lit;
    return lit / (64 * 48);
  }));
}

async function demoFrame(page, section) {
  const el = page.locator(`section[data-section="${section}"] .demo`).first();
  await el.scrollIntoViewIfNeeded();
  const handle = await el.locator('iframe').elementHandle({ timeout: 20000 });
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => window.sfPage?.ready && window.sfPage.runs > 0 || window.sfPage?.errors.length, null, { timeout: 60000 });
  await frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.deepEqual(await frame.evaluate(() => window.sfPage.errors), [], `${section}: demo errors`);
  return frame;
}

export async function articleChecks(browser, url, artifacts, check) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}index.html`);
  await page.waitForFunction(() => window.sfArticle?.ready, null, { timeout: 30000 });
  const sections = await page.$$eval('section[data-section]', (s) => s.map((x) => x.dataset.section));
  for (const section of sections) {
    await check(`article section ${section}`, async () => {
      const sel = `section[data-section="${section}"]`;
      const has = await page.$eval(sel, (s) => ({
        equations: s.querySelectorAll('.equation .katex').length, wanted: s.querySelectorAll('.equation').length,
        code: s.querySelectorAll('.code .listing .line.method').length, codeBlocks: s.querySelectorAll('.code').length,
        demos: s.querySelectorAll('.demo').length,
      }));
      assert.equal(has.equations, has.wanted, 'every equation typeset');
      if (has.codeBlocks) assert.ok(has.code > 0, 'the listing marks the method\'s lines');
      if (has.demos) {
        const frame = await demoFrame(page, section);
        const px = await demoPixels(frame);
        for (const [i, p] of px.entries()) if (p !== null) assert.ok(p > 0.01, `view ${i} blank (${p})`);
      }
      await page.locator(sel).screenshot({ path: join(artifacts, `article-${section}.png`) });
    });
  }
  await check('article: an equation term marks its code line in every language', async () => {
    const sel = 'section[data-section="skinned"]';
    for (const lang of ['wgsl', 'glsl', 'hlsl']) {
      await page.click(`${sel} .tabs button[data-lang="${lang}"]`);
      await page.click(`${sel} .equation [data-term="normal"]`);
      const hit = await page.$$eval(`${sel} .listing[data-lang="${lang}"] .line.hit`, (l) => l.map((x) => x.textContent));
      assert.equal(hit.length, 1, `${lang}: ${hit.length} lines marked`);
      assert.match(hit[0], /mn/, `${lang}: the marked line transforms the normal: ${hit[0]}`);
    }
  });
  await check('article: a demo opens the lab with its state', async () => {
    const href = await page.$eval('section[data-section="morph"] .lab-link', (a) => a.href);
    const lab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await lab.goto(href);
    await lab.waitForFunction(() => window.sfPage?.ready && window.sfPage.runs > 0, null, { timeout: 60000 });
    const s = await lab.evaluate(() => ({ st: window.sfPage.state, md: document.getElementById('morph-directions').checked }));
    assert.equal(s.st.scene, 'sheet');
    assert.equal(s.st.morph['towel-twist'], 1);
    assert.equal(s.st.options.morphDirections, 1);
    assert.equal(s.md, false);
    await lab.close();
  });
  await check('article: no page errors', async () => assert.deepEqual(errors, []));
  await page.close();

  // A phone: the lab's views stacked, each at least 150 px wide, no horizontal scroll; the article likewise.
  await check('390x844: lab views >= 150 px wide, no horizontal scroll', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await phone.goto(`${url}lab.html?scene=sheet&preset=bone-bend`);
    await phone.waitForFunction(() => window.sfPage?.ready && window.sfPage.runs > 0, null, { timeout: 60000 });
    const m = await phone.evaluate(() => ({
      widths: ['view-method', 'view-reference', 'view-normal-error', 'view-tangent-error'].map((id) => document.getElementById(id).getBoundingClientRect().width),
      scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth,
    }));
    for (const w of m.widths) assert.ok(w >= 150, `a view is ${w} px wide`);
    assert.ok(m.scroll <= m.inner, `page ${m.scroll} px wide in a ${m.inner} px window`);
    await phone.screenshot({ path: join(artifacts, 'phone-lab.png'), fullPage: true });
    await phone.click('#drawer-toggle');
    assert.ok(await phone.isVisible('#preset'), 'the drawer opens the controls');
    await phone.goto(`${url}index.html`);
    await phone.waitForFunction(() => window.sfArticle?.ready);
    const a = await phone.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(a.scroll <= a.inner, `article ${a.scroll} px wide in a ${a.inner} px window`);
    await phone.close();
  });
}
