// The wasm core off the main thread, for the built-in scenes where WebGPU is absent: each request opens the scene
// with its settings, evaluates it and sends back a copy of what the page draws and reads (the buffers are
// transferred, not copied again). The page keeps at most one request in flight and sends only the latest.
import { loadSkinframe, ALL_METHODS } from './skinframe.js';

let sf = null, view = null, key = '';

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

self.onmessage = async (e) => {
  const q = e.data;
  try {
    if (!sf) sf = await loadSkinframe(q.wasm);
    const t0 = performance.now();
    const next = sf.openScene(q.scene, '', q.settings);
    next.setOptions(q.options).setLive(true).run();
    const meshKey = `${q.scene} ${next.vertexCount} ${next.triangleCount} ${q.settings.resolution}`;
    const changed = meshKey !== key || q.forceMesh;
    key = meshKey;
    if (view) view.destroy();
    view = next;
    const { s, transfer } = snapshot(view, changed);
    s.ms = performance.now() - t0;
    self.postMessage({ id: q.id, ok: true, snapshot: s }, transfer);
  } catch (err) {
    self.postMessage({ id: q.id, ok: false, message: err.message });
  }
};
export { ALL_METHODS };
