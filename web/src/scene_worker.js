// The wasm core off the main thread, for the built-in scenes: each request evaluates the scene with its settings
// (re-posing the open one when only the pose changed, opening it otherwise) and sends back a copy of what the page
// draws and reads (the buffers are transferred, not copied again). The page keeps at most one request in flight
// and sends only the latest.
// Where the page has WebGPU, this worker owns a GPUDevice too (gpu.js) and runs the WGSL passes on its own view:
// the core's frames go to the GPU from here, and the page receives only the check's and the statistics' few bytes
// ({type: 'gpu'} messages), so no upload or read-back waits on the main thread. A glTF primitive's passes run
// here too ({type: 'gpu-mesh'}, then {type: 'gpu-pose'} per pose, which carries the page's evaluation of it): the
// page holds no GPUDevice. Where it draws the views, the whole character's messages come here too
// (character_answer.js): each drawn moment's evaluation feeds the passes of every unit joined in one mesh
// (gpu_character.js).
import { loadSkinframe, ALL_METHODS, summaryOf } from './skinframe.js';
import { GpuReference } from './gpu.js';
import { WorkerViews } from './gpu_views.js';
import { CharacterFiles, replyTransfer } from './character_answer.js';
import { GpuCharacter } from './gpu_character.js';

let sf = null, view = null, key = '';
let gpu = null;
// The whole character: the page's files, and the one whose units the GPU holds ({asset, joined, mesh, refused}).
const characters = new CharacterFiles();
let character = null;
// the views drawn here from the GPU passes' buffers, where the page handed over its canvases
const views = new WorkerViews((m) => self.postMessage(m));
// what gpu.js reads and writes of the page: the settings each request carries, the outcome posted back
const gpuPage = { gpu: {} };

// character: the line is of the whole character's joined mesh (its passes, or its refusal over the limits)
function postGpu(line, isError) {
  const g = gpuPage.gpu;
  self.postMessage({ type: 'gpu', line, isError, character: !!character && gpu?.mesh === character.mesh,
    state: { check: g.check, limit: g.limit, busy: !!g.busy, lastMs: g.lastMs } });
}
gpuPage.gpu.changed = () => postGpu();

// The page's settings for the passes: {weighting, capBytes, compareAgainst} (tests lower the limit or pair a
// slot with another method's frames).
function gpuSettings(g) {
  gpuPage.gpu.capBytes = g.capBytes;
  gpuPage.gpu.compareAgainst = g.compareAgainst;
}

function snapshot(v, meshChanged) {
  const copy = (a) => (a ? a.slice() : null);
  const rows = v.rows.map((r) => ({ normals: copy(r.normals), tangents: copy(r.tangents), normalDeg: copy(r.normalDeg), tangentDeg: copy(r.tangentDeg) }));
  const s = {
    vertexCount: v.vertexCount, triangleCount: v.triangleCount, boneCount: v.boneCount, hasTangentFrame: v.hasTangentFrame,
    info: v.info, frame: copy(v.frame), stats: copy(v.stats), positions: copy(v.positions), refNormals: copy(v.refNormals),
    refTangents: copy(v.refTangents), boneHeads: copy(v.boneHeads), boneTails: copy(v.boneTails), rows, meshChanged,
    indices: meshChanged ? copy(v.indices) : null, uvs: meshChanged ? copy(v.uvs) : null,
  };
  const transfer = [s.frame, s.stats, s.positions, s.refNormals, s.refTangents, s.boneHeads, s.boneTails, s.indices, s.uvs,
    ...rows.flatMap((r) => [r.normals, r.tangents, r.normalDeg, r.tangentDeg])].filter(Boolean).map((a) => a.buffer);
  return { s, transfer };
}

// The open view takes a request that changes only the pose (a bone slider, a morph weight) without being
// opened again: its topology and evaluation stay, and only its options are set when they changed.
function evaluate(q) {
  const meshKey = `${q.scene} ${q.settings.resolution}`;
  if (view && !q.forceMesh && meshKey === key && view.repose(q.settings)) {
    if (JSON.stringify(q.options) !== JSON.stringify(view.options)) view.setOptions(q.options);
    return { next: view.run(), changed: false };
  }
  const next = sf.openScene(q.scene, '', q.settings);
  next.setOptions(q.options).setLive(true).run();
  if (view) view.destroy();
  key = meshKey;
  return { next, changed: true };
}

async function scene(q) {
  try {
    if (!sf) sf = await loadSkinframe(q.wasm);
    const t0 = performance.now();
    const { next, changed } = evaluate(q);
    view = next;
    // a new mesh's GPU buffers (and its verdict on the adapter's limits) before the page hears of the mesh
    if (gpu && q.gpu) {
      gpuSettings(q.gpu);
      if (changed) gpu.setMesh(view);
    }
    views.scene(q);
    const { s, transfer } = views.snapshot(q, view, changed, snapshot);
    s.ms = performance.now() - t0;
    s.reposed = !changed;
    s.id = q.id;
    self.postMessage({ id: q.id, ok: true, snapshot: s }, transfer);
    // the passes read this view's frames now; a run in flight takes the newest pose when it ends
    if (gpu && q.gpu) gpu.run(view, q.gpu.weighting);
    views.afterRun();
  } catch (err) {
    self.postMessage({ id: q.id, ok: false, message: err.message });
  }
}

