// A user's glTF through three.js: GLTFLoader parses it, each mesh becomes plain arrays for the wasm core
// (sfw_mesh_create), and per frame the animation's bone matrices and morph weights become the core's pose, in
// the mesh's space as the native library poses an instance (sf_gltf_pose_instance), with the matrix to the world:
//   skinned: bone i = bindMatrixInverse * bone_i.matrixWorld * boneInverse_i * bindMatrix (three.js's skinning
//            shader without the model matrix); to the world: mesh.matrixWorld;
//   rigid:   one bone = inverse(rest matrixWorld) * matrixWorld (the node's motion since the file's rest pose);
//            to the world: the rest matrixWorld.
// So `unchanged` (the rest directions) and every statistic are the native command's.
// Compressed files load as in the command: EXT_meshopt_compression through three.js's MeshoptDecoder and
// KHR_draco_mesh_compression through its DRACOLoader, whose decoder files the page serves at ./draco/
// (vite.config.js, from the three package: no network).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { glbContainerProblem } from './glb_check.js';
import { BONE_FLOATS } from './generated/layout.js';

export const DRACO_DECODER_PATH = './draco/';
let draco = null; // one DRACOLoader (and its worker pool) for every file
function dracoLoader() {
  if (!draco) {
    draco = new DRACOLoader();
    draco.setDecoderPath(DRACO_DECODER_PATH);
  }
  return draco;
}

// Past this the page refuses a file before reading it (a tab holds the file, three.js's copy and the core's).
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
export const MAX_VERTICES = 2_000_000;

// files: File objects (one .glb, or a .gltf with its .bin and images). Resolves to three.js's gltf, rejects
// with the loader's message.
export async function loadGltfFiles(files) {
  const list = Array.from(files);
  const main = list.find((f) => /\.(glb|gltf)$/i.test(f.name));
  if (!main) throw new Error(`not a glTF file: ${list.map((f) => f.name).join(', ')} (expected .glb or .gltf)`);
  const total = list.reduce((n, f) => n + f.size, 0);
  if (total > MAX_FILE_BYTES)
    throw new Error(`${main.name}: ${(total / 1048576).toFixed(0)} MiB is too large for the page (limit ${MAX_FILE_BYTES / 1048576} MiB)`);
  const urls = new Map(list.map((f) => [f.name, URL.createObjectURL(f)]));
  const manager = new THREE.LoadingManager();
  manager.setURLModifier((url) => {
    const name = decodeURIComponent(url.split('/').pop());
    return urls.get(name) || url;
  });
  try {
    const data = await main.arrayBuffer();
    const problem = glbContainerProblem(new Uint8Array(data));
    if (problem) throw new Error(problem);
    return await parseGltf(data, manager);
  } finally {
    for (const u of urls.values()) URL.revokeObjectURL(u);
  }
}

export function parseGltf(data, manager) {
  const loader = new GLTFLoader(manager);
  loader.setMeshoptDecoder(MeshoptDecoder);
  loader.setDRACOLoader(dracoLoader());
  return new Promise((resolve, reject) => {
    try {
      loader.parse(data, '', resolve, (e) => reject(new Error(e?.message || String(e))));
    } catch (e) {
      reject(new Error(e?.message || String(e)));
    }
  });
}

// Every mesh of the scene, skinned meshes first, larger first.
export function meshCandidates(gltf) {
  const out = [];
  gltf.scene.traverse((o) => o.quaternion.normalize());
  gltf.scene.updateMatrixWorld(true);
  gltf.scene.traverse((o) => {
    if (o.isMesh && o.geometry?.attributes?.position) {
      o.userData.restWorld = o.matrixWorld.clone(); // before any animation: the file's rest pose
      out.push(o);
    }
  });
  out.sort((a, b) => (b.isSkinnedMesh - a.isSkinnedMesh) || (b.geometry.attributes.position.count - a.geometry.attributes.position.count));
  return out;
}

function dense(attr, width) {
  if (!attr) return null;
  const out = new Float32Array(attr.count * width);
  for (let i = 0; i < attr.count; ++i) for (let c = 0; c < width; ++c) out[i * width + c] = attr.getComponent(i, c);
  return out;
}

// Arrays for Skinframe.createMesh from a three.js mesh. Unskinned meshes get one bone (their world matrix).
export function meshArrays(object) {
  const g = object.geometry;
  const n = g.attributes.position.count;
  if (n > MAX_VERTICES) throw new Error(`${object.name || 'mesh'}: ${n} vertices is more than the page takes (${MAX_VERTICES})`);
  const positions = dense(g.attributes.position, 3);
  const indices = g.index ? Uint32Array.from({ length: g.index.count }, (_, i) => g.index.getX(i))
    : Uint32Array.from({ length: n - (n % 3) }, (_, i) => i);
  const desc = { positions, indices, normals: dense(g.attributes.normal, 3), tangents: dense(g.attributes.tangent, 4),
    uvs: dense(g.attributes.uv, 2), gltf: true };
  if (object.isSkinnedMesh) {
    desc.influenceCount = 4;
    desc.joints = Uint32Array.from(dense(g.attributes.skinIndex, 4));
    desc.weights = dense(g.attributes.skinWeight, 4);
    desc.boneCount = object.skeleton.bones.length;
  } else {
    desc.influenceCount = 1;
    desc.joints = new Uint32Array(n);
    desc.weights = new Float32Array(n).fill(1);
    desc.boneCount = 1;
  }
  const morph = g.morphAttributes || {};
  const relative = g.morphTargetsRelative;
  const base = { position: positions, normal: desc.normals };
  desc.targets = (morph.position || []).map((attr, k) => {
    const t = {};
    for (const [key, out] of [['position', 'positions'], ['normal', 'normals'], ['tangent', 'tangents']]) {
      const a = morph[key]?.[k];
      if (!a) continue;
      const d = dense(a, 3);
      if (!relative && base[key]) for (let i = 0; i < d.length; ++i) d[i] -= base[key][i];
      t[out] = d;
    }
    return t;
  });
  return desc;
}

