// The page's posed positions against the native library's, on every staged asset (tests/assets/gltf) at a few
// times of every animation (the rest pose for a file without one). Page side: three.js's GLTFLoader and
// AnimationMixer, the arrays and per-frame bone matrices and weights web/src/gltf.js builds, the wasm core's
// positions (world space). Native side: `skinframe bake FILE --animation A --time T --method skinned`, whose
// .glb has one node per primitive instance, its matrix taking the posed positions to the world. The two are
// compared per triangle corner (the native loader splits vertices for flat normals and MikkTSpace; both keep
// the file's triangle order), primitives paired by triangle count and then by distance; both in the world and
// in the instance's own space (the core's positions, before the matrix to the world). Bound: 5e-7 of the
// asset's world bounding-box diagonal (at that pose), and of the primitive's own in its space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { cliPath, haveCli, loadCore, root } from './helpers.mjs';
import { METHODS } from '../src/skinframe.js';

// three.js comes from web/node_modules (npm ci, as `make viewer` does); without it these tests are skipped.
let THREE = null, page = null;
try {
  THREE = await import('three');
  page = await import('../src/gltf.js');
} catch {
  THREE = null;
}
const skipWhy = !THREE ? 'no three.js in web/node_modules (npm ci in web/)' : !haveCli() ? `no native command at ${cliPath}` : false;

const BOUND = 5e-7;
// three.js's FileLoader (the inlined buffers go through fetch) reports progress with the DOM's ProgressEvent.
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, { lengthComputable: false, loaded: 0, total: 0 }, init);
  }
};
const assetsDir = resolve(root, 'tests/assets/gltf');

function findAssets(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findAssets(p));
    else if (/\.(glb|gltf)$/i.test(name)) out.push(p);
  }
  return out;
}

// A .glb's JSON and binary chunk.
function readGlb(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(dv.getUint32(0, true), 0x46546c67, 'glb magic');
  let at = 12, json = null, bin = null;
  while (at + 8 <= bytes.byteLength) {
    const len = dv.getUint32(at, true), type = dv.getUint32(at + 4, true);
    const body = bytes.subarray(at + 8, at + 8 + len);
    if (type === 0x4e4f534a) json = JSON.parse(new TextDecoder().decode(body));
    else if (type === 0x004e4942) bin = body;
    at += 8 + len;
  }
  return { json, bin };
}

// The file as a .glb-free ArrayBuffer for GLTFLoader.parse in node: images, textures and samplers dropped
// (node has no image decoder; positions do not need them), external buffers inlined as data: URIs.
function pageInput(path) {
  const bytes = readFileSync(path);
  let json, bin = null;
  if (/\.glb$/i.test(path)) ({ json, bin } = readGlb(bytes));
  else {
    json = JSON.parse(bytes.toString('utf8'));
    for (const b of json.buffers || [])
      if (b.uri && !b.uri.startsWith('data:'))
        b.uri = 'data:application/octet-stream;base64,' + readFileSync(join(dirname(path), decodeURIComponent(b.uri))).toString('base64');
  }
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials || []) {
    for (const k of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) delete m[k];
    if (m.pbrMetallicRoughness) {
      delete m.pbrMetallicRoughness.baseColorTexture;
      delete m.pbrMetallicRoughness.metallicRoughnessTexture;
    }
    delete m.extensions;
  }
  const text = new TextEncoder().encode(JSON.stringify(json));
  if (!bin) return text.buffer.slice(text.byteOffset, text.byteOffset + text.byteLength);
  const jlen = (text.length + 3) & ~3, blen = (bin.length + 3) & ~3;
  const out = new Uint8Array(12 + 8 + jlen + 8 + blen);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, out.length, true);
  dv.setUint32(12, jlen, true); dv.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jlen); out.set(text, 20);
  dv.setUint32(20 + jlen, blen, true); dv.setUint32(24 + jlen, 0x004e4942, true);
  out.set(bin, 28 + jlen);
  return out.buffer;
}

const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };
const TYPES = { 5121: Uint8Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array };

function accessor(json, bin, index) {
  const a = json.accessors[index], v = json.bufferViews[a.bufferView];
  const width = COMPONENTS[a.type], Type = TYPES[a.componentType];
  const size = Type.BYTES_PER_ELEMENT, stride = v.byteStride || width * size;
  const base = (v.byteOffset || 0) + (a.byteOffset || 0);
  const dv = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  const out = new Float64Array(a.count * width);
  for (let i = 0; i < a.count; ++i)
    for (let c = 0; c < width; ++c) {
      const at = base + i * stride + c * size;
      out[i * width + c] = size === 4 ? (Type === Float32Array ? dv.getFloat32(at, true) : dv.getUint32(at, true))
        : size === 2 ? dv.getUint16(at, true) : dv.getUint8(at);
    }
  return out;
}