// A glTF primitive, which the page evaluates on its own thread: the worker makes the same mesh from the page's
// arrays (its topology is what the passes read) and runs the passes with each pose's bones and morph weights,
// checked against the page's evaluation of that pose, so that they run on this worker's device and the page
// holds no GPUDevice of its own.
let primitive = null, primitiveGpuMesh = null, primitivePending = null;

async function primitiveMesh(q) {
  primitive?.destroy();
  primitive = null;
  primitivePending = null;
  try {
    if (!sf) sf = await loadSkinframe(q.wasm);
    primitive = sf.createMesh(q.desc);
    gpuSettings(q.gpu);
    gpu.setMesh(primitive);
    primitiveGpuMesh = gpu.mesh;
  } catch (err) {
    postGpu(`WebGPU: ${err.message}`, true);
  }
  // whether this worker draws the primitive's views (its buffers within the adapter's limits), or the page does
  self.postMessage({ type: 'primitive-views', on: !!(primitive && gpu.mesh && views.views) });
}

// Poses come as often as the page redraws: the latest waiting one runs, the others are dropped.
function primitivePose(q) {
  const idle = !primitivePending;
  primitivePending = q;
  if (idle) setTimeout(primitiveRun, 0);
}

// What gpu.js reads of a view, for a pose the page evaluated: the pose, the options, and the page's frames and
// statistics of it, which the passes are checked against.
function pageEvaluation(q) {
  return {
    vertexCount: primitive.vertexCount, targetCount: primitive.targetCount, bones: q.bones, morph: q.morph,
    options: q.options, hasTangentFrame: q.hasTangentFrame, refNormals: q.refNormals, refTangents: q.refTangents,
    rows: q.rows, summary: (m) => summaryOf(q.stats, m),
  };
}

// The pose's submit draws the views here too, with the settings (camera, model matrix, material) it came with.
function primitiveRun() {
  const q = primitivePending;
  primitivePending = null;
  if (!q) return;
  views.pose = q.pose;
  if (q.views) views.set(q.views, false);
  // the scene (or a later primitive) may have taken the GPU's mesh meanwhile: nothing to draw for this pose
  if (!primitive || !gpu || gpu.mesh !== primitiveGpuMesh) { views.drawn(); return; }
  try {
    gpuSettings(q.gpu);
    gpu.run(pageEvaluation(q), q.gpu.weighting);
  } catch (err) {
    postGpu(`WebGPU: ${err.message}`, true);
  }
  views.afterRun();
}

async function characterMessage(q) {
  let reply;
  try {
    if (!sf) sf = await loadSkinframe(q.wasm);
    reply = characters.answer(q, sf, !!(gpu && views.views));
  } catch (err) {
    reply = { reason: err.message, error: true };
  }
  if (!reply) return;
  self.postMessage({ ...reply, file: q.file, seq: q.seq }, replyTransfer(reply));
  if (reply.drawing && gpu && views.views) characterPasses(characters.get(q.file), q);
}

// A drawn moment's passes: every unit's pose, checked against the asset's evaluation of it (its drawn method's
// frames and its table), the core's reference in the reference slot (eval's weld and MikkTSpace have no WGSL form).
function characterPasses(c, q) {
  try {
    if (!c?.drawn) return;
    if (character?.asset !== c.asset) character = { asset: c.asset, joined: new GpuCharacter(c.asset.unitTopologies()), mesh: null, refused: false };
    if (gpu.mesh !== character.mesh || !character.mesh) {
      if (character.refused) return;
      gpu.setMesh(character.joined);
      character.mesh = gpu.mesh;
      character.refused = !gpu.mesh; // over the adapter's limits: the page draws it, as it said
      self.postMessage({ type: 'character-views', on: !!gpu.mesh });
      if (!gpu.mesh) return;
    }
    const moment = character.joined.moment(c.drawn, q.draw, q.options);
    moment.moment = { animation: q.animation, time: q.time }; // the check names the moment it measured
    // the core's weighting for a file where the page leaves it to the scene (-1): the asset's (asset_eval.js)
    gpu.run(moment, Math.max(0, q.options.weighting));
  } catch (err) {
    postGpu(`WebGPU: ${err.message}`, true);
  } finally {
    views.afterRun();
  }
}

self.onmessage = async (e) => {
  const q = e.data;
  if (q.file !== undefined) {
    await characterMessage(q);
  } else if (q.type === 'gpu-init') {
    gpu = await GpuReference.create(gpuPage, postGpu);
    self.postMessage({ type: 'gpu-init', ok: !!gpu, granted: gpuPage.gpu.granted });
  } else if (q.type === 'views-init') {
    self.postMessage({ type: 'views-init', ok: views.init(gpu, q.canvases) });
  } else if (q.type === 'views') {
    views.set(q.views);
  } else if (q.type === 'gpu-run') {
    // the page asks for the open view's passes again (a test's comparison against another method's frames)
    gpuSettings(q.gpu);
    if (gpu && view) gpu.run(view, q.gpu.weighting);
  } else if (q.type === 'gpu-release') {
    // the page opened a file: the scene's GPU buffers go, and no run waits for its pose
    gpu?.release();
    primitive?.destroy();
    primitive = null;
  } else if (q.type === 'gpu-mesh') {
    if (gpu) await primitiveMesh(q);
  } else if (q.type === 'gpu-pose') {
    primitivePose(q);
  } else if (q.type === 'gpu-time') {
    try {
      self.postMessage({ type: 'gpu-time', times: await gpu.timeUpdates(q.count) });
    } catch (err) {
      self.postMessage({ type: 'gpu-time', message: err.message });
    }
  } else {
    await scene(q);
  }
};
export { ALL_METHODS };
