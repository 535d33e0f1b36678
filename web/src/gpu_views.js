// The four views' mesh drawn in the scene worker from the GPU passes' own buffers (gpu.js's state, frames and
// topology), into the page's canvases handed over with transferControlToOffscreen: one WGSL render pipeline
// (gpu_views.wgsl), no vertex buffers and nothing read back. The page sends the camera (three.js's projection
// times view) and the view settings; the latest replaces any not yet drawn, and a draw waits for the GPU to
// finish the previous one, so settings never queue frames. The page's three.js views stay on top as a
// transparent overlay (rig, vectors, marker) sharing the camera.
import layoutWgsl from '../../shaders/generated/layout.wgsl?raw';
import angleWgsl from './angle.wgsl?raw';
import viewsWgsl from './gpu_views.wgsl?raw';
import { ALL_METHODS } from './skinframe.js';
import { GPU_ARRAYS, VIEW_ERROR, VIEW_MODE, VIEW_PARAM, VIEW_PARAM_WORDS } from './generated/layout.js';

const M = Object.fromEntries(ALL_METHODS.map((name, i) => [name, i]));
const CLEAR = { r: 13 / 255, g: 14 / 255, b: 17 / 255, a: 1 }; // views.js's clear colour
const SAMPLES = 4; // as the three.js views' antialiasing
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const BLOCK = 256; // bytes per draw's ViewParams (WebGPU's minUniformBufferOffsetAlignment)

// a times b, 4x4 column-major
function mul4(a, b) {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; ++c) for (let r = 0; r < 4; ++r) {
    let x = 0;
    for (let k = 0; k < 4; ++k) x += a[4 * k + r] * b[4 * c + k];
    out[4 * c + r] = x;
  }
  return out;
}

