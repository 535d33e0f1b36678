// The reference on the GPU where the browser offers WebGPU: the skinning pass, the face pass and the gather
// (shaders/*.wgsl) over the precomputed vertex -> corner adjacency, no atomics. Each run reads the result
// back and measures it against the wasm core's reference (the page shows the largest angle; it must stay
// within 1e-3 degrees). Options the shaders do not cover (weld, MikkTSpace, authored) are left to the wasm.
import skinWgsl from '../../shaders/skin.wgsl?raw';
import facesWgsl from '../../shaders/recompute_faces.wgsl?raw';
import gatherWgsl from '../../shaders/recompute_gather.wgsl?raw';

const S = globalThis.GPUBufferUsage || {};

function angleDeg(a, ai, b, bi) {
  const ax = a[ai], ay = a[ai + 1], az = a[ai + 2], bx = b[bi], by = b[bi + 1], bz = b[bi + 2];
  const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz);
  if (la === 0 || lb === 0) return la === lb ? 0 : 180;
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  return (Math.atan2(Math.hypot(cx, cy, cz), ax * bx + ay * by + az * bz) * 180) / Math.PI;
}

export class GpuReference {
  // null without WebGPU or an adapter.
  static async create(page, report) {
    if (typeof navigator === 'undefined' || !navigator.gpu) return null;
    try {
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return null;
      const device = await adapter.requestDevice();
      const g = new GpuReference(device, page, report);
      g.adapterInfo = adapter.info ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim() : '';
      return g;
    } catch (e) {
      report(`WebGPU: ${e.message}`, false);
      return null;
    }
  }

  constructor(device, page, report) {
    this.device = device;
    this.page = page;
    this.report = report;
    this.lastMs = null;
    const mk = (code) => device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
    this.skin = mk(skinWgsl);
    this.faces = mk(facesWgsl);
    this.gather = mk(gatherWgsl);
    this.busy = false;
    this.mesh = null;
    this.runs = 0;
  }

