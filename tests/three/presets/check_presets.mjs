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
import { angle, cases, cross, evalFrames, len, stripGltf, sub } from './strips.mjs';

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

// Per triangle corner: three.js's position and the bake's (the bake may split vertices; triangles keep their
// order and corners).
function corners(three, ref) {
  const out = [], tri = three.index.length / 3;
  for (let t = 0; t < tri; ++t)
    for (let c = 0; c < 3; ++c) out.push([three.index[3 * t + c], ref.index ? ref.index[3 * t + c] : 3 * t + c]);
  return out;
}

for (const c of cases) {
  const file = `${work}/${c.name.replace(/\W+/g, '_')}.gltf`, bake = file.replace(/\.gltf$/, '.bake.glb');
  const text = stripGltf(c);
  writeFileSync(file, text);
  const preset = evalThree(file);
  const frames = evalFrames(c.keys[c.keys.length - 1][0]);
  let pmax = 0, psum = 0, pcount = 0, nsum = 0, nmax = 0, count = 0, three, ref;
  for (const t of frames) {
    execFileSync(cli, ['bake', file, '--time', String(t), '--method', 'recompute', '-o', bake, '--force']);
    three = await threePose(text, t);
    ref = await baked(bake);
    const seen = new Set(); // the mean is per vertex, as eval's
    for (const [i, j] of corners(three, ref)) {
      const d = len(sub(three.positions, i, ref.positions, j));
      pmax = Math.max(pmax, d);
      if (!seen.has(i)) seen.add(i), psum += d, pcount++;
    }
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
  console.log(`  three.js position error mean ${(psum / pcount).toExponential(4)} max ${pmax.toExponential(4)}, ` +
              `preset ${preset.position.mean.toExponential(4)} max ${preset.position.max.toExponential(4)}`);
  check(Math.abs(pmax - preset.position.max) < 1e-5, `${c.name}: position error max as three.js's`);
  check(Math.abs(psum / pcount - preset.position.mean) < 1e-5, `${c.name}: position error mean as three.js's`);
  if (c.name.includes('second')) check(pmax > 0.1, `${c.name}: three.js loses the second set's weight`);
  if (c.name.includes('unit')) check(pmax > 0.01, `${c.name}: three.js's pose is not the normalised one`);
}
process.exit(failures ? 1 : 0);
