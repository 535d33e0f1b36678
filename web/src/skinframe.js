// The wasm core (build-web/skinframe.wasm, web/api.c) behind a small wrapper: typed-array views straight into
// the module's memory, made once per mesh and remade only when memory grows or the core moves an array, so a
// frame (write the pose, run, read frames and statistics) allocates nothing. Works in node and in the browser.

import { METHOD_NAMES, METHOD_DEFAULT_COUNT, WEIGHTINGS, MORPH_DIRECTIONS, WELDS, TANGENT_MODES, REFERENCES,
  UV_CONVENTIONS, STAT, STAT_STRIDE, STAT_ANGLES, TAB, TAB_ROW, TAB_PER_METHOD, TAB_SIZE, MESH, MESH_FLAG, BONE_FLOATS,
  GPU_BUFFER, GPU_BUFFER_WORDS, GPU_TYPES }
  from './generated/layout.js';

// The core's methods in sf_method order (sfw_catalog_json lists them; catalog() checks they agree). A view
// evaluates METHODS, the default ones; ALL_METHODS adds recompute-fused (recompute's frames bit for bit, in one
// pass at several times its CPU cost) for view.setAllMethods(true).
export const ALL_METHODS = METHOD_NAMES;
export const METHODS = ALL_METHODS.slice(0, METHOD_DEFAULT_COUNT);
export const RECOMPUTE = METHODS.indexOf('recompute');
// The options' names by value (the command's names): sf_weighting, sf_morph_directions, sf_weld, sf_tangent_mode,
// sf_reference; and sf_uv_convention.
export { WEIGHTINGS, MORPH_DIRECTIONS, WELDS, TANGENT_MODES, REFERENCES, UV_CONVENTIONS };
// setOptions' weighting for the scene's own (sfw_view_set_options), not an sf_weighting
export const WEIGHTING_OF_SCENE = -1;
// A view's options before setOptions: the library's defaults, the scene's weighting, no jacobian cap.
export const OPTION_DEFAULTS = Object.freeze({
  morphDirections: MORPH_DIRECTIONS.indexOf('deltas'), weighting: WEIGHTING_OF_SCENE, weld: WELDS.indexOf('none'),
  tangents: TANGENT_MODES.indexOf('uv'), reference: REFERENCES.indexOf('rebuilt'), jacobianCap: 0,
});

// The layouts of sfw_view_stats (STAT_STRIDE doubles per method), sfw_view_table (TAB_SIZE pointers) and
// sfw_mesh_array's `which` (MESH), generated from web/api_layout.h.
export { STAT, STAT_STRIDE };
export const ANGLE_FIELDS = STAT_ANGLES;

// The WASI calls wasi-libc links in: stdio's output goes to the console and the clock is performance.now();
// the page's module has no files (the glTF layer gets the file's bytes), so every file call answers EBADF and
// every path ENOENT.
const WASI_EBADF = 8, WASI_ENOENT = 44;
function wasiStubs(getMemory) {
  const decoder = new TextDecoder();
  return {
    fd_write(fd, iovs, iovsLen, nwritten) {
      const view = new DataView(getMemory().buffer);
      let total = 0; let text = '';
      for (let i = 0; i < iovsLen; ++i) {
        const ptr = view.getUint32(iovs + 8 * i, true); const len = view.getUint32(iovs + 8 * i + 4, true);
        text += decoder.decode(new Uint8Array(getMemory().buffer, ptr, len));
        total += len;
      }
      view.setUint32(nwritten, total, true);
      if (text) (fd === 2 ? console.error : console.log)(text.replace(/\n$/, ''));
      return 0;
    },
    fd_close() { return 0; },
    fd_seek() { return 70; /* ESPIPE */ },
    clock_time_get(id, precision, out) {
      const now = typeof performance !== 'undefined' ? performance.now() : Date.now();
      new DataView(getMemory().buffer).setBigUint64(out, BigInt(Math.round(now * 1e6)), true);
      return 0;
    },
    fd_fdstat_get() { return WASI_EBADF; },
    fd_fdstat_set_flags() { return WASI_EBADF; },
    fd_filestat_get() { return WASI_EBADF; },
    fd_prestat_get() { return WASI_EBADF; }, // no preopened folders
    fd_prestat_dir_name() { return WASI_EBADF; },
    fd_read() { return WASI_EBADF; },
    path_filestat_get() { return WASI_ENOENT; },
    path_open() { return WASI_ENOENT; },
    proc_exit(code) { throw new Error(`skinframe.wasm exited (${code})`); },
  };
}