  buffer(data, usage = S.STORAGE) {
    const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4);
    const b = this.device.createBuffer({ size, usage: usage | S.COPY_DST });
    if (data.byteLength) this.device.queue.writeBuffer(b, 0, data);
    return b;
  }

  // Buffers and the adjacency of a new mesh (once per mesh).
  setMesh(view) {
    if (this.mesh) for (const b of this.mesh.buffers) b.destroy();
    const sf = view.sf, e = sf.exports, mem = () => sf.memory.buffer;
    const n = view.vertexCount, F = view.triangleCount;
    const influences = e.sfw_view_influence_count(view.ptr);
    const targets = view.targetCount;
    const deltas = new Float32Array(Math.max(1, 3 * n * targets));
    let sparse = false;
    for (let k = 0; k < targets; ++k) {
      const p = e.sfw_view_target_deltas(view.ptr, k);
      if (!p) { sparse = true; continue; }
      deltas.set(new Float32Array(mem(), p, 3 * n), 3 * n * k);
    }
    const jp = e.sfw_view_joints(view.ptr), wp = e.sfw_view_weights(view.ptr);
    const joints = influences ? Uint32Array.from(new Uint32Array(mem(), jp, influences * n)) : new Uint32Array(1);
    const weights = influences ? Float32Array.from(new Float32Array(mem(), wp, influences * n)) : new Float32Array(1);
    // vertex -> corners, in corner order (the core's adjacency order)
    const idx = view.indices;
    const offsets = new Uint32Array(n + 1);
    for (let c = 0; c < 3 * F; ++c) offsets[idx[c] + 1]++;
    for (let v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
    const fill = offsets.slice(0, n);
    const corners = new Uint32Array(Math.max(1, 3 * F));
    for (let c = 0; c < 3 * F; ++c) corners[fill[idx[c]]++] = c;
    const m = {
      n, F, influences, targets, sparse, bitangentSign: e.sfw_view_uv_convention(view.ptr) === 0 ? -1 : 1,
      hasUv: !!view.uvs,
      rest: this.buffer(Float32Array.from(view.restPositions)), joints: this.buffer(joints), weights: this.buffer(weights),
      bones: this.buffer(new Float32Array(Math.max(12, 12 * view.boneCount))), deltas: this.buffer(deltas),
      morph: this.buffer(new Float32Array(Math.max(1, targets))), skinned: this.buffer(new Float32Array(4 * n)),
      indices: this.buffer(Uint32Array.from(idx)), uvs: this.buffer(view.uvs ? Float32Array.from(view.uvs) : new Float32Array(2 * n)),
      face: this.buffer(new Float32Array(12 * Math.max(1, F))), offsets: this.buffer(offsets), corners: this.buffer(corners),
      frames: this.buffer(new Float32Array(7 * n), S.STORAGE | S.COPY_SRC),
      read: this.device.createBuffer({ size: 28 * n, usage: S.MAP_READ | S.COPY_DST }),
      params: [0, 1, 2].map(() => this.device.createBuffer({ size: 16, usage: S.UNIFORM | S.COPY_DST })),
      out: new Float32Array(7 * n),
    };
    m.buffers = [m.rest, m.joints, m.weights, m.bones, m.deltas, m.morph, m.skinned, m.indices, m.uvs, m.face, m.offsets, m.corners, m.frames, m.read, ...m.params];
    const group = (pipeline, list) => this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0),
      entries: list.map((buffer, binding) => ({ binding, resource: { buffer } })) });
    m.groups = [
      group(this.skin, [m.params[0], m.rest, m.joints, m.weights, m.bones, m.deltas, m.morph, m.skinned]),
      group(this.faces, [m.params[1], m.indices, m.uvs, m.skinned, m.face]),
      group(this.gather, [m.params[2], m.offsets, m.corners, m.face, m.frames]),
    ];
    this.mesh = m;
    this.pending = null;
  }

  // What the shaders cannot do, or null.
  unsupported(view, weighting) {
    const o = view.options;
    if (this.mesh?.sparse) return 'sparse morph targets';
    if (o.weld !== 0) return 'weld';
    if (o.tangents !== 0) return 'MikkTSpace tangents';
    if (o.reference !== 0) return 'authored reference';
    if (weighting < 0 || weighting > 2) return 'weighting';
    return null;
  }

  // Runs the three passes for the view's pose and compares with view.refNormals / refTangents. One run at a
  // time; a request while one is in flight runs after it with the newest pose.
  run(view, weighting) {
    if (!this.mesh || this.mesh.n !== view.vertexCount) return;
    if (this.busy) { this.pending = [view, weighting]; return; }
    const why = this.unsupported(view, weighting);
    if (why) { this.lastMs = null; this.page.gpu.check = null; this.report(`GPU reference: off for ${why} (the wasm core computes it)`); return; }
    this.busy = true;
    const m = this.mesh, d = this.device, q = d.queue;
    const t0 = performance.now();
    q.writeBuffer(m.bones, 0, Float32Array.from(view.bones));
    if (m.targets) q.writeBuffer(m.morph, 0, Float32Array.from(view.morph));
    q.writeBuffer(m.params[0], 0, new Uint32Array([m.n, m.influences, m.targets, 0]));
    q.writeBuffer(m.params[1], 0, new Uint32Array([m.n, m.F, weighting, m.hasUv ? 1 : 0]));
    const p2 = new ArrayBuffer(16);
    new Uint32Array(p2, 0, 2).set([m.n, weighting]);
    new Float32Array(p2, 8, 1)[0] = m.bitangentSign;
    q.writeBuffer(m.params[2], 0, p2);
    const enc = d.createCommandEncoder();
    const pass = enc.beginComputePass();
    for (const [pipe, group, count] of [[this.skin, m.groups[0], m.n], [this.faces, m.groups[1], m.F], [this.gather, m.groups[2], m.n]]) {
      pass.setPipeline(pipe); pass.setBindGroup(0, group); pass.dispatchWorkgroups(Math.ceil(count / 64));
    }
    pass.end();
    enc.copyBufferToBuffer(m.frames, 0, m.read, 0, 28 * m.n);
    q.submit([enc.finish()]);
    const refN = Float32Array.from(view.refNormals), refT = view.refTangents ? Float32Array.from(view.refTangents) : null;
    m.read.mapAsync(GPUMapMode.READ).then(() => {
      this.lastMs = performance.now() - t0;
      m.out.set(new Float32Array(m.read.getMappedRange()));
      m.read.unmap();
      let maxN = 0, maxT = 0;
      for (let v = 0; v < m.n; ++v) {
        maxN = Math.max(maxN, angleDeg(m.out, 3 * v, refN, 3 * v));
        if (refT && m.hasUv) maxT = Math.max(maxT, angleDeg(m.out, 3 * m.n + 4 * v, refT, 4 * v));
      }
      // without UVs neither side has tangents: not measured (null), not 0
      const tangents = refT && m.hasUv;
      const ok = maxN <= 1e-3 && (!tangents || maxT <= 1e-3);
      this.page.gpu.check = { maxNormalDeg: maxN, maxTangentDeg: tangents ? maxT : null, ok, runs: ++this.runs };
      this.page.gpu.normals = m.out;
      this.report(`GPU reference (WebGPU ${this.adapterInfo}): largest angle to the wasm reference ${maxN.toExponential(2)}° normals, ` +
        `${tangents ? maxT.toExponential(2) + '° tangents' : 'tangents not measured (no UVs)'} — ${ok ? 'equal within 1e-3°' : 'DIFFERENT (over 1e-3°)'}`, !ok);
    }).catch((e) => this.report(`GPU reference: ${e.message}`, true)).finally(() => {
      this.busy = false;
      if (this.pending) { const [v, w] = this.pending; this.pending = null; this.run(v, w); }
    });
  }
}
