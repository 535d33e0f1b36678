// The whole character's messages (character_remote.js asks, a worker answers): each open file's Character
// (asset_eval.js), one moment's table per request, with the views' arrays of every unit posed together when the
// page draws it, and one vertex's angles of the moment last drawn when the reader inspects it. The character
// worker answers them; where the page has WebGPU views, the scene worker does (the moments' GPU passes are its).
import { Character } from './asset_eval.js';

export class CharacterFiles {
  constructor() { this.files = new Map(); } // the page's file number -> its Character

  get(file) { return this.files.get(file); }

  // The reply to message q (null: none), with sf the loaded module; unitSpace: a drawn moment keeps what the
  // GPU passes of the units read (AssetEval.draw), in the Character's .drawn, not sent.
  answer(q, sf, unitSpace = false) {
    if (q.close) { this.files.get(q.file)?.destroy(); this.files.delete(q.file); return null; }
    if (q.open) {
      const c = new Character(sf, q.bytes);
      this.files.set(q.file, c);
      return opened(c, q.options);
    }
    const c = this.files.get(q.file);
    if (!c) return { reason: 'the file was closed' };
    if (q.clip) {
      const t = c.clip(q.animation, q.options);
      return { reason: c.reason, table: t, frames: t ? t.frames : 0 };
    }
    if (q.inspect) return { reason: c.reason, inspection: inspectVertex(c, q.vertex) };
    const t0 = performance.now();
    // the views' arrays too when the page draws the whole character (q.draw: the drawn method's sf_method index)
    const { table = null, drawing = null } = c.moment(q.animation, q.time, q.options, q.draw ?? -1, unitSpace) || {};
    // what the GPU passes of this moment read (gpu_character.js)
    c.drawn = drawing?.units ? { table, units: drawing.units, tangentFrame: drawing.tangentFrame } : null;
    return { reason: c.reason, table, drawing: drawing && keepForInspector(c, drawing, q), units: c.asset?.units || 0,
      vertices: c.asset?.vertices || 0, ms: performance.now() - t0 };
  }
}

// The reply's transferable arrays.
export function replyTransfer(reply) {
  const d = reply?.drawing;
  return d ? ['positions', 'normals', 'tangents', 'refNormals', 'refTangents', 'normalDeg', 'tangentDeg', 'indices', 'first']
    .map((k) => d[k].buffer) : [];
}

function opened(c, options) {
  c._assetFor(options); // the asset made now: its counts, or the library's message in .reason
  const a = c.asset;
  return { reason: c.reason, units: a ? a.units : 0, vertices: a ? a.vertices : 0, unitInfo: a ? a.unitInfo : null };
}

// Every method's angles stay here with the moment drawn (2 per method per vertex, most of a moment's bytes);
// the page gets the drawn method's and asks for one vertex's when the reader picks it (inspectVertex).
function keepForInspector(c, drawing, q) {
  const { angles, units, ...sent } = drawing;
  c.inspectable = { angles, positions: drawing.positions.slice(), n: drawing.vertexCount, time: q.time, animation: q.animation };
  sent.normalDeg = drawing.normalDeg.slice();
  sent.tangentDeg = drawing.tangentDeg.slice();
  return sent;
}

// Vertex v of the moment last drawn: its position in the scene and every method's normal and tangent angles
// (method k's at 2k and 2k + 1, as AssetEval.draw orders them), with that moment; null before a drawing.
function inspectVertex(c, v) {
  const m = c.inspectable;
  if (!m || !(v >= 0 && v < m.n)) return null;
  const angles = new Float32Array(m.angles.length / m.n);
  for (let k = 0; k < angles.length; ++k) angles[k] = m.angles[k * m.n + v];
  return { vertex: v, time: m.time, animation: m.animation, position: Array.from(m.positions.subarray(3 * v, 3 * v + 3)), angles };
}
