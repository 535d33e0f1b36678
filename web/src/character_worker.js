// The whole character off the main thread: the library's asset evaluation (asset_eval.js) of each open file,
// one moment's table per request, with the views' arrays of every unit posed together when the page draws it. The page keeps at most one moment in flight and sends only the latest
// (character_remote.js); messages are answered in the order they came.
import { loadSkinframe } from './skinframe.js';
import { Character } from './asset_eval.js';

let loading = null;
const files = new Map(); // the page's file number -> its Character

function opened(c, options) {
  c._assetFor(options); // the asset made now: its counts, or the library's message in .reason
  const a = c.asset;
  return { reason: c.reason, units: a ? a.units : 0, vertices: a ? a.vertices : 0, unitInfo: a ? a.unitInfo : null };
}

async function answer(q, sf) {
  if (q.close) { files.get(q.file)?.destroy(); files.delete(q.file); return null; }
  if (q.open) {
    const c = new Character(sf, q.bytes);
    files.set(q.file, c);
    return opened(c, q.options);
  }
  const c = files.get(q.file);
  if (!c) return { reason: 'the file was closed' };
  if (q.clip) {
    const t = c.clip(q.animation, q.options);
    return { reason: c.reason, table: t, frames: t ? t.frames : 0 };
  }
  const t0 = performance.now();
  // the views' arrays too when the page draws the whole character (q.draw: the drawn method's sf_method index)
  const { table = null, drawing = null } = c.moment(q.animation, q.time, q.options, q.draw ?? -1) || {};
  return { reason: c.reason, table, drawing, units: c.asset?.units || 0, vertices: c.asset?.vertices || 0, ms: performance.now() - t0 };
}

self.onmessage = async (e) => {
  const q = e.data;
  let reply;
  try {
    loading = loading || loadSkinframe(q.wasm);
    reply = await answer(q, await loading);
  } catch (err) {
    reply = { reason: err.message, error: true };
  }
  const d = reply?.drawing;
  // normalDeg and tangentDeg are views of angles: each buffer once
  const transfer = d ? [...new Set(['positions', 'normals', 'tangents', 'refNormals', 'refTangents', 'angles', 'indices', 'first']
    .map((k) => d[k].buffer))] : [];
  if (reply) self.postMessage({ ...reply, file: q.file, seq: q.seq }, transfer);
};