// The core comes as two modules: skinframe-simd.wasm (compiled with -msimd128: the fast paths' SIMD128 level, bit for
// bit the scalar loops) and skinframe.wasm (no SIMD) for an engine without SIMD128. The probe is a module of one
// function, `i32.const 0; i32x4.splat`, which WebAssembly.validate accepts only where the engine has SIMD128.
const SIMD_PROBE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, /* magic, version */
  1, 5, 1, 0x60, 0, 1, 0x7b, /* type: () -> v128 */ 3, 2, 1, 0, /* one function of that type */
  10, 8, 1, 6, 0, 0x41, 0, 0xfd, 0x11, 0x0b]); /* its body: i32.const 0, i32x4.splat, end */
export function wasmSimdSupported() {
  try { return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}
// The module's file name for this engine.
export function wasmFileName(simd = wasmSimdSupported()) { return simd ? 'skinframe-simd.wasm' : 'skinframe.wasm'; }

// source: the module's bytes (ArrayBuffer, typed array), a compiled WebAssembly.Module, or a URL to fetch.
export async function loadSkinframe(source) {
  let module;
  if (source instanceof WebAssembly.Module) module = source;
  else if (typeof source === 'string' || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`skinframe.wasm: ${response.status} ${response.statusText}`);
    module = await WebAssembly.compile(await response.arrayBuffer());
  } else module = await WebAssembly.compile(source);
  let memory = null;
  const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasiStubs(() => memory) });
  memory = instance.exports.memory;
  instance.exports._initialize();
  return new Skinframe(instance);
}

export class Skinframe {
  constructor(instance) {
    this.exports = instance.exports;
    this.memory = instance.exports.memory;
    this.encoder = new TextEncoder();
    this.decoder = new TextDecoder();
    this._catalog = null;
  }

  string(ptr) {
    if (!ptr) return null;
    const bytes = new Uint8Array(this.memory.buffer);
    let end = ptr;
    while (bytes[end] !== 0) ++end;
    return this.decoder.decode(bytes.subarray(ptr, end));
  }

  errorMessage() { return this.string(this.exports.sfw_error_message()) || 'failed'; }

  // Encodes strings one after the other (NUL-terminated) into the scratch buffer; returns their pointers.
  strings(...texts) {
    const encoded = texts.map((t) => this.encoder.encode(t ?? ''));
    const size = encoded.reduce((n, e) => n + e.length + 1, 0);
    const base = this.exports.sfw_scratch(size);
    if (!base) throw new Error('out of memory for strings');
    const bytes = new Uint8Array(this.memory.buffer);
    const ptrs = [];
    let at = base;
    for (const e of encoded) { bytes.set(e, at); bytes[at + e.length] = 0; ptrs.push(at); at += e.length + 1; }
    return ptrs;
  }

  // Every scene (params, presets, targets) and method, from the core.
  catalog() {
    if (!this._catalog) {
      const catalog = JSON.parse(this.string(this.exports.sfw_catalog_json()));
      const names = catalog.methods.map((m) => m.name);
      const defaults = catalog.methods.filter((m) => m.default).map((m) => m.name);
      if (names.join() !== ALL_METHODS.join() || defaults.join() !== METHODS.join())
        throw new Error(`the core's methods (${names.join(', ')}) are not the page's`);
      this._catalog = catalog;
    }
    return this._catalog;
  }

  // A built-in scene with a preset and then settings ({name: value} or [[name, value], ...], applied in order).
  openScene(name, preset = '', settings = {}) {
    const list = settingList(settings);
    const [n, p, s] = this.strings(name, preset || '', settingText(list));
    const ptr = this.exports.sfw_scene_open(n, p, s);
    if (!ptr) throw new Error(this.errorMessage());
    return new View(this, ptr, { scene: name, preset, settings: list });
  }

