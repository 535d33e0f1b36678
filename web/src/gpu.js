// Every method the GPU computes per vertex, and the reference, on the GPU where the browser offers WebGPU: the
// WGSL passes of shaders/ (each after shaders/generated/layout.wgsl and shaders/common.wgsl) over the topology's arrays as
// sf_topology_gpu_buffers lists them (the wasm core's, packed into one buffer). Each run measures every pass against
// the wasm core's result for that method on the GPU (gpu_compare.wgsl: the core's frames of the pose uploaded, the
// largest angles and the handedness differences reduced there, 16 bytes per method read back; the page shows the
// largest angle, which must stay within 1e-3 degrees). With the reference on the GPU, gpu_stats.wgsl reduces each
// method's normal and tangent errors to a mean and a maximum (16 bytes per method read back), checked against the
// core's statistics. Reference options the shaders do not cover (weld, MikkTSpace, authored) leave the reference
// (recompute, recompute-fused) to the wasm: the core's reference goes into the reference slot, and the statistics
// and the views measure against it; the per-vertex methods do not depend on them.
// The class runs in the scene worker (scene_worker.js), which uploads its own frames there: the built-in scenes',
// its copy of a glTF primitive's and a whole character's units joined (gpu_character.js); on the page only where
// there is no worker. `page.gpu` holds its settings
// (capBytes, compareAgainst) and outcome (check, limit, busy); page.gpu.changed, where set, hears of each change.
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
import compareWgsl from './gpu_compare.wgsl?raw';
import angleWgsl from './angle.wgsl?raw';
import reduceWgsl from './reduce.wgsl?raw';
import { ALL_METHODS, METHODS, UV_CONVENTIONS, WEIGHTINGS, WELDS, TANGENT_MODES, REFERENCES } from './skinframe.js';
import { PARAM, PARAM_SETTINGS, PARAM_WORDS, GPU_ARRAYS, FRAME_FLOATS, FRAME_NORMAL_FLOATS, STATS_PARAM,
  STATS_PARAM_WORDS, COMPARE_PARAM, COMPARE_PARAM_WORDS, REDUCE_WORKGROUP, PASS_WORKGROUP, REDUCE_OUT_FLOATS, STATS_OUT,
  COMPARE_OUT, STATE_STRIDE, BONE_FLOATS, FACE_FLOATS } from './generated/layout.js';
import { referenceRoundingDeg } from './float_bound.js';