// World positions per triangle corner (Float64Array, 9 per triangle) of positions[3n] under indices (or none).
function corners(positions, indices, triangles, m = null) {
  const out = new Float64Array(9 * triangles);
  for (let c = 0; c < 3 * triangles; ++c) {
    const v = indices ? indices[c] : c;
    const x = positions[3 * v], y = positions[3 * v + 1], z = positions[3 * v + 2];
    if (m) {
      out[3 * c] = m[0] * x + m[4] * y + m[8] * z + m[12];
      out[3 * c + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
      out[3 * c + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    } else out.set([x, y, z], 3 * c);
  }
  return out;
}

// The native posed primitives: [{ triangles, corners }] from the baked .glb.
function nativePrimitives(file, anim, time, dir) {
  const out = join(dir, 'posed.glb');
  const args = ['bake', file, '--time', String(time), '--method', 'skinned', '-o', out, '--force'];
  if (anim !== null) args.push('--animation', String(anim));
  execFileSync(cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const { json, bin } = readGlb(readFileSync(out));
  const prims = [];
  for (const node of json.nodes || []) {
    if (node.mesh === undefined) continue;
    const m = node.matrix || [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    for (const p of json.meshes[node.mesh].primitives) {
      const pos = accessor(json, bin, p.attributes.POSITION);
      const idx = p.indices !== undefined ? accessor(json, bin, p.indices) : null;
      const triangles = Math.floor((idx ? idx.length : pos.length / 3) / 3);
      prims.push({ name: node.name, triangles, corners: corners(pos, idx, triangles, m), local: corners(pos, idx, triangles) });
    }
  }
  return prims;
}

function maxDiff(a, b) {
  let d = 0;
  for (let i = 0; i < a.length; i += 3)
    d = Math.max(d, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return d;
}

function diagonal(prims) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const p of prims)
    for (let i = 0; i < p.corners.length; ++i) {
      lo[i % 3] = Math.min(lo[i % 3], p.corners[i]);
      hi[i % 3] = Math.max(hi[i % 3], p.corners[i]);
    }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

const assets = findAssets(assetsDir);
const results = [];

test('the staged assets are there', () => {
  assert.ok(assets.length >= 10, `${assets.length} assets under ${assetsDir}`);
});

for (const file of assets) {
  const label = file.slice(assetsDir.length + 1);
  test(`posed positions: page (three.js + wasm) = native (${label})`, { skip: skipWhy }, async () => {
    const { parseGltf, meshCandidates, meshArrays, writePose, startClip, poseScene } = page;
    const sf = await loadCore();
    const gltf = await parseGltf(pageInput(file));
    const objects = meshCandidates(gltf);
    const views = objects.map((o) => sf.createMesh(meshArrays(o)));
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const clips = gltf.animations.length ? gltf.animations.map((c, i) => [i, c]) : [[null, null]];
    const dir = mkdtempSync(join(tmpdir(), 'sf-positions-'));
    let worst = 0, worstLocal = 0, poses = 0;
    try {
      for (const [anim, clip] of clips) {
        const action = startClip(mixer, clip);
        const d = clip ? clip.duration : 0;
        for (const t of clip ? [0, 0.67 * d, d, 0.31 * d] : [0]) {
          const native = nativePrimitives(file, anim, t, dir);
          poseScene(gltf.scene, mixer, action, t);
          const page = objects.map((o, i) => {
            const v = views[i];
            const toWorld = writePose(o, v.bones, v.morph);
            v.run();
            return { name: o.name, triangles: v.triangleCount, corners: corners(v.positions, v.indices, v.triangleCount, toWorld),
              local: corners(v.positions, v.indices, v.triangleCount) };
          });
          assert.equal(page.length, native.length, `${label} t=${t}: ${page.length} page meshes, ${native.length} native primitives`);
          const diag = diagonal(native);
          assert.ok(diag > 0, `${label}: empty bounding box`);
          // Pair each native primitive with the closest unpaired page mesh of the same triangle count.
          const free = new Set(page.keys());
          for (const n of native) {
            let best = -1, bestD = Infinity;
            for (const k of free)
              if (page[k].triangles === n.triangles) {
                const dk = maxDiff(page[k].corners, n.corners);
                if (dk < bestD) { bestD = dk; best = k; }
              }
            assert.ok(best >= 0, `${label} t=${t}: no page mesh with ${n.triangles} triangles for ${n.name}`);
            free.delete(best);
            const rel = bestD / diag;
            worst = Math.max(worst, rel);
            assert.ok(rel <= BOUND, `${label} animation ${anim} t=${t.toFixed(4)}: ${n.name} differs by ` +
              `${bestD.toExponential(3)} = ${rel.toExponential(3)} of the diagonal ${diag.toPrecision(4)} (bound ${BOUND})`);
            // The core's own positions are in the native instance's space too (what `unchanged` is measured in).
            // (relative to that space's diagonal: a quantized mesh's space is the integers' scale)
            const relLocal = maxDiff(page[best].local, n.local) / diagonal([{ corners: n.local }]);
            worstLocal = Math.max(worstLocal, relLocal);
            assert.ok(relLocal <= BOUND, `${label} animation ${anim} t=${t.toFixed(4)}: ${n.name} in the mesh's space ` +
              `differs by ${relLocal.toExponential(3)} of the diagonal`);
          }
          ++poses;
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      for (const v of views) v.destroy();
    }
    results.push(`${label}: ${poses} poses, largest difference ${worst.toExponential(2)} of the diagonal ` +
      `(${worstLocal.toExponential(2)} in the mesh's space)`);
  });
}


// The page's error statistics against `skinframe eval`'s per-frame rows (--csv) on every staged asset with one
// mesh instance, with eval's defaults for real assets (weld position-normal, MikkTSpace tangents): the page
// evaluates the vertices eval does (the same MikkTSpace split) and agrees on every method's mean normal and
// tangent error per frame. Bound: the posed positions differ by up to 5e-7 of the diagonal (above), which moves
// per-vertex angles by far less than this.
const MEAN_BOUND_DEG = 1e-4;

function evalRows(file, dir) {
  const csv = join(dir, 'frames.csv');
  execFileSync(cliPath, ['eval', file, '--animation', 'all', '--fps', '2', '--csv', csv, '--force'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  const head = lines[0].split(',');
  const col = (name) => head.indexOf(name);
  const order = [];
  const rows = lines.slice(1).map((line) => {
    const f = line.match(/("[^"]*"|[^,]*)(,|$)/g).map((x) => x.replace(/,$/, '').replace(/^"|"$/g, ''));
    if (!order.includes(f[col('animation')])) order.push(f[col('animation')]);
    return { anim: order.indexOf(f[col('animation')]), time: Number(f[col('time_s')]), method: f[col('method')],
      normal: Number(f[col('normal_mean_deg')]), tangent: Number(f[col('tangent_mean_deg')]) };
  });
  return rows;
}

for (const file of assets) {
  const label = file.slice(assetsDir.length + 1);
  test(`error statistics: page = skinframe eval (${label})`, { skip: skipWhy }, async (t) => {
    const { parseGltf, meshCandidates, meshArrays, writePose, startClip, poseScene } = page;
    const sf = await loadCore();
    const gltf = await parseGltf(pageInput(file));
    const objects = meshCandidates(gltf);
    if (objects.length !== 1) return t.skip(`${objects.length} mesh instances (eval's rows add them up)`);
    const view = sf.createMesh(meshArrays(objects[0])).setOptions({ weld: 2, tangents: 1 }).setLive(true);
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const dir = mkdtempSync(join(tmpdir(), 'sf-errors-'));
    let worst = 0, frames = 0;
    try {
      const rows = evalRows(file, dir);
      assert.ok(rows.length > 0, `${label}: eval wrote no rows`);
      const frameKeys = [...new Set(rows.map((r) => `${r.anim} ${r.time}`))];
      for (const key of frameKeys) {
        const [anim, time] = key.split(' ').map(Number);
        const clip = gltf.animations.length ? gltf.animations[anim] : null;
        poseScene(gltf.scene, mixer, startClip(mixer, clip), time);
        writePose(objects[0], view.bones, view.morph);
        view.run();
        for (const r of rows.filter((x) => `${x.anim} ${x.time}` === key)) {
          const m = METHODS.indexOf(r.method);
          assert.ok(m >= 0, `${label}: eval's method ${r.method} is not the page's`);
          const s = view.summary(m);
          for (const [what, want, got] of [['normal', r.normal, s.normal.mean], ['tangent', r.tangent, s.tangent.mean]]) {
            if (!Number.isFinite(want) || (what === 'tangent' && !view.hasTangentFrame)) continue;
            const d = Math.abs(want - got);
            worst = Math.max(worst, d);
            assert.ok(d <= MEAN_BOUND_DEG, `${label} animation ${anim} t=${time}: ${r.method} ${what} mean ` +
              `page ${got.toFixed(6)}, eval ${want.toFixed(6)}`);
          }
        }
        ++frames;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      view.destroy();
    }
    results.push(`${label}: ${frames} frames, mean errors within ${worst.toExponential(2)} deg of eval's`);
  });
}

test('summary', () => {
  for (const r of results) console.log(`# ${r}`);
});