  // A mesh from arrays: {positions (Float32Array 3n), indices (Uint32Array 3t), normals?, tangents? (4n),
  // uvs? (2n), influenceCount, joints? (Uint32Array), weights?, boneCount, targets?: [{positions, normals?,
  // tangents?}], gltf?: true to make it as the glTF loader makes a primitive: flat normals when it has none,
  // MikkTSpace tangents when it has none, splitting the vertices whose corners differ)}. Throws the library's
  // message when the mesh is rejected.
  createMesh(desc) {
    const e = this.exports;
    const n = desc.positions.length / 3;
    const t = desc.indices.length / 3;
    const targets = desc.targets || [];
    const has = (present, bit) => (present ? 1 << bit : 0);
    const flags = has(desc.normals, MESH_FLAG.normals) | has(desc.tangents, MESH_FLAG.tangents) |
      has(desc.uvs, MESH_FLAG.uvs) | has(targets.some((x) => x.normals), MESH_FLAG.morphNormals) |
      has(targets.some((x) => x.tangents), MESH_FLAG.morphTangents);
    const influences = desc.influenceCount || 0;
    const ptr = e.sfw_mesh_create(n, t, influences, desc.boneCount || 0, targets.length, flags);
    if (!ptr) throw new Error(this.errorMessage());
    const fill = (which, k, Type, data) => {
      if (!data) return;
      const at = e.sfw_mesh_array(ptr, which, k);
      new Type(this.memory.buffer, at, data.length).set(data);
    };
    fill(MESH.positions, 0, Float32Array, desc.positions);
    fill(MESH.indices, 0, Uint32Array, desc.indices);
    fill(MESH.normals, 0, Float32Array, desc.normals);
    fill(MESH.tangents, 0, Float32Array, desc.tangents);
    fill(MESH.uvs, 0, Float32Array, desc.uvs);
    if (influences) {
      fill(MESH.joints, 0, Uint32Array, desc.joints);
      fill(MESH.weights, 0, Float32Array, desc.weights);
    }
    targets.forEach((x, k) => {
      fill(MESH.morphPositions, k, Float32Array, x.positions);
      fill(MESH.morphNormals, k, Float32Array, x.normals);
      fill(MESH.morphTangents, k, Float32Array, x.tangents);
    });
    const done = e.sfw_mesh_commit(ptr, desc.gltf ? 1 : 0);
    if (!done) throw new Error(this.errorMessage());
    return new View(this, done, { scene: null });
  }
}

// One mesh under evaluation. view.bones / view.morph: the pose of the next run (write into them).
// After run(): view.positions, view.refNormals, view.refTangents, view.rows[m] = {normals, tangents,
// normalDeg, tangentDeg}, view.stats (Float64Array, STAT layout) and view.summary(m). Read them through the
// view each time (not kept across calls that may grow memory): the getters remake detached views.
function settingList(settings) { return Array.isArray(settings) ? settings : Object.entries(settings); }
function settingText(list) { return list.map(([k, v]) => `${k}=${Number(v)}`).join('\n'); }

export class View {
  constructor(sf, ptr, info) {
    this.sf = sf;
    this.ptr = ptr;
    this.info = info;
    const e = sf.exports;
    this.vertexCount = e.sfw_view_vertex_count(ptr);
    this.triangleCount = e.sfw_view_triangle_count(ptr);
    this.boneCount = e.sfw_view_bone_count(ptr);
    this.targetCount = e.sfw_view_target_count(ptr);
    this.hasTangentFrame = e.sfw_view_has_tangent_frame(ptr) === 1;
    this._rows = ALL_METHODS.map(() => ({ normals: null, tangents: null, normalDeg: null, tangentDeg: null }));
    this._buffer = null;
    this._table = new Uint32Array(TAB_SIZE);
    this._summaries = ALL_METHODS.map(() => ({ status: -1, normal: {}, tangent: {}, handedness: 0 }));
    this.options = { ...OPTION_DEFAULTS };
    this._refresh(true);
  }

