// Every method the GPU computes per vertex, and the reference, on the GPU where the browser offers WebGPU: the
// WGSL passes of shaders/ (each after shaders/generated/layout.wgsl and shaders/common.wgsl) over the topology's arrays as
// sf_topology_gpu_buffers lists them (the wasm core's, packed into one buffer). Each run reads the frames back
// and measures every pass against the wasm core's result for that method (the page shows the largest angle; it
// must stay within 1e-3 degrees): in the scene worker for its scenes (compareRemote), on the page otherwise. With
// the reference on the GPU, gpu_stats.wgsl reduces each method's normal errors to a mean and a maximum (8 bytes
// per method read back), checked against the core's statistics. Reference options the shaders do not cover (weld, MikkTSpace, authored) leave
// the reference (recompute, recompute-fused) to the wasm; the per-vertex methods do not depend on them.
import layoutWgsl from '../../shaders/generated/layout.wgsl?raw';
import commonWgsl from '../../shaders/common.wgsl?raw';
import deformWgsl from '../../shaders/deform.wgsl?raw';
import framesVertexWgsl from '../../shaders/frames_vertex.wgsl?raw';
import jacobianWgsl from '../../shaders/jacobian.wgsl?raw';
import jacobianFanWgsl from '../../shaders/jacobian_fan.wgsl?raw';
import facesWgsl from '../../shaders/recompute_faces.wgsl?raw';
import gatherWgsl from '../../shaders/recompute_gather.wgsl?raw';
import fusedWgsl from '../../shaders/recompute_fused.wgsl?raw';
import statsWgsl from './gpu_stats.wgsl?raw';
import { ALL_METHODS, METHODS } from './skinframe.js';
import { compareFrames } from './frame_compare.js';
import { PARAM, PARAM_SETTINGS, PARAM_WORDS, GPU_ARRAYS } from './generated/layout.js';

const S = globalThis.GPUBufferUsage || {};
const TOLERANCE_DEG = 1e-3;
// generated/layout.wgsl's Params (PARAM: the word of each setting), then the word offset of each array in `topo`
// in GPU_ARRAYS order (sf_topology_gpu_buffers'), padded to PARAM_WORDS.
const BLOCK = 256; // bytes per dispatch's Params (WebGPU's minUniformBufferOffsetAlignment)
// Output slots in sf_method order, recompute-fused included (a view evaluates it only on request: its GPU pass
// is checked against the wasm reference, whose frames it equals bit for bit).
const M = Object.fromEntries(ALL_METHODS.map((name, i) => [name, i]));

// A worker's check copies the read-back SLICE_FLOATS at a time; slice() yields to the page's other tasks once
// SLICE_MS have passed since the last yield.
const SLICE_FLOATS = 1 << 15;
const SLICE_MS = 1;
let sliceStart = 0;
// scheduler.yield resumes without setTimeout's 4 ms clamp
const yieldTask = globalThis.scheduler?.yield ? () => globalThis.scheduler.yield() : () => new Promise((r) => setTimeout(r, 0));
async function slice() {
  const now = performance.now();
  if (now - sliceStart < SLICE_MS) return;
  await yieldTask();
  sliceStart = performance.now();
}