const S = globalThis.GPUBufferUsage || {};
const TOLERANCE_DEG = 1e-3;
// the methods whose directions are rebuilt from the deformed triangles: float32's rounding of the positions bounds
// their agreement on a fine mesh (float_bound.js)
const REBUILT = new Set(['recompute', 'recompute-fused']);
// generated/layout.wgsl's Params (PARAM: the word of each setting), then the word offset of each array in `topo`
// in GPU_ARRAYS order (sf_topology_gpu_buffers'), padded to PARAM_WORDS.
const BLOCK = 256; // bytes per dispatch's Params (WebGPU's minUniformBufferOffsetAlignment)
// Output slots in sf_method order, recompute-fused included (a view evaluates it only on request: its GPU pass
// is checked against the wasm reference, whose frames it equals bit for bit).
const M = Object.fromEntries(ALL_METHODS.map((name, i) => [name, i]));

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
      page.gpu.granted = { ...requiredLimits, maxComputeWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension };
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
    const statsModule = device.createShaderModule({ code: `${layoutWgsl}\n${angleWgsl}\n${statsWgsl}\n${reduceWgsl}` });
    const statsPipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [this.statsLayout] });
    this.statsPipes = ['partial_main', 'total_main'].map((entryPoint) =>
      device.createComputePipeline({ layout: statsPipelineLayout, compute: { module: statsModule, entryPoint } }));
    // the cross-check (gpu_compare.wgsl): params, frames, the core's frames, per-workgroup partials, per-slot results
    this.compareLayout = device.createBindGroupLayout({
      entries: [{ buffer: { type: 'uniform' } }, storage('read-only-storage'), storage('read-only-storage'), storage('storage'),
        storage('storage')].map((e, binding) => ({ binding, visibility: GPUShaderStage.COMPUTE, ...e })),
    });
    const compareModule = device.createShaderModule({ code: `${layoutWgsl}\n${angleWgsl}\n${compareWgsl}\n${reduceWgsl}` });
    const comparePipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [this.compareLayout] });
    this.comparePipes = ['partial_main', 'total_main'].map((entryPoint) =>
      device.createComputePipeline({ layout: comparePipelineLayout, compute: { module: compareModule, entryPoint } }));
    this.busy = false;
    this.mesh = null;
    page.gpu.timeUpdates = (count) => this.timeUpdates(count);
  }

  buffer(data, usage = S.STORAGE) {
    const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4);
    const b = this.device.createBuffer({ size, usage: usage | S.COPY_DST });
    if (data.byteLength) this.device.queue.writeBuffer(b, 0, data);
    return b;
  }

  // The mesh's buffers and any run waiting for them, dropped (the page has left the mesh).
  release() {
    // a read-back in flight maps the old buffers: they go when it ends, never under it
    if (this.mesh) {
      if (this.busy) this.retired = (this.retired || []).concat(this.mesh.buffers);
      else for (const b of this.mesh.buffers) b.destroy();
    }
    this.mesh = null;
    this.pending = null;
  }

  // The topology's arrays, packed, and the buffers of a new mesh (once per mesh).
  setMesh(view) {
    this.release();
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
    const need = Math.max(4 * words, 4 * STATE_STRIDE * n, 4 * FACE_FLOATS * F, 4 * FRAME_FLOATS * n * ALL_METHODS.length);
    // sfPage.gpu.capBytes (tests) lowers the limit to see a mesh refused
    const limit = Math.min(this.device.limits.maxStorageBufferBindingSize, this.device.limits.maxBufferSize, this.page.gpu.capBytes ?? Infinity);
    // one thread per vertex or triangle, PASS_WORKGROUP a workgroup, in one dimension
    const dispatch = Math.ceil(Math.max(n, F) / PASS_WORKGROUP), maxGroups = this.device.limits.maxComputeWorkgroupsPerDimension;
    this.page.gpu.limit = { need, limit, groups: dispatch, maxGroups };
    this.page.gpu.changed?.();
    if (need > limit || dispatch > maxGroups) {
      const mib = (x) => { const v = x / 1048576; return `${v >= 10 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1)} MiB`; };
      this.report(`GPU check off for this mesh: it needs ${need > limit ? `a ${mib(need)} buffer, this WebGPU adapter allows ${mib(limit)}`
        : `${dispatch} workgroups in a dispatch, this WebGPU adapter allows ${maxGroups}`} (the wasm core computes everything)`, false);
      return;
    }
    const topo = new Uint32Array(Math.max(4, words));
    for (const [i, name] of GPU_ARRAYS.entries()) topo.set(arrays[name].words, offsets[i]);
    const poseWords = BONE_FLOATS * view.boneCount + view.targetCount;
    const m = {
      n, F, offsets, influences: arrays.joints.components, hasUv: arrays.uvs.count > 0,
      hasJacobian: arrays.grad_slot_offsets.count > 0, hasFan: arrays.fan_slot_offsets.count > 0,
      morphBase: BONE_FLOATS * view.boneCount,
      bitangentSign: view.uvConvention === UV_CONVENTIONS.indexOf('gltf') ? -1 : 1,
      // a deformed coordinate blends one rounded term per influence, and the rest position: as many float32 steps
      rebuiltToleranceDeg: Math.max(TOLERANCE_DEG, referenceRoundingDeg(view.restPositions, view.indices, arrays.joints.components + 1)),
      topo: this.buffer(topo), pose: this.buffer(new Float32Array(Math.max(4, poseWords))),
      state: this.buffer(new Float32Array(STATE_STRIDE * Math.max(1, n))), face: this.buffer(new Float32Array(FACE_FLOATS * Math.max(1, F))),
      // COPY_DST: the views drawn on the GPU take the core's reference where the passes leave it out (gpu_views.js)
      frames: this.device.createBuffer({ size: Math.max(16, 4 * FRAME_FLOATS * n * ALL_METHODS.length), usage: S.STORAGE | S.COPY_DST }),
      core: this.device.createBuffer({ size: Math.max(16, 4 * FRAME_FLOATS * n * ALL_METHODS.length), usage: S.STORAGE | S.COPY_DST }),
      params: this.device.createBuffer({ size: BLOCK * 16, usage: S.UNIFORM | S.COPY_DST }),
    };
    const slots = ALL_METHODS.length, groups = Math.ceil(n / REDUCE_WORKGROUP);
    m.statsGroups = groups;
    m.statsParams = this.device.createBuffer({ size: 4 * STATS_PARAM_WORDS, usage: S.UNIFORM | S.COPY_DST });
    m.statsPartial = this.buffer(new Float32Array(REDUCE_OUT_FLOATS * groups * slots));
    m.statsOut = this.buffer(new Float32Array(REDUCE_OUT_FLOATS * slots), S.STORAGE | S.COPY_SRC);
    m.statsRead = this.device.createBuffer({ size: 4 * REDUCE_OUT_FLOATS * slots, usage: S.MAP_READ | S.COPY_DST });
    m.statsGroup = this.device.createBindGroup({ layout: this.statsLayout, entries: [m.statsParams, m.frames, m.statsPartial, m.statsOut]
      .map((buffer, binding) => ({ binding, resource: { buffer } })) });
    m.compareParams = this.device.createBuffer({ size: 4 * COMPARE_PARAM_WORDS, usage: S.UNIFORM | S.COPY_DST });
    m.comparePartial = this.buffer(new Float32Array(REDUCE_OUT_FLOATS * groups * slots));
    m.compareOut = this.buffer(new Float32Array(REDUCE_OUT_FLOATS * slots), S.STORAGE | S.COPY_SRC);
    m.compareRead = this.device.createBuffer({ size: 4 * REDUCE_OUT_FLOATS * slots, usage: S.MAP_READ | S.COPY_DST });
    m.compareGroup = this.device.createBindGroup({ layout: this.compareLayout,
      entries: [m.compareParams, m.frames, m.core, m.comparePartial, m.compareOut].map((buffer, binding) => ({ binding, resource: { buffer } })) });
    m.buffers = [m.topo, m.pose, m.state, m.face, m.frames, m.core, m.params, m.statsParams, m.statsPartial, m.statsOut, m.statsRead,
      m.compareParams, m.comparePartial, m.compareOut, m.compareRead];
    m.group = this.device.createBindGroup({ layout: this.layout, entries: [
      { binding: 0, resource: { buffer: m.params, size: 4 * PARAM_WORDS } },
      ...[m.topo, m.pose, m.state, m.frames, m.face].map((buffer, i) => ({ binding: i + 1, resource: { buffer } })),
    ] });
    this.mesh = m;
  }

  // Why the reference passes cannot run with these options, or null.
  referenceOff(view, weighting) {
    const o = view.options;
    if (o.weld !== WELDS.indexOf('none')) return 'weld';
    if (o.tangents !== TANGENT_MODES.indexOf('uv')) return 'MikkTSpace tangents';
    if (o.reference !== REFERENCES.indexOf('rebuilt')) return 'authored reference';
    if (!(weighting >= 0 && weighting < WEIGHTINGS.length)) return 'weighting';
    return null;
  }

  // Runs the passes for the view's pose and compares each with the wasm core's frames of its method. One run at
  // a time; a request while one is in flight runs after it with the newest pose.
  run(view, weighting) {
    if (!this.mesh || this.mesh.n !== view.vertexCount) return;
    if (this.busy) { this.pending = [view, weighting]; return; }
    this.busy = true;
    this.page.gpu.busy = true;
    this.page.gpu.changed?.();
    this.last = [view, weighting];
    const m = this.mesh;
    const t0 = performance.now();
    this.evaluate(view, weighting).then((result) => {
      if (!result || m !== this.mesh) return; // the mesh changed meanwhile: these results belong to no view
      this.lastMs = this.page.gpu.lastMs = performance.now() - t0;
      this.publish(view, result);
    }).catch((e) => { if (m === this.mesh) this.report(`GPU: ${e.message}`, true); }).finally(() => {
      this.busy = false;
      for (const b of this.retired || []) b.destroy();
      this.retired = null;
      // a pending run starts at once, so the page never sees the GPU idle with a pose still to check
      if (this.pending) { const [v, w] = this.pending; this.pending = null; this.run(v, w); }
      if (!this.busy) { this.page.gpu.busy = false; this.page.gpu.changed?.(); }
    });
  }

  // The passes and the statistics (against the GPU's reference, or the core's where the view carries it and the
  // options keep the reference off the GPU), submitted: {slots (the method slots written), tangents (measured),
  // refOff, statistics (reduced)}.
  submitPasses(view, weighting) {
    const m = this.mesh, d = this.device, q = d.queue, n = m.n;
    const refOff = this.referenceOff(view, weighting);
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
      u[PARAM.has_uv] = m.hasUv ? 1 : 0; u[PARAM.out_base] = FRAME_FLOATS * n * Math.max(0, method);
      f[PARAM.bitangent_sign] = m.bitangentSign; f[PARAM.jacobian_cap] = cap;
      u[PARAM.morph_base] = m.morphBase;
      u.set(m.offsets, PARAM_SETTINGS);
    });
    q.writeBuffer(m.params, 0, block);
    const tangents = view.hasTangentFrame && m.hasUv;
    const statsBlock = new Uint32Array(STATS_PARAM_WORDS);
    statsBlock[STATS_PARAM.n] = n; statsBlock[STATS_PARAM.ref_slot] = M.recompute; statsBlock[STATS_PARAM.groups] = m.statsGroups;
    statsBlock[STATS_PARAM.tangents] = tangents ? 1 : 0;
    q.writeBuffer(m.statsParams, 0, statsBlock);
    // the reference off the GPU (weld, MikkTSpace, authored): the core's reference goes into its slot, where the
    // statistics and the views read it, before the passes' submit
    const coreRef = refOff && view.refNormals;
    if (coreRef) {
      const at = 4 * FRAME_FLOATS * n * M.recompute;
      q.writeBuffer(m.frames, at, view.refNormals.buffer, view.refNormals.byteOffset, view.refNormals.byteLength);
      if (tangents && view.refTangents) {
        q.writeBuffer(m.frames, at + 4 * FRAME_NORMAL_FLOATS * n, view.refTangents.buffer, view.refTangents.byteOffset,
          view.refTangents.byteLength);
      }
    }
    const enc = d.createCommandEncoder();
    const pass = enc.beginComputePass();
    passes.forEach(([pipe, threads], k) => {
      if (!threads) return;
      pass.setPipeline(pipe); pass.setBindGroup(0, m.group, [BLOCK * k]); pass.dispatchWorkgroups(Math.ceil(threads / PASS_WORKGROUP));
    });
    pass.end();
    if (!refOff || coreRef) {
      // every slot's normal and tangent angles against the reference slot, reduced to means and maxima: 16 bytes per slot
      const sp = enc.beginComputePass();
      sp.setBindGroup(0, m.statsGroup);
      sp.setPipeline(this.statsPipes[0]); sp.dispatchWorkgroups(m.statsGroups, ALL_METHODS.length);
      sp.setPipeline(this.statsPipes[1]); sp.dispatchWorkgroups(ALL_METHODS.length);
      sp.end();
      enc.copyBufferToBuffer(m.statsOut, 0, m.statsRead, 0, 4 * REDUCE_OUT_FLOATS * ALL_METHODS.length);
    }
    q.submit([enc.finish()]);
    this.onSubmit?.(view, { tangents, refOff }); // the views drawn from these buffers (gpu_views.js)
    return { slots: passes.map((p) => p[2]).filter((method) => method >= 0), tangents, refOff, statistics: !refOff || !!coreRef };
  }

  // The passes, the core's frames uploaded, the comparison and the statistics on the GPU; resolves to what
  // came back: {rows, stats, tangents, refOff}, or null when the mesh changed meanwhile.
  async evaluate(view, weighting) {
    const m = this.mesh, d = this.device, q = d.queue, n = m.n;
    const { slots, tangents, refOff, statistics } = this.submitPasses(view, weighting);
    // the core's frames of this pose beside the GPU's, slot for slot; a test may name another method's frames
    // for a slot (page.gpu.compareAgainst: {slot: method}), which the comparison must report as different
    const against = this.page.gpu.compareAgainst || {};
    const coreOf = (method) => {
      const ref = method === M.recompute || method === M['recompute-fused'];
      const row = view.rows[method];
      return [ref ? view.refNormals : row?.normals, tangents ? (ref ? view.refTangents : row?.tangents) : null];
    };
    // the slots whose frames the core gave (a whole character's moment carries the drawn method's alone)
    const compared = slots.filter((method) => coreOf(M[against[ALL_METHODS[method]]] ?? method)[0]);
    // uploaded at once, before the view's next evaluation reuses the core's arrays (in the scene worker, off
    // the page's thread)
    for (const method of compared) {
      const [normals, tangentArray] = coreOf(M[against[ALL_METHODS[method]]] ?? method);
      for (const [data, at] of [[normals, FRAME_FLOATS * n * method], [tangentArray, FRAME_FLOATS * n * method + FRAME_NORMAL_FLOATS * n]])
        if (data) q.writeBuffer(m.core, 4 * at, data.buffer, data.byteOffset, data.byteLength);
    }
    const cpw = new Uint32Array(COMPARE_PARAM_WORDS);
    cpw[COMPARE_PARAM.n] = n; cpw[COMPARE_PARAM.groups] = m.statsGroups; cpw[COMPARE_PARAM.tangents] = tangents ? 1 : 0;
    q.writeBuffer(m.compareParams, 0, cpw);
    const enc2 = d.createCommandEncoder();
    const cp = enc2.beginComputePass();
    cp.setBindGroup(0, m.compareGroup);
    cp.setPipeline(this.comparePipes[0]); cp.dispatchWorkgroups(m.statsGroups, ALL_METHODS.length);
    cp.setPipeline(this.comparePipes[1]); cp.dispatchWorkgroups(ALL_METHODS.length);
    cp.end();
    enc2.copyBufferToBuffer(m.compareOut, 0, m.compareRead, 0, 4 * REDUCE_OUT_FLOATS * ALL_METHODS.length);
    q.submit([enc2.finish()]);
    // the core's statistics of this pose, for the GPU's (the methods it evaluated)
    const coreStats = !statistics ? null : METHODS.map((name, i) => {
      const sm = view.summary(i);
      return sm.status === 0 ? { method: name, mean: sm.normal.mean, max: sm.normal.max,
        tangentMean: tangents ? sm.tangent.mean : null, tangentMax: tangents ? sm.tangent.max : null } : null;
    }).filter(Boolean);
    await m.compareRead.mapAsync(GPUMapMode.READ);
    if (m !== this.mesh) return null;
    const c = new Float32Array(m.compareRead.getMappedRange()).slice();
    m.compareRead.unmap();
    const rows = compared.map((method) => {
      const at = REDUCE_OUT_FLOATS * method;
      return { method, normalDeg: c[at + COMPARE_OUT.NORMAL_MAX], tangentDeg: tangents ? c[at + COMPARE_OUT.TANGENT_MAX] : null,
        handedness: tangents ? c[at + COMPARE_OUT.HANDEDNESS] : null };
    });
    let stats = null;
    if (coreStats) {
      await m.statsRead.mapAsync(GPUMapMode.READ);
      if (m !== this.mesh) return null;
      const g = new Float32Array(m.statsRead.getMappedRange()).slice();
      m.statsRead.unmap();
      stats = {};
      let diff = 0;
      for (const s of coreStats) {
        const at = REDUCE_OUT_FLOATS * M[s.method];
        const [mean, max, tMean, tMax] = [STATS_OUT.NORMAL_MEAN, STATS_OUT.NORMAL_MAX, STATS_OUT.TANGENT_MEAN,
          STATS_OUT.TANGENT_MAX].map((lane) => g[at + lane]);
        const r = stats[s.method] = { normalMean: mean, normalMax: max, coreMean: s.mean, coreMax: s.max };
        diff = Math.max(diff, Math.abs(mean - s.mean), Math.abs(max - s.max));
        if (!tangents) continue;
        Object.assign(r, { tangentMean: tMean, tangentMax: tMax, coreTangentMean: s.tangentMean, coreTangentMax: s.tangentMax });
        diff = Math.max(diff, Math.abs(tMean - s.tangentMean), Math.abs(tMax - s.tangentMax));
      }
      stats.largestDifference = diff;
    }
    return { rows, stats, tangents, refOff };
  }

  // For web/bench/sheet_gpu.mjs and character_gpu_node.mjs: the milliseconds of each of `count` updates of the
  // last run's view (its pose written again, and the core's reference where the GPU does not compute it), each
  // the passes and the statistics, submitted and their 16 bytes per method read back.
  async timeUpdates(count) {
    if (this.busy || !this.last || !this.mesh) throw new Error('no idle GPU run to repeat');
    const m = this.mesh, times = [];
    this.busy = true;
    try {
      for (let i = 0; i < count; ++i) {
        const t0 = performance.now();
        if (!this.submitPasses(...this.last).statistics) throw new Error('no reference to measure against for these options');
        await m.statsRead.mapAsync(GPUMapMode.READ);
        m.statsRead.unmap();
        times.push(performance.now() - t0);
      }
    } finally {
      this.busy = false;
      if (this.pending) { const [v, w] = this.pending; this.pending = null; this.run(v, w); }
    }
    return times;
  }

  // The comparison's outcome on the page (page.gpu.check) and in its line.
  publish(view, { rows, stats, tangents, refOff }) {
    const methods = {};
    const rebuiltTol = this.mesh.rebuiltToleranceDeg;
    let maxN = 0, maxT = 0, hand = 0, worst = '', over = false;
    for (const r of rows) {
      const name = ALL_METHODS[r.method], mn = r.normalDeg, mt = r.tangentDeg || 0, h = r.handedness || 0;
      methods[name] = { normalDeg: mn, tangentDeg: r.tangentDeg, handedness: r.handedness };
      if (Math.max(mn, mt) >= Math.max(maxN, maxT)) worst = name;
      maxN = Math.max(maxN, mn); maxT = Math.max(maxT, mt); hand += h;
      const tol = REBUILT.has(name) ? rebuiltTol : TOLERANCE_DEG;
      over ||= mn > tol || (tangents && mt > tol);
    }
    const reference = methods.recompute || null;
    // every angle is measured against the reference: one the GPU rebuilt moves each angle, so the statistics, by
    // at most its own angle to the core's (the triangle inequality on the sphere)
    const statsTol = TOLERANCE_DEG + (reference ? Math.max(reference.normalDeg, reference.tangentDeg ?? 0) : 0);
    const ok = !over && hand === 0 && (!stats || stats.largestDifference <= statsTol);
    this.page.gpu.check = { maxNormalDeg: maxN, maxTangentDeg: tangents ? maxT : null, handedness: tangents ? hand : null,
      ok, worst, rebuiltToleranceDeg: rebuiltTol, runs: this.page.gpu.runs = (this.page.gpu.runs || 0) + 1, methods, reference,
      referenceOff: refOff, stats, moment: view.moment ?? null };
    this.report(`GPU (WebGPU ${this.adapterInfo}): ${rows.length} methods against the wasm core, largest angle ` +
      `${maxN.toExponential(2)}° normals, ${tangents ? maxT.toExponential(2) + '° tangents' : 'tangents not measured (no UVs)'}` +
      `${worst ? ` (${worst})` : ''}${tangents && hand ? `, ${hand} handedness differences` : ''}` +
      `${stats ? `; ${tangents ? 'normal and tangent' : 'normal'} mean/max on the GPU within ${stats.largestDifference.toExponential(2)}° of the core's` : ''}` +
      ` — ${ok ? 'equal within 1e-3°' : 'DIFFERENT (over 1e-3°)'}` +
      `${rebuiltTol > TOLERANCE_DEG ? ` (the rebuilt reference within ${rebuiltTol.toExponential(1)}°, float32's rounding over this mesh's shortest edge)` : ''}` +
      `${refOff ? `; reference off for ${refOff} (the wasm core computes it${stats ? ', the statistics measure against it' : ''})` : ''}`, !ok);
  }
}