// Plays clip (an AnimationClip, or null for the rest pose) on mixer from its start; returns the action or null.
// Once, held at its end: the time is the page's (the loop wraps it), so time = duration is the last key, as in
// the native sampler, not the first one that a repeating action wraps to.
export function startClip(mixer, clip) {
  mixer.stopAllAction();
  if (!clip) return null;
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  return action;
}

// Poses scene at time t (seconds, clamped to the clip) of action (startClip's; null: the rest pose, as loaded).
// Rotations are made unit quaternions, as the native loader makes every rest and sampled rotation: files with
// keys a little off unit length (SimpleSkin's are 1 +- 2e-4) otherwise scale their nodes in three.js.
export function poseScene(scene, mixer, action, t) {
  if (action) {
    action.reset(); // a finished action pauses at its end; seeking backwards must move it again
    mixer.setTime(Math.max(0, t));
  }
  scene.traverse((o) => o.quaternion.normalize());
  scene.updateMatrixWorld(true);
}

const tmp = new THREE.Matrix4(), tmp2 = new THREE.Matrix4(), tmp3 = new THREE.Matrix4();

function put3x4(m, out, at) {
  const e = m.elements;
  out[at] = e[0]; out[at + 1] = e[1]; out[at + 2] = e[2];
  out[at + 3] = e[4]; out[at + 4] = e[5]; out[at + 5] = e[6];
  out[at + 6] = e[8]; out[at + 7] = e[9]; out[at + 8] = e[10];
  out[at + 9] = e[12]; out[at + 10] = e[13]; out[at + 11] = e[14];
}

// A mesh space that cannot be inverted (a node scaled to zero): the native library then poses in world space. As
// there (sfi_mat4_invert), only a zero or non-finite determinant counts: gltfpack's quantized files put the
// dequantization on the mesh node (CesiumMan: scale 9.2e-5, determinant 7.8e-13) and are posed in its space.
const singular = (m) => { const d = m.determinant(); return d === 0 || !Number.isFinite(d); };

// The pose of object now (after the mixer and updateMatrixWorld) into bones (BONE_FLOATS per bone) and morph; returns
// the matrix from the core's positions to the world (16 numbers, column-major; a new array when toWorld is not given).
export function writePose(object, bones, morph, toWorld = new Float64Array(16)) {
  if (object.isSkinnedMesh) {
    const s = object.skeleton;
    const world = singular(object.matrixWorld);
    const pre = world ? tmp2.multiplyMatrices(object.matrixWorld, object.bindMatrixInverse) : tmp2.copy(object.bindMatrixInverse);
    for (let i = 0; i < s.bones.length; ++i) {
      tmp.multiplyMatrices(s.bones[i].matrixWorld, s.boneInverses[i]);
      tmp.premultiply(pre).multiply(object.bindMatrix);
      put3x4(tmp, bones, BONE_FLOATS * i);
    }
    (world ? tmp3.identity() : tmp3.copy(object.matrixWorld)).toArray(toWorld);
  } else {
    const rest = object.userData.restWorld;
    if (rest && !singular(rest)) {
      put3x4(tmp.copy(rest).invert().multiply(object.matrixWorld), bones, 0);
      rest.toArray(toWorld);
    } else {
      put3x4(object.matrixWorld, bones, 0);
      tmp3.identity().toArray(toWorld);
    }
  }
  const w = object.morphTargetInfluences;
  if (w) for (let k = 0; k < morph.length; ++k) morph[k] = w[k] || 0;
  return toWorld;
}

// Rig segments (parent joint -> joint) of a skinned mesh's skeleton, world space, 6 floats each.
// Every skin's joints in the scene (the whole character): one segment per bone, each bone once however many
// skinned meshes share it; out is reused when it has the size.
export function sceneRigSegments(scene, out) {
  const bones = new Set();
  scene.traverse((o) => { if (o.isSkinnedMesh) for (const b of o.skeleton.bones) bones.add(b); });
  if (!bones.size) return null;
  const seg = out && out.length === 6 * bones.size ? out : new Float32Array(6 * bones.size);
  const a = new THREE.Vector3(), b = new THREE.Vector3();
  let i = 0;
  for (const bone of bones) {
    b.setFromMatrixPosition(bone.matrixWorld);
    if (bone.parent && bone.parent.isBone) a.setFromMatrixPosition(bone.parent.matrixWorld); else a.copy(b);
    seg.set([a.x, a.y, a.z, b.x, b.y, b.z], 6 * i++);
  }
  return seg;
}

export function rigSegments(object, out) {
  if (!object.isSkinnedMesh) return null;
  const bones = object.skeleton.bones;
  const seg = out && out.length === 6 * bones.length ? out : new Float32Array(6 * bones.length);
  const a = new THREE.Vector3(), b = new THREE.Vector3();
  bones.forEach((bone, i) => {
    b.setFromMatrixPosition(bone.matrixWorld);
    if (bone.parent && bone.parent.isBone) a.setFromMatrixPosition(bone.parent.matrixWorld); else a.copy(b);
    seg.set([a.x, a.y, a.z, b.x, b.y, b.z], 6 * i);
  });
  return seg;
}