export class GpuViews {
  // canvases: the four OffscreenCanvases (method, reference, normal error, tangent error); gpu: gpu.js's runner.
  constructor(gpu, canvases, report) {
    const d = this.device = gpu.device;
    this.gpu = gpu;
    this.report = report;
    this.format = navigator.gpu.getPreferredCanvasFormat();
    this.views = canvases.map((canvas) => {
      const context = canvas.getContext('webgpu');
      context.configure({ device: d, format: this.format, alphaMode: 'opaque' });
      return { canvas, context, params: null, draws: 0, color: null, depth: null, group: null };
    });
    const storage = { buffer: { type: 'read-only-storage' } };
    const params = { buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: 4 * VIEW_PARAM_WORDS } };
    this.layout = d.createBindGroupLayout({ entries: [params, storage, storage, storage]
      .map((e, binding) => ({ binding, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, ...e })) });
    const module = d.createShaderModule({ code: `${layoutWgsl}\n${angleWgsl}\n${viewsWgsl}` });
    this.pipeline = d.createRenderPipeline({
      layout: d.createPipelineLayout({ bindGroupLayouts: [this.layout] }),
      vertex: { module, entryPoint: 'vs_main' },
      fragment: { module, entryPoint: 'fs_main', targets: [{ format: this.format }] },
      primitive: { topology: 'triangle-list', cullMode: 'none', frontFace: 'ccw' },
      depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: SAMPLES },
    });
    this.settings = null; // the page's latest: {id, viewProj, model, width, height, material, method, right, on}
    this.mesh = null;
    this.drawing = false;
    this.again = false;
  }

  // The page's camera and settings (coalesced: the latest wins); drawn as soon as the GPU is free.
  set(settings) {
    this.settings = settings;
    this.request();
  }

  // The GPU passes wrote a pose (gpu.js, after its submit): draw it.
  request() {
    if (this.drawing) { this.again = true; return; }
    this.draw();
  }

  // The mesh's bind groups, with room for `draws` draws' parameters per view (a whole character draws each unit).
  bind(m, draws) {
    if (this.mesh === m && this.views[0].draws >= draws) return;
    this.mesh = m;
    for (const v of this.views) {
      if (v.draws < draws) {
        v.params?.destroy();
        v.params = this.device.createBuffer({ size: BLOCK * draws, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
        v.draws = draws;
      }
      v.group = this.device.createBindGroup({ layout: this.layout, entries: [
        { binding: 0, resource: { buffer: v.params, size: 4 * VIEW_PARAM_WORDS } },
        ...[m.topo, m.state, m.frames].map((buffer, i) => ({ binding: i + 1, resource: { buffer } }))] });
    }
  }

  // Targets at the canvas's size (remade when the page's views resize).
  targets(v, width, height) {
    if (v.canvas.width !== width || v.canvas.height !== height || !v.color) {
      v.canvas.width = width; v.canvas.height = height;
      v.color?.destroy(); v.depth?.destroy();
      const size = [width, height];
      v.color = this.device.createTexture({ size, sampleCount: SAMPLES, format: this.format, usage: GPUTextureUsage.RENDER_ATTACHMENT });
      v.depth = this.device.createTexture({ size, sampleCount: SAMPLES, format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
  }

  draw() {
    const s = this.settings, m = this.gpu.mesh, ready = this.gpu.drawable;
    // the page draws this moment itself, or no mesh is on the GPU: nothing to wait for
    if (!s || !s.on || !m) { this.report(null); return; }
    if (!ready || ready.mesh !== m) return; // the mesh's first run is coming: its submit draws

    // what is drawn: the mesh placed by the page's model matrix (folded into its camera), or each of a whole
    // character's units by its own (gpu_character.js)
    const ranges = ready.ranges || [{ first: 0, count: 3 * m.F, model: null }];
    this.bind(m, ranges.length);
    const d = this.device, n = m.n;
    const tangents = ready.tangents;
    const ref = M.recompute, method = M[s.method] ?? M.skinned, right = s.right ? M[s.right] ?? ref : ref;
    // [shaded slot, mode, error] of each view; s.material is a VIEW_MODE (the page's material select)
    const E = VIEW_ERROR, heat = VIEW_MODE.ERROR_HEAT;
    const kinds = [[method, s.material, E.OFF], [right, s.material, E.OFF], [ref, heat, E.NORMAL_ANGLE],
      [ref, heat, tangents ? E.TANGENT_ANGLE : E.NOT_MEASURED]];
    const offsets = Object.fromEntries(GPU_ARRAYS.map((name, i) => [name, m.offsets[i]]));
    const enc = d.createCommandEncoder();
    this.views.forEach((v, k) => {
      const [shade, mode, error] = kinds[k];
      const block = new ArrayBuffer(BLOCK * ranges.length), P = VIEW_PARAM;
      ranges.forEach((r, i) => {
        const f = new Float32Array(block, BLOCK * i, VIEW_PARAM_WORDS), u = new Uint32Array(block, BLOCK * i, VIEW_PARAM_WORDS);
        f.set(r.model ? mul4(s.viewProj, r.model) : s.viewProj, P.view_proj);
        f.set(r.model || s.model || IDENTITY, P.model);
        u[P.n] = n; u[P.shade_slot] = shade; u[P.method_slot] = method; u[P.ref_slot] = ref; u[P.mode] = mode; u[P.error] = error;
        u[P.indices] = offsets.indices; u[P.uvs] = offsets.uvs; u[P.has_uv] = m.hasUv ? 1 : 0;
      });
      d.queue.writeBuffer(v.params, 0, block);
      this.targets(v, s.width, s.height);
      const pass = enc.beginRenderPass({
        colorAttachments: [{ view: v.color.createView(), resolveTarget: v.context.getCurrentTexture().createView(),
          clearValue: CLEAR, loadOp: 'clear', storeOp: 'discard' }],
        depthStencilAttachment: { view: v.depth.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' },
      });
      pass.setPipeline(this.pipeline);
      ranges.forEach((r, i) => {
        pass.setBindGroup(0, v.group, [BLOCK * i]);
        pass.draw(r.count, 1, r.first);
      });
      pass.end();
    });
    d.queue.submit([enc.finish()]);
    const ids = { pose: ready.pose, settings: s.id };
    this.drawing = true;
    d.queue.onSubmittedWorkDone().then(() => {
      this.drawing = false;
      this.report(ids);
      if (this.again) { this.again = false; this.draw(); }
    });
  }
}

// What the page reads of a moment when the GPU draws it: the statistics, the rig, the framing box and, once per
// mesh, the triangles and UVs (the overlay's picking); no per-vertex positions, frames or angles.
function leanSnapshot(v, meshChanged) {
  const copy = (a) => (a ? a.slice() : null);
  const p = v.positions, box = new Float32Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
  for (let i = 0; i + 2 < p.length; i += 3) {
    for (let k = 0; k < 3; ++k) { const x = p[i + k]; if (x < box[k]) box[k] = x; if (x > box[3 + k]) box[3 + k] = x; }
  }
  const s = {
    vertexCount: v.vertexCount, triangleCount: v.triangleCount, boneCount: v.boneCount, hasTangentFrame: v.hasTangentFrame,
    info: v.info, frame: copy(v.frame), stats: copy(v.stats), box, boneHeads: copy(v.boneHeads), boneTails: copy(v.boneTails),
    rows: v.rows.map(() => ({ normals: null, tangents: null, normalDeg: null, tangentDeg: null })), meshChanged,
    indices: meshChanged ? copy(v.indices) : null, uvs: meshChanged ? copy(v.uvs) : null,
  };
  const transfer = [s.frame, s.stats, s.box, s.boneHeads, s.boneTails, s.indices, s.uvs].filter(Boolean).map((a) => a.buffer);
  return { s, transfer };
}

// The scene worker's side: the canvases arrive once ({type: 'views-init'}), the settings with each input or
// camera move ({type: 'views'} or a scene request's `views`), and every GPU run's submit draws its pose.
// Each draw is reported ({type: 'drawn', pose, settings}: the ids drawn) so the page knows when its views
// show what it asked for.
export class WorkerViews {
  constructor(post) {
    this.post = post;
    this.views = null;
    this.pose = 0; // the latest scene request's id
    this.settingsId = 0;
  }

  init(gpu, canvases) {
    if (!gpu || !canvases) return false;
    this.gpu = gpu;
    try {
      this.views = new GpuViews(gpu, canvases, (ids) => this.drawn(ids));
    } catch (e) {
      this.post({ type: 'gpu', line: `WebGPU views: ${e.message}`, isError: true });
      return false;
    }
    // gpu.js calls this after each submit of the passes, with the view whose pose they computed
    // (the reference off the GPU, for weld, MikkTSpace or an authored reference, is the core's in its slot)
    gpu.onSubmit = (view, { tangents }) => {
      gpu.drawable = { mesh: gpu.mesh, tangents, pose: this.pose, ranges: view.ranges || null };
      this.views.request();
    };
    return true;
  }

  // Whether this moment's views are drawn here: the GPU holds the mesh's buffers (within the adapter's limits)
  // and the page asked for it.
  draws(q) { return !!(this.views && q.views?.on && this.gpu.mesh); }

  // The answer to a scene request: without per-vertex arrays where the GPU draws and the page needs none (its
  // overlay's vectors and the inspector ask for them), else full(view, changed)'s.
  snapshot(q, view, changed, full) {
    const drawn = this.draws(q);
    const r = drawn && !q.views.arrays ? leanSnapshot(view, changed) : full(view, changed);
    r.s.gpuDrawn = drawn;
    return r;
  }

  scene(q) {
    this.pose = q.id;
    if (q.views) this.set(q.views, false);
  }

  // After the scene's GPU run was asked for: with nothing to draw here, the page waits for nothing.
  afterRun() { if (!this.views || !this.gpu.mesh) this.drawn(); }

  set(settings, draw = true) {
    if (!this.views) return;
    this.settingsId = settings.id;
    this.views.settings = settings;
    if (draw) this.views.request();
  }

  // ids: what a draw showed; null: nothing is drawn here for the latest request and settings
  drawn(ids = null) {
    this.post({ type: 'drawn', ...(ids || { pose: this.pose, settings: this.settingsId }) });
  }
}