  // (Re)makes every view when memory has grown (old views are detached) or the core's arrays moved.
  _refresh(force) {
    const e = this.sf.exports;
    const buffer = this.sf.memory.buffer;
    const tablePtr = e.sfw_view_table(this.ptr);
    const table = new Uint32Array(buffer, tablePtr, TAB_SIZE);
    let moved = force || buffer !== this._buffer;
    for (let i = 0; i < TAB_SIZE && !moved; ++i) moved = table[i] !== this._table[i];
    if (!moved) return;
    this._buffer = buffer;
    this._table.set(table);
    const n = this.vertexCount;
    const f32 = (ptr, len) => (ptr ? new Float32Array(buffer, ptr, len) : null);
    this._bones = f32(e.sfw_view_bones(this.ptr), BONE_FLOATS * this.boneCount) || new Float32Array(0);
    this._morph = f32(e.sfw_view_morph(this.ptr), this.targetCount) || new Float32Array(0);
    this._stats = new Float64Array(buffer, e.sfw_view_stats(this.ptr), STAT_STRIDE * ALL_METHODS.length);
    this._frame = f32(e.sfw_view_frame(this.ptr), 4);
    this._indices = new Uint32Array(buffer, e.sfw_view_indices(this.ptr), 3 * this.triangleCount);
    this._uvs = f32(e.sfw_view_uvs(this.ptr), 2 * n);
    this._restPositions = f32(e.sfw_view_rest_positions(this.ptr), 3 * n);
    this._restNormals = f32(e.sfw_view_rest_normals(this.ptr), 3 * n);
    this._restTangents = f32(e.sfw_view_rest_tangents(this.ptr), 4 * n);
    this._boneHeads = f32(e.sfw_view_bone_heads(this.ptr), 3 * this.boneCount);
    this._boneTails = f32(e.sfw_view_bone_tails(this.ptr), 3 * this.boneCount);
    this._positions = f32(table[TAB.positions], 3 * n);
    this._refNormals = f32(table[TAB.refNormals], 3 * n);
    this._refTangents = f32(table[TAB.refTangents], 4 * n);
    for (let m = 0; m < ALL_METHODS.length; ++m) {
      const r = this._rows[m]; const at = TAB.rows + TAB_PER_METHOD * m;
      r.normals = f32(table[at + TAB_ROW.normals], 3 * n);
      r.tangents = f32(table[at + TAB_ROW.tangents], 4 * n);
      r.normalDeg = f32(table[at + TAB_ROW.normalDeg], n);
      r.tangentDeg = f32(table[at + TAB_ROW.tangentDeg], n);
    }
  }

  // Every array below is a view into the module's memory, remade when memory has grown (one comparison).
  get bones() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._bones; }
  get morph() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._morph; }
  get stats() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._stats; }
  get frame() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._frame; }
  get indices() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._indices; }
  get uvs() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._uvs; }
  get restPositions() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._restPositions; }
  get restNormals() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._restNormals; }
  get restTangents() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._restTangents; }
  get boneHeads() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._boneHeads; }
  get boneTails() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._boneTails; }
  get positions() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._positions; }
  get refNormals() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._refNormals; }
  get refTangents() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._refTangents; }
  get rows() { if (this.sf.memory.buffer !== this._buffer) this._refresh(false); return this._rows; }
  sync() { this._refresh(false); return this; }

  // A built-in scene's view with other settings (as openScene takes them): true when they change only the pose
  // (bone sliders, morph weights): the view keeps its topology and evaluation, run() next; false when they change
  // the mesh (resolution, a weight falloff): open the scene again, this view is unchanged. Throws on bad settings.
  repose(settings, preset = this.info.preset) {
    if (!this.info.scene) throw new Error('not a built-in scene');
    const list = settingList(settings);
    const [n, p, s] = this.sf.strings(this.info.scene, preset || '', settingText(list));
    const r = this.sf.exports.sfw_scene_repose(this.ptr, n, p, s);
    if (r < 0) throw new Error(this.sf.errorMessage());
    if (r === 0) return false;
    this.info = { ...this.info, preset, settings: list };
    this._refresh(true); // the rig's arrays are the new scene's
    return true;
  }

  // {morphDirections, weighting (WEIGHTING_OF_SCENE: the scene's), weld, tangents, reference, jacobianCap}, as the
  // values of the names above (MORPH_DIRECTIONS, WEIGHTINGS, WELDS, TANGENT_MODES, REFERENCES).
  setOptions(options) {
    const o = { ...this.options, ...options };
    const ok = this.sf.exports.sfw_view_set_options(this.ptr, o.morphDirections, o.weighting, o.weld, o.tangents,
      o.reference, o.jacobianCap);
    if (!ok) throw new Error(this.sf.errorMessage());
    this.options = o;
    this._refresh(true);
    return this;
  }

  // live: per-frame statistics without the percentiles (mean, rms, max, shares; p50/p95 NaN).
  setLive(live) {
    if (!this.sf.exports.sfw_view_set_live(this.ptr, live ? 1 : 0)) throw new Error(this.sf.errorMessage());
    this.live = !!live;
    this._refresh(true);
    return this;
  }

  // all: evaluate ALL_METHODS (recompute-fused too) instead of METHODS.
  setAllMethods(all) {
    if (!this.sf.exports.sfw_view_set_all_methods(this.ptr, all ? 1 : 0)) throw new Error(this.sf.errorMessage());
    this._refresh(true);
    return this;
  }

  // Evaluates the pose in bones/morph: the reference, every method, the statistics. No allocation.
  run() {
    if (!this.sf.exports.sfw_view_run(this.ptr)) throw new Error(this.sf.errorMessage());
    this._refresh(false);
    return this;
  }

  // Posed positions only (into this.positions' storage is not touched): into out, a Float32Array of 3n.
  deform(out) {
    const e = this.sf.exports;
    if (!this._deformPtr) this._deformPtr = e.sfw_alloc(12 * this.vertexCount);
    if (!e.sfw_view_deform(this.ptr, this._deformPtr)) throw new Error(this.sf.errorMessage());
    out.set(new Float32Array(this.sf.memory.buffer, this._deformPtr, 3 * this.vertexCount));
    this._refresh(false);
    return out;
  }

  // The topology's arrays in the shaders' layout (gpuTable).
  gpuBuffers() { return gpuTable(this.sf, this.sf.exports.sfw_view_gpu_buffers(this.ptr)); }

  // The mesh's UV convention (an index of UV_CONVENTIONS), which sets the sign of the tangents' handedness.
  get uvConvention() { return this.sf.exports.sfw_view_uv_convention(this.ptr); }

  stat(m, field) { return this.stats[m * STAT_STRIDE + field]; }

  // The statistics of method m as an object (reused: copy what you keep).
  summary(m) { return summaryOf(this.stats, m, this._summaries[m]); }

  destroy() {
    if (!this.ptr) return;
    if (this._deformPtr) this.sf.exports.sfw_free(this._deformPtr);
    this.sf.exports.sfw_view_destroy(this.ptr);
    this.ptr = 0;
  }
}

