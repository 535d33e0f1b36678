// skinframe eval --engine babylon.js against Babylon.js itself (the pinned @babylonjs/core and
// @babylonjs/loaders, the glTF loader on a NullEngine in node). For each generated strip (tests/presets/strips.mjs):
// Babylon.js's skinned positions (Mesh.getPositionData with the skeleton, its animation group posed at the time)
// and, for a primitive without NORMAL, its flat normals (each triangle's face normal, as the PBR shader's
// derivatives give); the full deformation and the reference normals from `skinframe bake --method recompute` at
// the same time. The preset's position and normal errors (eval --json) must equal what Babylon.js shows.
// check_presets.mjs SKINFRAME WORK_DIR
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { SceneLoader } from '@babylonjs/core/Loading/sceneLoader.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import '@babylonjs/loaders/glTF/2.0/index.js';
import { angle, cases, cross, evalFrames, len, stripGltf, sub } from './strips.mjs';

Logger.LogLevels = Logger.ErrorLogLevel;
const [cli, work] = process.argv.slice(2);
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};

const engine = new NullEngine();

// The file's meshes in a fresh scene (a glTF text as a data: string, a .glb as a File-less ArrayBuffer view).
async function load(data, extension) {
  const scene = new Scene(engine);
  const res = await SceneLoader.ImportMeshAsync('', '', data, scene, undefined, extension);
  return { scene, res };
}

// Positions Babylon.js skins at time t, in the skinned mesh's own space: the loader's animation group (at its
// 60 frames per second) stopped, started once and sent to the frame, the skeleton prepared from its nodes.
async function babylonPose(text, t) {
  const { scene, res } = await load('data:' + text, '.gltf');
  const group = res.animationGroups[0];
  group.stop();
  group.start(false, 1, group.from, group.to);
  group.goToFrame(t * 60);
  group.pause();
  const mesh = res.meshes.find((m) => m.skeleton);
  mesh.skeleton.prepare(true);
  const out = {
    positions: Float32Array.from(mesh.getPositionData(true, true)),
    index: Uint32Array.from(mesh.getIndices()),
    hasNormals: mesh.isVerticesDataPresent('normal'),
    influencers: mesh.numBoneInfluencers,
  };
  scene.dispose();
  return out;
}

// The baked glb (skinframe bake --method recompute): its one primitive's positions, normals and indices.
async function baked(file) {
  const bytes = readFileSync(file);
  const { scene, res } = await load(new Uint8Array(bytes), '.glb');
  const mesh = res.meshes.find((m) => m.getTotalVertices() > 0);
  const out = {
    positions: Float32Array.from(mesh.getVerticesData('position')),
    normals: Float32Array.from(mesh.getVerticesData('normal')),
    index: Uint32Array.from(mesh.getIndices()),
  };
  scene.dispose();
  return out;
}

function evalBabylon(file) {
  const out = JSON.parse(execFileSync(cli, ['eval', file, '--engine', 'babylon.js', '--json'], { encoding: 'utf8' }));
  return out.animations[0].variants.find((v) => v.engine === 'babylon.js');
}

for (const c of cases) {
  const file = `${work}/${c.name.replace(/\W+/g, '_')}.gltf`, bake = file.replace(/\.gltf$/, '.bake.glb');
  const text = stripGltf(c);
  writeFileSync(file, text);
  const preset = evalBabylon(file);
  let pmax = 0, psum = 0, pcount = 0, nsum = 0, nmax = 0, count = 0, pose, ref;
  for (const t of evalFrames(c.keys[c.keys.length - 1][0])) {
    execFileSync(cli, ['bake', file, '--time', String(t), '--method', 'recompute', '-o', bake, '--force']);
    pose = await babylonPose(text, t);
    ref = await baked(bake);
    // triangles keep their order and corners (the bake may split vertices); the mean is per vertex, as eval's
    const seen = new Set();
    for (let k = 0; k < pose.index.length; ++k) {
      const d = len(sub(pose.positions, pose.index[k], ref.positions, ref.index[k]));
      pmax = Math.max(pmax, d);
      if (!seen.has(pose.index[k])) seen.add(pose.index[k]), psum += d, pcount++;
    }
  }
  if (!c.normals) {
    check(!pose.hasNormals, `${c.name}: Babylon.js has no normals to skin (the shader's face normals)`);
    for (let t = 0; t < pose.index.length / 3; ++t) {
      const [a, b, d] = [0, 1, 2].map((k) => pose.index[3 * t + k]);
      const f = cross(sub(pose.positions, b, pose.positions, a), sub(pose.positions, d, pose.positions, a));
      for (let k = 0; k < 3; ++k) {
        const j = ref.index[3 * t + k];
        const e = angle(f, [ref.normals[3 * j], ref.normals[3 * j + 1], ref.normals[3 * j + 2]]);
        nsum += e, nmax = Math.max(nmax, e), count++;
      }
    }
    // float32 positions of unit size turn a face normal by ~6e-5 degrees: 0.01 degrees is far above that
    console.log(`  Babylon.js normal mean ${(nsum / count).toFixed(4)} max ${nmax.toFixed(4)}, preset ` +
                `${preset.normal.mean.toFixed(4)} max ${preset.normal.max.toFixed(4)}`);
    check(Math.abs(nsum / count - preset.normal.mean) < 0.01, `${c.name}: normal mean as Babylon.js's`);
    check(Math.abs(nmax - preset.normal.max) < 0.01, `${c.name}: normal max as Babylon.js's`);
  }
  if (c.name.includes('second')) check(pose.influencers === 8, `${c.name}: Babylon.js reads both sets`);
  // positions are float32 of size ~4: 1e-5 is a few ulps of the skinning sums
  console.log(`  Babylon.js position error mean ${(psum / pcount).toExponential(4)} max ${pmax.toExponential(4)}, ` +
              `preset ${preset.position.mean.toExponential(4)} max ${preset.position.max.toExponential(4)}`);
  check(Math.abs(pmax - preset.position.max) < 1e-5, `${c.name}: position error max as Babylon.js's`);
  check(Math.abs(psum / pcount - preset.position.mean) < 1e-5, `${c.name}: position error mean as Babylon.js's`);
  if (c.name.includes('unit')) check(pmax > 0.01, `${c.name}: Babylon.js's pose is not the normalised one`);
}
engine.dispose();
process.exit(failures ? 1 : 0);
