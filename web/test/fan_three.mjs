// web/three/skinframe-fan.js in Debian's headless chromium (WebGL2 on SwiftShader): CesiumMan, Fox and
// AnimatedMorphCube as the library poses them (tests/three/fan_dump.c: rest streams, influences, morph deltas,
// bone matrices, morph weights, the jacobian-fan attributes as float and as snorm16, the library's frames), each
// drawn by three.js as a SkinnedMesh with a MeshStandardMaterial patched by the module. The test's own patch
// draws every vertex as one point of a float render target holding its object-space normal (then tangent); the
// read-back values must be within 0.01 degrees of the library's jacobian-fan.
//   node web/test/fan_three.mjs      (SF_FAN_DUMP: the fan_dump program, default build/tests/fan_dump)
// Exit 77 (CTest's skip) when chromium, web/node_modules or fan_dump is missing; 1 on a failed check.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { extname, join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const chromium = process.env.SF_CHROMIUM || '/usr/bin/chromium';
const dumper = process.env.SF_FAN_DUMP || resolve(root, 'build/tests/fan_dump');
const three = resolve(root, 'web/node_modules/three/build');
const TOLERANCE_DEG = 0.01;
const ASSETS = ['CesiumMan/glTF-Binary/CesiumMan.glb', 'Fox/glTF-Binary/Fox.glb',
  'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb'].map((a) => resolve(root, 'tests/assets/gltf', a));

const skip = (why) => { console.log(`fan_three skipped: ${why}`); process.exit(process.env.CI === 'true' ? 1 : 77); };
if (!existsSync(chromium)) skip(`${chromium} missing (SF_BOOTSTRAP_VIEWER=1 scripts/bootstrap.sh)`);
if (!existsSync(three)) skip('web/node_modules missing (cd web && npm ci)');
if (!existsSync(dumper)) skip(`${dumper} missing (build the native tests first)`);
let playwright;
try { playwright = await import('playwright-core'); } catch { skip('playwright-core missing (cd web && npm ci)'); }

const data = execFileSync(dumper, ASSETS, { maxBuffer: 1 << 28 });

const PAGE = `<!doctype html><html><body>
<script type="importmap">{"imports":{"three":"/three/three.module.js"}}</script>
<script type="module" src="/page.js"></script></body></html>`;