// A topology's arrays in the shaders' layout from the table at `at` (sfw_gpu_table: sf_topology_gpu_buffers'):
// name -> {type ('f32' or 'u32'), count, components, words: a Uint32Array copy of the values' bits}. An absent
// array has count 0.
export function gpuTable(sf, at) {
  const buffer = sf.memory.buffer;
  const count = new Uint32Array(buffer, at, 1)[0];
  const t = new Uint32Array(buffer, at + 4, GPU_BUFFER_WORDS * count);
  const bytes = new Uint8Array(buffer);
  const out = {};
  for (let i = 0; i < count; ++i) {
    const r = t.subarray(GPU_BUFFER_WORDS * i, GPU_BUFFER_WORDS * (i + 1));
    const name = r[GPU_BUFFER.name], n = r[GPU_BUFFER.count], components = r[GPU_BUFFER.components];
    const data = r[GPU_BUFFER.data];
    let end = name;
    while (bytes[end]) ++end;
    const key = new TextDecoder().decode(bytes.subarray(name, end));
    const words = n && data ? Uint32Array.from(new Uint32Array(buffer, data, n * components)) : new Uint32Array(0);
    out[key] = { type: GPU_TYPES[r[GPU_BUFFER.type]], count: n, components, words };
  }
  return out;
}

// Method m's statistics out of sfw_view_stats' doubles (stats), into s.
export function summaryOf(stats, m, s = { normal: {}, tangent: {} }) {
  const base = m * STAT_STRIDE;
  s.status = stats[base];
  for (let i = 0; i < ANGLE_FIELDS.length; ++i) {
    s.normal[ANGLE_FIELDS[i]] = stats[base + STAT.normal + i];
    s.tangent[ANGLE_FIELDS[i]] = stats[base + STAT.tangent + i];
  }
  s.handedness = stats[base + STAT.handedness];
  s.tangentCount = stats[base + STAT.tangentCount];
  s.worstNormal = stats[base + STAT.worstNormal];
  s.worstTangent = stats[base + STAT.worstTangent];
  return s;
}