export class GpuReference {
  // null without WebGPU or an adapter.
  static async create(page, report) {
    if (typeof navigator === 'undefined' || !navigator.gpu) return null;
    try {
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return null;
      // the adapter's largest buffers, not the defaults (128 MiB bindings): a 1 M-vertex sheet needs more
      const requiredLimits = {};
      for (const k of ['maxStorageBufferBindingSize', 'maxBufferSize'])
        if (adapter.limits?.[k]) requiredLimits[k] = adapter.limits[k];
      const device = await adapter.requestDevice({ requiredLimits });
      device.addEventListener?.('uncapturederror', (e) => report(`WebGPU: ${e.error.message}`, true));
      device.pushErrorScope('validation');
      const g = new GpuReference(device, page, report);
      const err = await device.popErrorScope();
      if (err) throw new Error(err.message);
      g.adapterInfo = adapter.info ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`.trim() : '';
      return g;
    } catch (e) {
      report(`WebGPU: ${e.message}`, true);
      return null;
    }
  }

  constructor(device, page, report) {
    this.device = device;
    this.page = page;
    this.report = report;
    this.lastMs = null;
    const storage = (type) => ({ buffer: { type } });
    this.layout = device.createBindGroupLayout({
      entries: [
        { buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: 4 * PARAM_WORDS } },
        storage('read-only-storage'), storage('read-only-storage'), storage('storage'), storage('storage'), storage('storage'),
      ].map((e, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, ...e })),
    });
    const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [this.layout] });
    const mk = (code) => device.createComputePipeline({ layout: pipelineLayout,
      compute: { module: device.createShaderModule({ code: `${layoutWgsl}\n${commonWgsl}\n${code}` }), entryPoint: 'main' } });
    this.pipes = { deform: mk(deformWgsl), vertex: mk(framesVertexWgsl), jacobian: mk(jacobianWgsl),
      jacobianFan: mk(jacobianFanWgsl), faces: mk(facesWgsl), gather: mk(gatherWgsl), fused: mk(fusedWgsl) };
    // the statistics passes (gpu_stats.wgsl): params, frames, per-workgroup partials, per-slot mean and max
    this.statsLayout = device.createBindGroupLayout({
      entries: [{ buffer: { type: 'uniform' } }, storage('read-only-storage'), storage('storage'), storage('storage')]
        .map((e, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, ...e })),
    });
    const statsModule = device.createShaderModule({ code: statsWgsl });
    const statsPipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [this.statsLayout] });
    this.statsPipes = ['partial_main', 'total_main'].map((entryPoint) =>
      device.createComputePipeline({ layout: statsPipelineLayout, compute: { module: statsModule, entryPoint } }));
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

  // The topology's arrays, packed, and the buffers of a new mesh (once per mesh).
  setMesh(view) {
    // a read-back in flight maps the old buffers: they go when it ends, never under it
    if (this.mesh) {
      if (this.busy) this.retired = (this.retired || []).concat(this.mesh.buffers);
      else for (const b of this.mesh.buffers) b.destroy();
    }
    this.mesh = null;
    this.pending = null;
    const arrays = view.gpuBuffers();
    const n = view.vertexCount, F = view.triangleCount;
    const offsets = new Uint32Array(GPU_ARRAYS.length);
    let words = 0;
    for (const [i, name] of GPU_ARRAYS.entries()) {
      if (!arrays[name]) throw new Error(`the core lists no GPU array ${name}`);
      offsets[i] = words;
      words += arrays[name].words.length;
    }
    // the largest buffer this mesh needs against what the device allows: over it, the check is off and says so
    const need = Math.max(4 * words, 128 * n, 48 * F, 28 * n * ALL_METHODS.length);
    const limit = Math.min(this.device.limits.maxStorageBufferBindingSize, this.device.limits.maxBufferSize);
    this.page.gpu.limit = { need, limit };
    if (need > limit) {
      const mib = (x) => `${(x / 1048576).toFixed(0)} MiB`;
      this.report(`GPU check off for this mesh: it needs a ${mib(need)} buffer, this WebGPU adapter allows ${mib(limit)} ` +
        '(the wasm core computes everything)', false);
      return;
    }
    const topo = new Uint32Array(Math.max(4, words));
    for (const [i, name] of GPU_ARRAYS.entries()) topo.set(arrays[name].words, offsets[i]);
    const poseWords = 12 * view.boneCount + view.targetCount;
    const m = {
      n, F, offsets, influences: arrays.joints.components, hasUv: arrays.uvs.count > 0,
      hasJacobian: arrays.grad_slot_offsets.count > 0, hasFan: arrays.fan_slot_offsets.count > 0,
      morphBase: 12 * view.boneCount,
      bitangentSign: view.uvConvention === 0 ? -1 : 1,
      topo: this.buffer(topo), pose: this.buffer(new Float32Array(Math.max(4, poseWords))),
      state: this.buffer(new Float32Array(32 * Math.max(1, n))), face: this.buffer(new Float32Array(12 * Math.max(1, F))),
      frames: this.buffer(new Float32Array(7 * n * ALL_METHODS.length), S.STORAGE | S.COPY_SRC),
      read: this.device.createBuffer({ size: Math.max(16, 28 * n * ALL_METHODS.length), usage: S.MAP_READ | S.COPY_DST }),
      params: this.device.createBuffer({ size: BLOCK * 16, usage: S.UNIFORM | S.COPY_DST }),
      out: new Float32Array(7 * n * ALL_METHODS.length),
    };
    const slots = ALL_METHODS.length, groups = Math.ceil(n / 256);
    m.statsGroups = groups;
    m.statsParams = this.buffer(new Uint32Array([n, M.recompute, groups, 0]), S.UNIFORM);
    m.statsPartial = this.buffer(new Float32Array(2 * groups * slots));
    m.statsOut = this.buffer(new Float32Array(2 * slots), S.STORAGE | S.COPY_SRC);
    m.statsRead = this.device.createBuffer({ size: 8 * slots, usage: S.MAP_READ | S.COPY_DST });
    m.statsGroup = this.device.createBindGroup({ layout: this.statsLayout, entries: [m.statsParams, m.frames, m.statsPartial, m.statsOut]
      .map((buffer, binding) => ({ binding, resource: { buffer } })) });
    m.buffers = [m.topo, m.pose, m.state, m.face, m.frames, m.read, m.params, m.statsParams, m.statsPartial, m.statsOut, m.statsRead];
    m.group = this.device.createBindGroup({ layout: this.layout, entries: [
      { binding: 0, resource: { buffer: m.params, size: 4 * PARAM_WORDS } },
      ...[m.topo, m.pose, m.state, m.frames, m.face].map((buffer, i) => ({ binding: i + 1, resource: { buffer } })),
    ] });
    this.mesh = m;
  }

  // Why the reference passes cannot run with these options, or null.
  referenceOff(view, weighting) {
    const o = view.options;
    if (o.weld !== 0) return 'weld';
    if (o.tangents !== 0) return 'MikkTSpace tangents';
    if (o.reference !== 0) return 'authored reference';
    if (weighting < 0 || weighting > 2) return 'weighting';
    return null;
  }

  // Runs the passes for the view's pose and compares each with the wasm core's frames of its method. One run at
  // a time; a request while one is in flight runs after it with the newest pose.
  run(view, weighting) {
    if (!this.mesh || this.mesh.n !== view.vertexCount) return;
    if (this.busy) { this.pending = [view, weighting]; return; }
    this.busy = true;
    const m = this.mesh, d = this.device, q = d.queue, n = m.n;
    const refOff = this.referenceOff(view, weighting);
    const t0 = performance.now();
    const pose = new Float32Array(Math.max(4, m.morphBase + view.targetCount));
    pose.set(view.bones);
    if (view.targetCount) pose.set(view.morph, m.morphBase);
    q.writeBuffer(m.pose, 0, pose);
    // [pipeline, threads, method (P.method and the output slot; -1: none)]
    const passes = [[this.pipes.deform, n, -1]];
    for (const name of ['unchanged', 'skinned', 'inverse-transpose', 'bone-normal-matrices']) passes.push([this.pipes.vertex, n, M[name]]);
    if (m.hasJacobian) passes.push([this.pipes.jacobian, n, M.jacobian]);
    if (m.hasFan) passes.push([this.pipes.jacobianFan, n, M['jacobian-fan']]);
    if (!refOff) passes.push([this.pipes.faces, m.F, -1], [this.pipes.gather, n, M.recompute], [this.pipes.fused, n, M['recompute-fused']]);
    const block = new ArrayBuffer(BLOCK * passes.length);
    const cap = view.options.jacobianCap || 0;
    passes.forEach(([, , method], k) => {
      const u = new Uint32Array(block, BLOCK * k, PARAM_WORDS), f = new Float32Array(block, BLOCK * k, PARAM_WORDS);
      u[PARAM.vertex_count] = n; u[PARAM.face_count] = m.F; u[PARAM.influences] = m.influences;
      u[PARAM.morph_dirs] = view.options.morphDirections; // sf_morph_directions, as the shaders number it
      u[PARAM.method] = Math.max(0, method); u[PARAM.weighting] = Math.max(0, weighting);
      u[PARAM.has_uv] = m.hasUv ? 1 : 0; u[PARAM.out_base] = 7 * n * Math.max(0, method);
      f[PARAM.bitangent_sign] = m.bitangentSign; f[PARAM.jacobian_cap] = cap;
      u[PARAM.morph_base] = m.morphBase;
      u.set(m.offsets, PARAM_SETTINGS);
    });
    q.writeBuffer(m.params, 0, block);
    const enc = d.createCommandEncoder();
    const pass = enc.beginComputePass();
    passes.forEach(([pipe, threads], k) => {
      if (!threads) return;
      pass.setPipeline(pipe); pass.setBindGroup(0, m.group, [BLOCK * k]); pass.dispatchWorkgroups(Math.ceil(threads / 64));
    });
    pass.end();
    if (!refOff) {
      // every slot's normal angle against the reference slot, reduced to a mean and a maximum: 8 bytes per slot
      const sp = enc.beginComputePass();
      sp.setBindGroup(0, m.statsGroup);
      sp.setPipeline(this.statsPipes[0]); sp.dispatchWorkgroups(m.statsGroups, ALL_METHODS.length);
      sp.setPipeline(this.statsPipes[1]); sp.dispatchWorkgroups(ALL_METHODS.length);
      sp.end();
      enc.copyBufferToBuffer(m.statsOut, 0, m.statsRead, 0, 8 * ALL_METHODS.length);
    }
    enc.copyBufferToBuffer(m.frames, 0, m.read, 0, 28 * n * ALL_METHODS.length);
    q.submit([enc.finish()]);
    // what the wasm core computed for this pose: a worker's scene is compared in the worker, which holds its
    // frames; a mesh evaluated here, against copies made before the next run replaces the core's arrays
    const tangents = view.hasTangentFrame && m.hasUv;
    const remote = view.remote && this.compareRemote;
    const want = passes.filter((p) => p[2] >= 0).map(([, , method]) => {
      const ref = method === M.recompute || method === M['recompute-fused'];
      if (remote) return { method, ref };
      const row = view.rows[method];
      return { method, normals: Float32Array.from(ref ? view.refNormals : row.normals),
        tangents: tangents ? Float32Array.from(ref ? view.refTangents : row.tangents) : null };
    });
    // the core's statistics of this pose, for the GPU's (the methods it evaluated)
    const coreStats = refOff ? null : METHODS.map((name, i) => {
      const sm = view.summary(i);
      return sm.status === 0 ? { method: name, mean: sm.normal.mean, max: sm.normal.max } : null;
    }).filter(Boolean);
    this.page.gpu.busy = true;
    m.read.mapAsync(GPUMapMode.READ).then(async () => {
      if (m !== this.mesh) return; // the mesh changed meanwhile: these frames belong to no view
      let stats = null;
      if (coreStats) {
        await m.statsRead.mapAsync(GPUMapMode.READ);
        const g = new Float32Array(m.statsRead.getMappedRange()).slice();
        m.statsRead.unmap();
        stats = {};
        let diff = 0;
        for (const c of coreStats) {
          const mean = g[2 * M[c.method]], max = g[2 * M[c.method] + 1];
          stats[c.method] = { normalMean: mean, normalMax: max, coreMean: c.mean, coreMax: c.max };
          diff = Math.max(diff, Math.abs(mean - c.mean), Math.abs(max - c.max));
        }
        stats.largestDifference = diff;
      }
      this.lastMs = performance.now() - t0;
      const mapped = new Float32Array(m.read.getMappedRange());
      let rows, frames = m.out;
      if (remote) {
        // copied in slices of a few milliseconds (a 1 M-vertex sheet's frames are hundreds of MB), then given to
        // the worker, which compares and hands them back: the main thread never waits long on a check
        frames = new Float32Array(mapped.length);
        for (let at = 0; at < mapped.length; at += SLICE_FLOATS) {
          frames.set(mapped.subarray(at, Math.min(mapped.length, at + SLICE_FLOATS)), at);
          await slice();
        }
        m.read.unmap();
        const answer = await this.compareRemote(view.id, frames, want, tangents);
        if (!answer || m !== this.mesh) return; // the worker has moved on to a newer pose, whose run follows
        ({ rows, frames } = answer);
      } else {
        m.out.set(mapped);
        m.read.unmap();
        rows = compareFrames(m.out, n, want);
      }
      const methods = {};
      let maxN = 0, maxT = 0, hand = 0, worst = '';
      for (const r of rows) {
        const name = ALL_METHODS[r.method], mn = r.normalDeg, mt = r.tangentDeg || 0, h = r.handedness || 0;
        methods[name] = { normalDeg: mn, tangentDeg: r.tangentDeg, handedness: r.handedness };
        if (Math.max(mn, mt) >= Math.max(maxN, maxT)) worst = name;
        maxN = Math.max(maxN, mn); maxT = Math.max(maxT, mt); hand += h;
      }
      const ok = maxN <= TOLERANCE_DEG && (!tangents || maxT <= TOLERANCE_DEG) && hand === 0 &&
        (!stats || stats.largestDifference <= TOLERANCE_DEG);
      const reference = methods.recompute || null;
      this.page.gpu.check = { maxNormalDeg: maxN, maxTangentDeg: tangents ? maxT : null, handedness: tangents ? hand : null,
        ok, runs: ++this.runs, methods, reference, referenceOff: refOff, stats };
      this.page.gpu.frames = frames; // ALL_METHODS order, 7n floats each (3n normals, 4n tangents); unrun slots stale
      this.page.gpu.normals = reference ? frames.subarray(7 * n * M.recompute, 7 * n * M.recompute + 3 * n) : null;
      this.report(`GPU (WebGPU ${this.adapterInfo}): ${rows.length} methods against the wasm core, largest angle ` +
        `${maxN.toExponential(2)}° normals, ${tangents ? maxT.toExponential(2) + '° tangents' : 'tangents not measured (no UVs)'}` +
        `${worst ? ` (${worst})` : ''}${tangents && hand ? `, ${hand} handedness differences` : ''}` +
        `${stats ? `; normal mean/max on the GPU within ${stats.largestDifference.toExponential(2)}° of the core's` : ''}` +
        ` — ${ok ? 'equal within 1e-3°' : 'DIFFERENT (over 1e-3°)'}` +
        `${refOff ? `; reference off for ${refOff} (the wasm core computes it)` : ''}`, !ok);
    }).catch((e) => { if (m === this.mesh) this.report(`GPU: ${e.message}`, true); }).finally(() => {
      this.busy = false;
      this.page.gpu.busy = false;
      for (const b of this.retired || []) b.destroy();
      this.retired = null;
      if (this.pending) { const [v, w] = this.pending; this.pending = null; this.run(v, w); }
    });
  }
}
