// The whole character on the GPU: every unit (mesh instance and primitive) of an asset joined into one mesh for
// gpu.js's passes, as the library evaluates them one by one (AssetEval.unitTopologies: each unit's topology in
// the shaders' layout). The joined mesh's bones are every unit's bones one after the other, its morph targets
// every unit's, its vertices and triangles every unit's in the drawing's order (web/asset_draw.c), so one
// dispatch per pass computes every unit in its own space and the views draw each unit's triangles placed by its
// node (ranges). Each moment comes from the asset's evaluation of it (AssetEval.draw with unitSpace): the units'
// poses, and the core's reference and drawn method in each unit's space, which the passes are measured against.
import { GPU_ARRAYS, BONE_FLOATS } from './generated/layout.js';
import { METHODS, ALL_METHODS, UV_CONVENTIONS } from './skinframe.js';

// How each array of sf_topology_gpu_buffers joins the units' (src/core/gpu_layout.c describes each):
// base: what its values count, added per unit (a vertex, a bone, a morph target, a triangle corner);
// offsets: it holds n + 1 offsets into the named array; influences: influence_count values per vertex, padded
// to the largest unit's; family: an optional part of the topology, kept only when every unit has it.
const JOIN = {
  rest_positions: {}, rest_normals: {}, rest_tangents: {}, uvs: { family: 'uvs' },
  indices: { base: 'vertex' },
  joints: { base: 'bone', influences: true }, weights: { influences: true },
  morph_offsets: { offsets: 'morph_target' }, morph_target: { base: 'target' }, morph_dp: {}, morph_dn: {}, morph_dt: {},
  adj_offsets: { offsets: 'adj_corners' }, adj_corners: { base: 'corner' },
  grad_slot_offsets: { offsets: 'grad_slot_joint', family: 'jacobian' }, grad_slot_joint: { base: 'bone', family: 'jacobian' },
  grad_slot_guv: { family: 'jacobian' }, grad_morph_offsets: { offsets: 'grad_morph_target', family: 'jacobian' },
  grad_morph_target: { base: 'target', family: 'jacobian' }, grad_morph_duv: { family: 'jacobian' },
  fan_slot_offsets: { offsets: 'fan_slot_joint', family: 'fan' }, fan_slot_joint: { base: 'bone', family: 'fan' },
  fan_slot_coef: { family: 'fan' }, fan_morph_offsets: { offsets: 'fan_morph_target', family: 'fan' },
  fan_morph_target: { base: 'target', family: 'fan' }, fan_morph_duv: { family: 'fan' }, fan_normal: { family: 'fan' },
};
// the array whose presence says a unit has the family
const FAMILY_MARK = { uvs: 'uvs', jacobian: 'grad_slot_offsets', fan: 'fan_slot_offsets' };
const NO_JOINT = 0xffffffff; // a gradient slot of the identity (rest) transform: no bone to shift

// The units' arrays (AssetEval.unitTopologies) joined: {arrays (gpuTable's shape), n, F, boneCount, targetCount,
// first (each unit's first vertex, then n), firstTriangle (each unit's first triangle, then F)}.
export function joinUnits(units) {
  for (const name of GPU_ARRAYS) if (!JOIN[name]) throw new Error(`the core lists a GPU array ${name} that the whole character does not join`);
  const families = Object.fromEntries(Object.entries(FAMILY_MARK).map(([f, mark]) => [f, units.every((u) => u.arrays[mark].count > 0)]));
  const K = Math.max(1, ...units.map((u) => u.arrays.joints.components));
  const bases = units.map(() => ({}));
  const totals = { vertex: 0, bone: 0, target: 0, corner: 0 };
  units.forEach((u, i) => {
    const n = u.arrays.rest_positions.count, F = u.arrays.indices.count;
    Object.assign(bases[i], totals);
    totals.vertex += n; totals.bone += u.boneCount; totals.target += u.targetCount; totals.corner += 3 * F;
  });
  const arrays = {};
  for (const name of GPU_ARRAYS) {
    const rule = JOIN[name], first = units[0].arrays[name];
    if (rule.family && !families[rule.family]) { arrays[name] = { type: first.type, count: 0, components: first.components, words: new Uint32Array(0) }; continue; }
    const components = rule.influences ? K : first.components;
    const parts = [];
    let entries = 0; // an offsets array's running count of its entries
    units.forEach((u, i) => {
      const a = u.arrays[name];
      let words = a.words;
      if (rule.offsets) {
        const n = a.count - 1, shifted = new Uint32Array(n);
        for (let v = 0; v < n; ++v) shifted[v] = words[v] + entries;
        entries += u.arrays[rule.offsets].count;
        parts.push(shifted);
        return;
      }
      if (rule.influences && a.components !== K) words = padInfluences(words, a.components, K, a.count);
      if (rule.base) {
        const base = bases[i][rule.base];
        words = words.map((w) => (w === NO_JOINT && rule.base === 'bone' ? w : w + base));
      }
      parts.push(words);
    });
    if (rule.offsets) parts.push(Uint32Array.of(entries));
    const words = concat(parts);
    arrays[name] = { type: first.type, count: words.length / components, components, words };
  }
  const first = units.map((_, i) => bases[i].vertex).concat(totals.vertex);
  const firstTriangle = units.map((_, i) => bases[i].corner / 3).concat(totals.corner / 3);
  return { arrays, n: totals.vertex, F: totals.corner / 3, boneCount: totals.bone, targetCount: totals.target, first, firstTriangle };
}

