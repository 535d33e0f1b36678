// The wasm core off the main thread, for the built-in scenes: each request evaluates the scene with its settings
// (re-posing the open one when only the pose changed, opening it otherwise) and sends back a copy of what the page
// draws and reads (the buffers are transferred, not copied again). The page keeps at most one request in flight
// and sends only the latest.
import { loadSkinframe, ALL_METHODS } from './skinframe.js';

let sf = null, view = null, key = '';

// gpu: the page runs the WGSL passes, which read the pose, the options and (once per mesh) the topology's arrays.
function snapshot(v, meshChanged, gpu) {
  const copy = (a) => (a ? a.slice() : null);
  const rows = v.rows.map((r) => ({ normals: copy(r.normals), tangents: copy(r.tangents), normalDeg: copy(r.normalDeg), tangentDeg: copy(r.tangentDeg) }));
  const s = {
    vertexCount: v.vertexCount, triangleCount: v.triangleCount, boneCount: v.boneCount, hasTangentFrame: v.hasTangentFrame,
    info: v.info, frame: copy(v.frame), stats: copy(v.stats), positions: copy(v.positions), refNormals: copy(v.refNormals),
    refTangents: copy(v.refTangents), boneHeads: copy(v.boneHeads), boneTails: copy(v.boneTails), rows, meshChanged,
    indices: meshChanged ? copy(v.indices) : null, uvs: meshChanged ? copy(v.uvs) : null,
  };
  if (gpu) {
    Object.assign(s, { targetCount: v.targetCount, bones: copy(v.bones), morph: copy(v.morph), options: { ...v.options },
      uvConvention: v.uvConvention, gpuArrays: meshChanged ? v.gpuBuffers() : null });
  }
  const gpuWords = s.gpuArrays ? Object.values(s.gpuArrays).map((a) => a.words) : [];
  const transfer = [s.frame, s.stats, s.positions, s.refNormals, s.refTangents, s.boneHeads, s.boneTails, s.indices, s.uvs,
    s.bones, s.morph, ...gpuWords,
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

self.onmessage = async (e) => {
  const q = e.data;
  try {
    if (!sf) sf = await loadSkinframe(q.wasm);
    const t0 = performance.now();
    const { next, changed } = evaluate(q);
    view = next;
    const { s, transfer } = snapshot(view, changed, q.gpu);
    s.ms = performance.now() - t0;
    s.reposed = !changed;
    s.id = q.id;
    self.postMessage({ id: q.id, ok: true, snapshot: s }, transfer);
  } catch (err) {
    self.postMessage({ id: q.id, ok: false, message: err.message });
  }
};
export { ALL_METHODS };