// In the page: one case, one encoding -> the largest normal and tangent angles to the library's frames.
const PAGE_JS = `
import * as THREE from 'three';
import { applySkinframeFan } from '/fan/skinframe-fan.js';

const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.toneMapping = THREE.NoToneMapping;

function geometryOf(c, enc) {
  const n = c.vertices, g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(c.position), 3));
  g.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(c.normal), 3));
  if (c.hasTangents) g.setAttribute('tangent', new THREE.BufferAttribute(new Float32Array(c.tangent), 4));
  g.setAttribute('skinIndex', new THREE.BufferAttribute(new Uint16Array(c.skinIndex), 4));
  g.setAttribute('skinWeight', new THREE.BufferAttribute(new Float32Array(c.skinWeight), 4));
  const f = enc === 'snorm16' ? c.fanSnorm : c.fanFloat;
  const snorm = enc === 'snorm16';
  const vec = (arr, at, size, k) => snorm && k !== 'f' ? new THREE.BufferAttribute(new Int16Array(arr.slice(at, at + size * n)), size, true)
                                                        : new THREE.BufferAttribute(new Float32Array(arr.slice(at, at + size * n)), size);
  g.setAttribute('_skinframe_fan_normal', new THREE.BufferAttribute(new Float32Array(f.normal), 3));
  for (let k = 0; k < f.groups; ++k)
    g.setAttribute('_skinframe_fan_joints_' + k, new THREE.BufferAttribute(new Uint16Array(f.joints.slice(4 * n * k, 4 * n * (k + 1))), 4));
  for (let k = 0; k < 6 * f.groups; ++k) g.setAttribute('_skinframe_fan_' + k, vec(f.coef, 4 * n * k, 4));
  if (snorm) {
    const s = [new Float32Array(4 * n), new Float32Array(4 * n)];
    for (let v = 0; v < n; ++v) for (let i = 0; i < 8; ++i) s[i >> 2][4 * v + (i & 3)] = f.scale[8 * v + i];
    g.setAttribute('_skinframe_fan_scale_0', new THREE.BufferAttribute(s[0], 4));
    g.setAttribute('_skinframe_fan_scale_1', new THREE.BufferAttribute(s[1], 4));
  }
  if (c.targets) {
    g.morphAttributes.position = [];
    g.morphAttributes._skinframe_fan_du = [];
    g.morphAttributes._skinframe_fan_dv = [];
    for (let k = 0; k < c.targets; ++k) {
      g.morphAttributes.position.push(new THREE.BufferAttribute(new Float32Array(c.morphPosition.slice(3 * n * k, 3 * n * (k + 1))), 3));
      g.morphAttributes._skinframe_fan_du.push(vec(f.morph, 3 * n * 2 * k, 3));
      g.morphAttributes._skinframe_fan_dv.push(vec(f.morph, 3 * n * (2 * k + 1), 3));
    }
    g.morphTargetsRelative = true;
  }
  return g;
}

window.runCase = (c, enc) => {
  const n = c.vertices, W = 256, H = Math.ceil(n / W);
  const geometry = geometryOf(c, enc);
  // a normal map turns three.js's tangents on (USE_TANGENT), so the tangent can be read back too
  const flat = new THREE.DataTexture(new Uint8Array([128, 128, 255, 255]), 1, 1);
  flat.needsUpdate = true;
  const material = new THREE.MeshStandardMaterial({ normalMap: c.hasTangents ? flat : null });
  material.blending = THREE.NoBlending;
  material.depthTest = false;
  material.toneMapped = false;
  const out = { value: 0 };
  // the test's readout: each vertex one point at its own pixel, holding objectNormal (0) or objectTangent (1)
  material.onBeforeCompile = (shader) => {
    shader.uniforms.sfOut = out;
    shader.vertexShader = shader.vertexShader
      .replace('void main() {', 'uniform int sfOut;\\nflat varying vec3 vSfOut;\\nvoid main() {')
      .replace('#include <fog_vertex>', \`#include <fog_vertex>
        vSfOut = objectNormal;
      #ifdef USE_TANGENT
        if (sfOut == 1) vSfOut = objectTangent;
      #endif
        int sfV = gl_VertexID;
        gl_Position = vec4((float(sfV % \${W}) + 0.5) / \${W}.0 * 2.0 - 1.0, (float(sfV / \${W}) + 0.5) / \${H}.0 * 2.0 - 1.0, 0.0, 1.0);
        gl_PointSize = 1.0;\`);
    shader.fragmentShader = shader.fragmentShader
      .replace('void main() {', 'flat varying vec3 vSfOut;\\nvoid main() {')
      .replace('#include <dithering_fragment>', '#include <dithering_fragment>\\n  gl_FragColor = vec4(vSfOut, 1.0);');
  };
  const bones = [], inverses = [];
  for (let b = 0; b < c.boneCount; ++b) {
    const bone = new THREE.Bone(), m = c.bones.slice(12 * b, 12 * b + 12);
    bone.matrixWorld.set(m[0], m[3], m[6], m[9], m[1], m[4], m[7], m[10], m[2], m[5], m[8], m[11], 0, 0, 0, 1);
    bone.matrixWorldAutoUpdate = bone.matrixAutoUpdate = false;
    bones.push(bone);
    inverses.push(new THREE.Matrix4());
  }
  const mesh = new THREE.SkinnedMesh(geometry, material);
  mesh.bind(new THREE.Skeleton(bones, inverses), new THREE.Matrix4());
  mesh.frustumCulled = false;
  if (c.targets) mesh.morphTargetInfluences.splice(0, c.targets, ...c.morphWeights);
  applySkinframeFan(material, mesh);
  mesh.isMesh = false; // drawn as points: one pixel per vertex
  mesh.isPoints = true;
  const scene = new THREE.Scene();
  scene.add(mesh);
  const target = new THREE.WebGLRenderTarget(W, H, { type: THREE.FloatType, depthBuffer: false });
  const camera = new THREE.Camera();
  const worst = [0, 0];
  for (const mode of c.hasTangents ? [0, 1] : [0]) {
    out.value = mode;
    renderer.setRenderTarget(target);
    renderer.setClearColor(0x000000, 0);
    renderer.clear();
    renderer.render(scene, camera);
    const px = new Float32Array(4 * W * H);
    renderer.readRenderTargetPixels(target, 0, 0, W, H, px);
    const want = mode ? c.expectedTangent : c.expectedNormal, stride = mode ? 4 : 3;
    for (let v = 0; v < n; ++v) {
      const a = [px[4 * v], px[4 * v + 1], px[4 * v + 2]], b = [want[stride * v], want[stride * v + 1], want[stride * v + 2]];
      const la = Math.hypot(...a), lb = Math.hypot(...b);
      let d = 0;
      if (la === 0 || lb === 0) d = la === lb ? 0 : 180;
      else {
        const cr = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        d = Math.atan2(Math.hypot(...cr), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180 / Math.PI;
      }
      if (d > worst[mode]) worst[mode] = d;
    }
  }
  target.dispose();
  geometry.dispose();
  material.dispose();
  flat.dispose();
  return worst;
};
window.ready = true;
`;

const TYPES = { '.js': 'text/javascript', '.html': 'text/html', '.json': 'application/json' };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let body = null, type = 'text/javascript';
  if (path === '/') { body = PAGE; type = 'text/html'; }
  else if (path === '/favicon.ico') { res.writeHead(204); res.end(); return; }
  else if (path === '/page.js') body = PAGE_JS;
  else if (path === '/data.json') { body = data; type = 'application/json'; }
  else {
    const base = path.startsWith('/three/') ? three : path.startsWith('/fan/') ? resolve(root, 'web/three') : null;
    const file = base ? join(base, path.replace(/^\/(three|fan)\//, '')) : null;
    if (file && file.startsWith(base) && existsSync(file) && statSync(file).isFile()) {
      body = readFileSync(file);
      type = TYPES[extname(file)] || 'application/octet-stream';
    }
  }
  if (body === null) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'Content-Type': type });
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await playwright.chromium.launch({
  executablePath: chromium, headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
let failed = 0;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60000 });
  const cases = await page.evaluate(async () => (await (await fetch('/data.json')).json()).cases.map((c) => c.name));
  for (let i = 0; i < cases.length; ++i)
    for (const enc of ['float', 'snorm16']) {
      const [dn, dt] = await page.evaluate(async ([k, e]) => {
        const all = window.sfData || (window.sfData = (await (await fetch('/data.json')).json()).cases);
        return window.runCase(all[k], e);
      }, [i, enc]);
      const ok = dn <= TOLERANCE_DEG && dt <= TOLERANCE_DEG;
      failed += !ok;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${cases[i]} ${enc}: normals ${dn.toExponential(2)} deg, tangents ${dt.toExponential(2)} deg`);
    }
  if (errors.length) { console.log(`FAIL page errors:\n${errors.join('\n')}`); ++failed; }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
