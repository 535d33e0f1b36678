// skinframe eval --engine three.js against three.js itself (the pinned `three`, GLTFLoader + AnimationMixer in
// node). For each generated file: three.js's skinned positions (SkinnedMesh.getVertexPosition) and, for a
// primitive without NORMAL, its flat normals (each triangle's face normal, as flatShading's derivatives give);
// the full deformation and the reference normals from `skinframe bake --method recompute` at the same time.
// The preset's position error and normal error (eval --json) must equal what three.js shows against them.
// check_presets.mjs SKINFRAME WORK_DIR
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { AnimationMixer, LoopOnce, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

// FileLoader (data: URIs of the buffers) reports progress with the browser's ProgressEvent, which node lacks.
globalThis.ProgressEvent ??= class extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, init);
  }
};

const [cli, work] = process.argv.slice(2);
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};

// A strip of quads along x (0..4, two rows of vertices), bent by joint 1 (at x = 2, child of joint 0 at the
// origin) turned by the rotation keys ([time, xyzw]; one at t = 0: a clip of one frame). weights(a) gives a vertex's sets from
// a = its blend towards joint 1 (0 at x <= 1, 1 at x >= 3).
function stripGltf({ normals, weights, keys }) {
  const cols = 9, pos = [], nrm = [], idx = [];
  for (let i = 0; i < cols; ++i)
    for (let r = 0; r < 2; ++r) {
      const x = (4 * i) / (cols - 1);
      pos.push(x, r, 0.3 * Math.sin(1.7 * x + r)); // not flat, so that face normals differ from vertex ones
      nrm.push(0, 0, 1);
    }
  for (let i = 0; i + 1 < cols; ++i) {
    const a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
    idx.push(a, c, b, b, c, d);
  }
  const n = pos.length / 3, sets = [];
  for (let v = 0; v < n; ++v) {
    const a = Math.min(1, Math.max(0, (pos[3 * v] - 1) / 2));
    weights(a).forEach((w, s) => (sets[s] ??= []).push(...w));
  }
  const parts = [], views = [], accessors = [];
  let length = 0;
  const add = (array, type, count, componentType, extra = {}) => {
    const bytes = Buffer.from(array.buffer);
    parts.push(bytes);
    views.push({ buffer: 0, byteOffset: length, byteLength: bytes.length });
    accessors.push({ bufferView: views.length - 1, componentType, count, type, ...extra });
    length += bytes.length;
    return accessors.length - 1;
  };
  const lo = [0, 0, 0].map((_, k) => Math.min(...pos.filter((_, i) => i % 3 === k)));
  const hi = [0, 0, 0].map((_, k) => Math.max(...pos.filter((_, i) => i % 3 === k)));
  const attributes = { POSITION: add(new Float32Array(pos), 'VEC3', n, 5126, { min: lo, max: hi }) };
  if (normals) attributes.NORMAL = add(new Float32Array(nrm), 'VEC3', n, 5126);
  sets.forEach((w, s) => {
    attributes[`JOINTS_${s}`] = add(new Uint16Array(n * 4).map((_, i) => (i % 4 < 2 ? i % 4 : 0)), 'VEC4', n, 5123);
    attributes[`WEIGHTS_${s}`] = add(new Float32Array(w), 'VEC4', n, 5126);
  });
  const indices = add(new Uint16Array(idx), 'SCALAR', idx.length, 5123);
  const ibm = add(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, 0, 0, 1]), 'MAT4', 2, 5126);
  const times = keys.map((k) => k[0]);
  const time = add(new Float32Array(times), 'SCALAR', keys.length, 5126,
                   { min: [times[0]], max: [times[times.length - 1]] });
  const rot = add(new Float32Array(keys.flatMap((k) => k[1])), 'VEC4', keys.length, 5126);
  const data = Buffer.concat(parts);
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0, 2] }],
    nodes: [{ name: 'root', children: [1] }, { name: 'bend', translation: [2, 0, 0] }, { mesh: 0, skin: 0 }],
    meshes: [{ primitives: [{ attributes, indices }] }],
    skins: [{ joints: [0, 1], inverseBindMatrices: ibm }],
    animations: [{ channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }],
                   samplers: [{ input: time, output: rot }] }],
    accessors,
    bufferViews: views,
    buffers: [{ byteLength: data.length, uri: `data:application/octet-stream;base64,${data.toString('base64')}` }],
  });
}

const parse = (text) => new Promise((ok, fail) => new GLTFLoader().parse(text, '', ok, fail));

// Positions three.js draws at time t, in the skinned mesh's space (its node is at the origin); played once and
// held at the end, so that the clip's last frame is its last key.
async function threePose(text, t) {
  const gltf = await parse(text);
  const mixer = new AnimationMixer(gltf.scene);
  const action = mixer.clipAction(gltf.animations[0]);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  mixer.setTime(t);
  gltf.scene.updateMatrixWorld(true);
  let mesh;
  gltf.scene.traverse((o) => { if (o.isSkinnedMesh) mesh = o; });
  mesh.skeleton.update();
  const geo = mesh.geometry, n = geo.attributes.position.count, p = new Float32Array(3 * n), v = new Vector3();
  for (let i = 0; i < n; ++i) mesh.getVertexPosition(i, v).toArray(p, 3 * i);
  return { positions: p, index: geo.index.array, flat: mesh.material.flatShading };
}