// k values per vertex padded to K (a padding joint 0 of weight 0: no influence).
function padInfluences(words, k, K, count) {
  const out = new Uint32Array(K * count);
  for (let v = 0; v < count; ++v) out.set(words.subarray(k * v, k * v + k), K * v);
  return out;
}

function concat(parts) {
  const out = new Uint32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// The whole character as gpu.js reads a mesh (setMesh) and each moment (run): the joined units, and per moment
// the poses and the core's frames of the asset's evaluation.
export class GpuCharacter {
  // units: AssetEval.unitTopologies(); throws where the units cannot share one mesh's settings.
  constructor(units) {
    const signs = new Set(units.map((u) => u.bitangentSign));
    if (signs.size !== 1) throw new Error('the units\' UV conventions differ');
    const j = joinUnits(units);
    Object.assign(this, { joined: j, vertexCount: j.n, triangleCount: j.F, boneCount: j.boneCount, targetCount: j.targetCount,
      unitCount: units.length });
    this.uvConvention = UV_CONVENTIONS.indexOf([...signs][0] < 0 ? 'gltf' : 'v-up');
    this.restPositions = new Float32Array(j.arrays.rest_positions.words.buffer);
    this.indices = j.arrays.indices.words;
    this.hasUv = j.arrays.uvs.count > 0;
  }

  gpuBuffers() { return this.joined.arrays; }

  // One moment of the asset's evaluation ({table, units: AssetEval.draw's with unitSpace, tangentFrame}) as
  // gpu.js's run reads a view: the pose, the options, the core's reference and drawn method (an sf_method; each
  // unit in its own space), the table's statistics; and the ranges the views draw, each unit's triangles placed
  // by its node.
  moment({ table, units: u, tangentFrame }, method, options) {
    const j = this.joined;
    const bones = new Float32Array(BONE_FLOATS * this.boneCount), morph = new Float32Array(this.targetCount);
    let b = 0, t = 0;
    for (const p of u.poses) { bones.set(p.bones, b); b += p.bones.length; morph.set(p.morph, t); t += p.morph.length; }
    const tangents = tangentFrame && this.hasUv;
    const rows = ALL_METHODS.map((_, m) => (m === method ? { normals: u.normals, tangents: tangents ? u.tangents : null } : null));
    const ranges = u.poses.map((p, i) => ({ first: 3 * j.firstTriangle[i], count: 3 * (j.firstTriangle[i + 1] - j.firstTriangle[i]), model: p.toWorld }));
    return { vertexCount: this.vertexCount, targetCount: this.targetCount, bones, morph, options, hasTangentFrame: tangents,
      refNormals: u.refNormals, refTangents: tangents ? u.refTangents : null, rows, ranges,
      summary: (m) => tableSummary(table[METHODS[m]], tangents) };
  }
}

// A row of the asset's table (AssetEval's readTable) as gpu.js reads a view's summary (status 0: measured).
function tableSummary(r, tangents) {
  if (!r || r.status !== 'measured') return { status: 1 };
  return { status: 0, normal: { mean: r.normalMean, max: r.normalMax },
    tangent: tangents ? { mean: r.tangentMean, max: r.tangentMax } : { mean: NaN, max: NaN } };
}