// The baked glb (skinframe bake --method recompute): its one primitive's positions, normals and indices.
async function baked(file) {
  const bytes = readFileSync(file);
  const gltf = await parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  let mesh;
  gltf.scene.traverse((o) => { if (o.isMesh) mesh = o; });
  const g = mesh.geometry;
  return { positions: g.attributes.position.array, normals: g.attributes.normal.array, index: g.index?.array };
}

function evalThree(file) {
  const out = JSON.parse(execFileSync(cli, ['eval', file, '--engine', 'three.js', '--json'], { encoding: 'utf8' }));
  return out.animations[0].variants.find((v) => v.engine === 'three.js');
}

const sub = (a, i, b, j) => [a[3 * i] - b[3 * j], a[3 * i + 1] - b[3 * j + 1], a[3 * i + 2] - b[3 * j + 2]];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const len = (a) => Math.hypot(a[0], a[1], a[2]);
const angle = (a, b) => (Math.atan2(len(cross(a, b)), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180) / Math.PI;

// Per triangle corner: three.js's position and the bake's (the bake may split vertices; triangles keep their
// order and corners).
function corners(three, ref) {
  const out = [], tri = three.index.length / 3;
  for (let t = 0; t < tri; ++t)
    for (let c = 0; c < 3; ++c) out.push([three.index[3 * t + c], ref.index ? ref.index[3 * t + c] : 3 * t + c]);
  return out;
}

const half = Math.SQRT1_2, bend = [0, 0, Math.sin(Math.PI / 6), Math.cos(Math.PI / 6)];
const cases = [
  { name: 'no NORMAL (flat)', normals: false, weights: (a) => [[1 - a, a, 0, 0]], keys: [[0, bend]] },
  { name: 'weight in the second set', normals: true,
    weights: (a) => [[0.1 * (1 - a), 0.1 * a, 0, 0], [0.9 * a, 0.9 * (1 - a), 0, 0]], keys: [[0, [0, 0, half, half]]] },
  // keys of length 1.2 and 0.9, far apart (slerp, not the normalising lerp): three.js's node matrix scales
  { name: 'rotation keys not unit', normals: true, weights: (a) => [[1 - a, a, 0, 0]],
    keys: [[0, [0, 0, 0, 1.2]], [0.1, bend.map((q) => 0.9 * q)]] },
];
for (const c of cases) {
  const file = `${work}/${c.name.replace(/\W+/g, '_')}.gltf`, bake = file.replace(/\.gltf$/, '.bake.glb');
  const text = stripGltf(c);
  writeFileSync(file, text);
  const preset = evalThree(file);
  // eval's frames: t = 0, 1/30, ... below the clip's end, then the end
  const end = c.keys[c.keys.length - 1][0], frames = [];
  for (let f = 0; f / 30 < end - 1e-9; ++f) frames.push(f / 30);
  frames.push(end);
  let pmax = 0, nsum = 0, nmax = 0, count = 0, three, ref;
  for (const t of frames) {
    execFileSync(cli, ['bake', file, '--time', String(t), '--method', 'recompute', '-o', bake, '--force']);
    three = await threePose(text, t);
    ref = await baked(bake);
    for (const [i, j] of corners(three, ref)) pmax = Math.max(pmax, len(sub(three.positions, i, ref.positions, j)));
  }
  if (!c.normals) {
    check(three.flat === true, `${c.name}: three.js shades it flat`);
    const tri = three.index.length / 3;
    for (let t = 0; t < tri; ++t) {
      const [a, b, d] = [0, 1, 2].map((k) => three.index[3 * t + k]);
      const f = cross(sub(three.positions, b, three.positions, a), sub(three.positions, d, three.positions, a));
      for (let k = 0; k < 3; ++k) {
        const j = ref.index ? ref.index[3 * t + k] : 3 * t + k;
        const e = angle(f, [ref.normals[3 * j], ref.normals[3 * j + 1], ref.normals[3 * j + 2]]);
        nsum += e, nmax = Math.max(nmax, e), count++;
      }
    }
    // float32 positions of unit size turn a face normal by ~1e-6 rad (6e-5 degrees): 0.01 degrees is far
    // above that and far below the gap to the skinned normals (asserted above 0.5 degrees below)
    console.log(`  three.js normal mean ${(nsum / count).toFixed(4)} max ${nmax.toFixed(4)}, preset ` +
                `${preset.normal.mean.toFixed(4)} max ${preset.normal.max.toFixed(4)}`);
    check(Math.abs(nsum / count - preset.normal.mean) < 0.01, `${c.name}: normal mean as three.js's`);
    check(Math.abs(nmax - preset.normal.max) < 0.01, `${c.name}: normal max as three.js's`);
    const skinned = JSON.parse(execFileSync(cli, ['eval', file, '--json'], { encoding: 'utf8' }))
      .animations[0].methods.find((m) => m.method === 'skinned');
    check(Math.abs(skinned.normal.mean - nsum / count) > 0.5, `${c.name}: unlike the skinned normals`);
  }
  // positions are float32 of size ~4: 1e-5 is a few ulps of the skinning sums
  console.log(`  three.js position error max ${pmax.toExponential(4)}, preset ${preset.position.max.toExponential(4)}`);
  check(Math.abs(pmax - preset.position.max) < 1e-5, `${c.name}: position error as three.js's`);
  if (c.name.includes('second')) check(pmax > 0.1, `${c.name}: three.js loses the second set's weight`);
  if (c.name.includes('unit')) check(pmax > 0.01, `${c.name}: three.js's pose is not the normalised one`);
}
process.exit(failures ? 1 : 0);
