// A whole glTF evaluated by the library, as `skinframe eval` evaluates it (web/asset_api.c over
// skinframe_eval.h): every mesh instance and primitive posed together, the reference and every default method,
// one table for all of them. The file's bytes go to the wasm core, which has no decoders of compressed geometry:
// a compressed file is first decoded by three.js through the page's GLTFLoader parser (EXT_meshopt_compression's
// buffer views by MeshoptDecoder, KHR_draco_mesh_compression's primitives by DRACOLoader) into a plain .glb,
// which the core reads (with KHR_mesh_quantization) as the command reads the compressed file.
import { METHODS, ALL_METHODS, OPTION_DEFAULTS, WEIGHTINGS, WELDS, TANGENT_MODES, gpuTable } from './skinframe.js';
// The layout of sfw_asset_frame / sfw_asset_clip (web/api_layout.h): ASSET_STRIDE doubles per method.
import { ASSET, ASSET_STRIDE } from './generated/layout.js';

// The command's reference for real assets (eval's defaults): area weighting, weld position + normal, MikkTSpace
// tangents, rebuilt directions; morph deltas added; no jacobian cap. As the page's option indices.
export const EVAL_OPTIONS = Object.freeze({ ...OPTION_DEFAULTS, weighting: WEIGHTINGS.indexOf('area'),
  weld: WELDS.indexOf('position-normal'), tangents: TANGENT_MODES.indexOf('mikktspace') });

const COMPRESSED = ['EXT_meshopt_compression', 'KHR_draco_mesh_compression'];
const MESHOPT = 'EXT_meshopt_compression', DRACO = 'KHR_draco_mesh_compression';
// glTF attribute names as three.js's GLTFLoader names them (its ATTRIBUTES; others lower-cased)
const THREE_NAMES = { POSITION: 'position', NORMAL: 'normal', TANGENT: 'tangent', TEXCOORD_0: 'uv', TEXCOORD_1: 'uv1',
  TEXCOORD_2: 'uv2', TEXCOORD_3: 'uv3', COLOR_0: 'color', WEIGHTS_0: 'skinWeight', JOINTS_0: 'skinIndex' };
const INDEX_TYPES = [[Uint8Array, 5121], [Uint16Array, 5123], [Uint32Array, 5125]];

// A .glb's or .gltf's JSON, or null (the library names what is wrong with the file).
function fileJson(bytes) {
  try {
    const b = new Uint8Array(bytes);
    const glb = b.length >= 20 && b[0] === 0x67 && b[1] === 0x6c && b[2] === 0x54 && b[3] === 0x46;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const text = glb ? b.subarray(20, 20 + view.getUint32(12, true)) : b;
    return JSON.parse(new TextDecoder().decode(text));
  } catch { return null; }
}

// The extensions a file requires that the page's module does not decode, or [].
export function undecodedExtensions(bytes) {
  return (fileJson(bytes)?.extensionsRequired || []).filter((e) => COMPRESSED.includes(e));
}

// A .glb of json and one binary buffer (both chunks padded to 4 bytes, as the format asks).
function writeGlb(json, bin) {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = (text.length + 3) & ~3, binLength = (bin.length + 3) & ~3;
  const out = new Uint8Array(12 + 8 + jsonLength + (bin.length ? 8 + binLength : 0));
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true); v.setUint32(4, 2, true); v.setUint32(8, out.length, true);
  v.setUint32(12, jsonLength, true); v.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20); out.fill(0x20, 20 + text.length, 20 + jsonLength);
  if (bin.length) {
    v.setUint32(20 + jsonLength, binLength, true); v.setUint32(24 + jsonLength, 0x004e4942, true);
    out.set(bin, 28 + jsonLength);
  }
  return out;
}

const withoutExtension = (o, name) => {
  if (!o.extensions?.[name]) return o;
  const out = { ...o, extensions: { ...o.extensions } };
  delete out.extensions[name];
  if (!Object.keys(out.extensions).length) delete out.extensions;
  return out;
};

// The file as three.js's parser decodes it, in one binary chunk: every buffer view (meshopt's decoded, fallback
// buffers gone), then each Draco primitive's attributes and indices as new views its accessors point to, and
// neither extension named: what the command decodes, as a plain file.
async function inflate(json, parser) {
  const views = json.bufferViews || (json.bufferViews = []);
  const data = [];
  let size = 0;
  const append = (bytes) => {
    data.push([size, bytes]);
    const view = { buffer: 0, byteOffset: size, byteLength: bytes.length };
    size = (size + bytes.length + 3) & ~3;
    return view;
  };
  // a view the parser has given to DRACOLoader's worker is detached: each is loaded again (its cache entry dropped)
  const fresh = (i) => { parser.cache.remove(`bufferView:${i}`); return parser.getDependency('bufferView', i); };
  for (let i = 0; i < views.length; ++i) {
    const bytes = new Uint8Array(await fresh(i));
    views[i] = { ...withoutExtension(views[i], MESHOPT), ...append(bytes) };
  }
  const draco = parser.extensions[DRACO];
  for (const mesh of json.meshes || []) {
    for (let p = 0; p < (mesh.primitives || []).length; ++p) {
      const prim = mesh.primitives[p];
      const ext = prim.extensions?.[DRACO];
      if (!ext) continue;
      parser.cache.remove(`bufferView:${ext.bufferView}`);
      const geometry = await draco.decodePrimitive(prim, parser);
      for (const [semantic, accessor] of Object.entries(prim.attributes)) {
        if (ext.attributes[semantic] === undefined) continue;
        const attribute = geometry.attributes[THREE_NAMES[semantic] || semantic.toLowerCase()];
        const array = attribute.array;
        views.push(append(new Uint8Array(array.buffer, array.byteOffset, array.byteLength)));
        const a = { ...json.accessors[accessor], bufferView: views.length - 1 };
        delete a.byteOffset;
        json.accessors[accessor] = a;
      }
      if (prim.indices !== undefined && geometry.index) {
        const array = geometry.index.array;
        views.push(append(new Uint8Array(array.buffer, array.byteOffset, array.byteLength)));
        const a = { ...json.accessors[prim.indices], bufferView: views.length - 1,
          componentType: INDEX_TYPES.find(([Type]) => array instanceof Type)[1] };
        delete a.byteOffset;
        json.accessors[prim.indices] = a;
      }
      mesh.primitives[p] = withoutExtension(prim, DRACO);
      geometry.dispose();
    }
  }
  const bin = new Uint8Array(size);
  for (const [at, bytes] of data) bin.set(bytes, at);
  json.buffers = size ? [{ byteLength: size }] : [];
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    if (json[key]) json[key] = json[key].filter((e) => e !== MESHOPT && e !== DRACO);
    if (json[key] && !json[key].length) delete json[key];
  }
  return writeGlb(json, bin);
}

// One table: {method: {status, normalMean, normalMax, tangentMean, tangentMax, normalCount, tangentCount,
// handedness}} for each default method the core evaluated; status 'measured' or 'cannot run'.
function readTable(sf, ptr) {
  const t = new Float64Array(sf.memory.buffer, ptr, ALL_METHODS.length * ASSET_STRIDE);
  const out = {};
  METHODS.forEach((name) => {
    const m = ALL_METHODS.indexOf(name);
    const row = t.subarray(m * ASSET_STRIDE, (m + 1) * ASSET_STRIDE);
    if (row[ASSET.status] === 0) return;
    const tangents = row[ASSET.tangentCount] > 0;
    out[name] = {
      status: row[ASSET.status] === 1 ? 'measured' : 'cannot run',
      normalMean: row[ASSET.normalMean], normalMax: row[ASSET.normalMax],
      tangentMean: tangents ? row[ASSET.tangentMean] : null, tangentMax: tangents ? row[ASSET.tangentMax] : null,
      normalCount: row[ASSET.normalCount], tangentCount: row[ASSET.tangentCount], handedness: row[ASSET.handedness],
    };
  });
  return out;
}

export class AssetEval {
  // sf: a Skinframe (skinframe.js); bytes: the .glb or self-contained .gltf; options: the page's option
  // indices (EVAL_OPTIONS by default). Throws the library's message (what the command prints after the name).
  constructor(sf, bytes, options = EVAL_OPTIONS) {
    const e = sf.exports;
    const data = new Uint8Array(bytes);
    const ptr = e.sfw_alloc(data.length);
    if (!ptr) throw new Error('out of memory for the file');
    new Uint8Array(sf.memory.buffer, ptr, data.length).set(data);
    const o = { ...EVAL_OPTIONS, ...options };
    const handle = e.sfw_asset_open(ptr, data.length, o.morphDirections, o.weighting, o.weld, o.tangents, o.reference,
      o.jacobianCap);
    e.sfw_free(ptr);
    if (!handle) throw new Error(sf.errorMessage());
    this.sf = sf;
    this.ptr = handle;
    this.options = o;
    this.animationCount = e.sfw_asset_animation_count(handle);
    this.units = e.sfw_asset_unit_count(handle);
    this.vertices = e.sfw_asset_vertex_count(handle);
    this.tangentVertices = e.sfw_asset_tangent_vertex_count(handle);
    // per unit (mesh instance and primitive, in the drawing's order): node, mesh, primitive of the mesh, instance
    const info = e.sfw_asset_units(handle);
    if (!info) throw new Error(sf.errorMessage());
    this.unitInfo = new Uint32Array(sf.memory.buffer, info, 4 * this.units).slice();
  }

  duration(animation) { return animation >= 0 ? this.sf.exports.sfw_asset_duration(this.ptr, animation) : 0; }

  // Every unit posed at time t of animation (-1: the nodes' rest transforms): that frame's table.
  frame(animation, t) {
    const p = this.sf.exports.sfw_asset_frame(this.ptr, animation, t);
    if (!p) throw new Error(this.sf.errorMessage());
    return readTable(this.sf, p);
  }

  // Every frame of the clip (30 per second and its end, as eval plays it): the clip's table, as eval --json's
  // methods; frames in .frames.
  clip(animation) {
    const e = this.sf.exports;
    const framesPtr = e.sfw_alloc(4);
    const p = e.sfw_asset_clip(this.ptr, animation, framesPtr);
    const frames = new Uint32Array(this.sf.memory.buffer, framesPtr, 1)[0];
    e.sfw_free(framesPtr);
    if (!p) throw new Error(this.sf.errorMessage());
    const table = readTable(this.sf, p);
    Object.defineProperty(table, 'frames', { value: frames, enumerable: false });
    return table;
  }

  // Every unit posed together at time t of animation for the views (web/asset_draw.c), from the one evaluation
  // that makes that moment's table (in .table, as frame() gives it): the scene's positions, the method's (an
  // sf_method index) and the reference's frames and the method's angles per vertex, every unit's vertices one
  // after the other (unit k's from first[k]); fresh copies, the caller's to keep or transfer.
  // unitSpace: also, in .units, what the GPU passes of the units read (gpu_character.js): the method's and the
  // reference's frames in each unit's own space (before placement) and each unit's pose and placement.
  draw(method, animation, t, unitSpace = false) {
    const e = this.sf.exports;
    if (this.drawMethod !== method) {
      if (this.drawPtr) e.sfw_draw_destroy(this.drawPtr);
      this.drawPtr = e.sfw_draw_open(this.ptr, method);
      this.drawMethod = this.drawPtr ? method : -1;
      if (!this.drawPtr) throw new Error(this.sf.errorMessage());
    }
    const d = this.drawPtr;
    if (unitSpace && !e.sfw_draw_unit_space(d)) throw new Error(this.sf.errorMessage());
    const tablePtr = e.sfw_draw_pose(d, animation, t);
    if (!tablePtr) throw new Error(this.sf.errorMessage());
    const table = readTable(this.sf, tablePtr);
    const n = e.sfw_draw_vertex_count(d), triangles = e.sfw_draw_triangle_count(d);
    const f = (which, k) => new Float32Array(this.sf.memory.buffer, e.sfw_draw_array(d, which), k * n).slice();
    const [positions, normals, tangents, refNormals, refTangents] = [3, 3, 4, 3, 4].map((k, which) => f(which, k));
    // every default method's angles, by sf_method: method m's normal angles from 2m n, its tangent angles from (2m + 1) n
    const angles = new Float32Array(this.sf.memory.buffer, e.sfw_draw_angles(d), 2 * METHODS.length * n).slice();
    const normalDeg = angles.subarray(2 * method * n, (2 * method + 1) * n);
    const tangentDeg = angles.subarray((2 * method + 1) * n, (2 * method + 2) * n);
    return { table, vertexCount: n, triangleCount: triangles, positions, normals, tangents, refNormals, refTangents, angles,
      normalDeg, tangentDeg, tangentFrame: !!e.sfw_draw_tangent_frame(d),
      indices: new Uint32Array(this.sf.memory.buffer, e.sfw_draw_indices(d), 3 * triangles).slice(),
      first: new Uint32Array(this.sf.memory.buffer, e.sfw_draw_first(d), this.units + 1).slice(),
      units: unitSpace ? this._unitSpace(d, n) : null };
  }

  // The last drawing's frames in each unit's space (web/asset_draw.c's sfw_draw_unit_space: normals, tangents,
  // reference normals, reference tangents) and every unit's pose (12 floats per bone, a weight per morph target)
  // and placement (16 floats, column-major): copies.
  _unitSpace(d, n) {
    const e = this.sf.exports, mem = () => this.sf.memory.buffer;
    const all = new Float32Array(mem(), e.sfw_draw_unit_space(d), 14 * n).slice();
    const poses = Array.from({ length: this.units }, (_, i) => ({
      bones: new Float32Array(mem(), e.sfw_draw_unit_bones(d, i), 12 * e.sfw_draw_unit_bone_count(d, i)).slice(),
      morph: new Float32Array(mem(), e.sfw_draw_unit_morph(d, i), e.sfw_draw_unit_target_count(d, i)).slice(),
      toWorld: new Float32Array(mem(), e.sfw_draw_unit_to_world(d, i), 16).slice(),
    }));
    return { normals: all.subarray(0, 3 * n), tangents: all.subarray(3 * n, 7 * n), refNormals: all.subarray(7 * n, 10 * n),
      refTangents: all.subarray(10 * n, 14 * n), poses };
  }

  // Every unit's topology in the shaders' layout (gpuTable), its pose's sizes and its tangents' handedness sign,
  // for the GPU passes of the whole character (gpu_character.js); after a draw().
  unitTopologies() {
    const e = this.sf.exports, d = this.drawPtr;
    if (!d) throw new Error('no drawing open');
    return Array.from({ length: this.units }, (_, i) => ({ arrays: gpuTable(this.sf, e.sfw_draw_unit_gpu_buffers(d, i)),
      boneCount: e.sfw_draw_unit_bone_count(d, i), targetCount: e.sfw_draw_unit_target_count(d, i),
      bitangentSign: e.sfw_draw_unit_bitangent_sign(d, i) }));
  }

  destroy() {
    if (this.drawPtr) this.sf.exports.sfw_draw_destroy(this.drawPtr);
    if (this.ptr) this.sf.exports.sfw_asset_destroy(this.ptr);
    this.ptr = 0;
    this.drawPtr = 0;
  }
}

function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

// The bytes the core reads from the picked files (File objects): a .glb as it is; a .gltf with its external
// buffers made data: URIs (the module has no files to open); a compressed file decoded by parser (three.js's
// GLTFLoader parser of the same file, gltf.parser).
export async function assetBytes(files, parser = null) {
  const list = Array.from(files);
  const main = list.find((f) => /\.(glb|gltf)$/i.test(f.name));
  const bytes = new Uint8Array(await main.arrayBuffer());
  const required = fileJson(bytes)?.extensionsRequired || [];
  if (parser && (required.includes(MESHOPT) || required.includes(DRACO))) return inflate(fileJson(bytes), parser);
  if (/\.glb$/i.test(main.name)) return bytes;
  let json;
  try { json = JSON.parse(new TextDecoder().decode(bytes)); } catch { return bytes; } // the library says why
  for (const b of json.buffers || []) {
    if (typeof b.uri !== 'string' || b.uri.startsWith('data:')) continue;
    const file = list.find((f) => f.name === decodeURIComponent(b.uri.split('/').pop()));
    if (file) b.uri = `data:application/octet-stream;base64,${base64(new Uint8Array(await file.arrayBuffer()))}`;
  }
  return new TextEncoder().encode(JSON.stringify(json));
}

// The page's whole character: the open file's AssetEval, remade when the reference options change, and its
// table at a time (kept until the time, the clip or the options change).
export class Character {
  // sf: the page's Skinframe; bytes: assetBytes(files). .reason says why there is no table (then .asset is null).
  constructor(sf, bytes) {
    this.sf = sf;
    this.bytes = bytes;
    this.asset = null;
    this.reason = '';
    this.key = '';
    const undecoded = undecodedExtensions(bytes);
    if (undecoded.length) this.reason = `${undecoded.join(', ')}: not decoded for the whole character (no three.js parser given)`;
  }

  // options: the page's state.options (weighting -1, the scenes' own, is eval's area for a file).
  _assetFor(options) {
    if (this.reason && !this.asset) return null;
    const o = { ...options, weighting: options.weighting < 0 ? 0 : options.weighting };
    const key = JSON.stringify(o);
    if (this.asset && this.asset.optionsKey === key) return this.asset;
    this.asset?.destroy();
    this.asset = null;
    this.table = null;
    try {
      this.asset = new AssetEval(this.sf, this.bytes, o);
    } catch (e) {
      this.reason = e.message;
      return null;
    }
    this.asset.optionsKey = key;
    return this.asset;
  }

  // The table at time t of animation (-1: rest), or null (see .reason).
  at(animation, t, options) {
    const a = this._assetFor(options);
    if (!a) return null;
    const key = `${a.optionsKey} ${animation} ${t}`;
    if (this.key !== key) {
      this.table = a.frame(animation, t);
      this.key = key;
    }
    return this.table;
  }

  // One moment as the character worker answers it: {table, drawing} at time t of animation, drawing the views'
  // arrays of every unit posed together for the sf_method index `method` (AssetEval.draw: the table and the
  // arrays from one evaluation; null when method < 0); null without an asset (see .reason).
  // unitSpace: the drawing's .units too (AssetEval.draw).
  moment(animation, t, options, method, unitSpace = false) {
    if (method < 0) {
      const table = this.at(animation, t, options);
      return table ? { table, drawing: null } : null;
    }
    const a = this._assetFor(options);
    if (!a) return null;
    const { table, ...drawing } = a.draw(method, animation, t, unitSpace);
    this.table = table;
    this.key = `${a.optionsKey} ${animation} ${t}`;
    return { table, drawing };
  }

  // The whole clip as eval --json reports it (every frame at 30 per second and the end), or null.
  clip(animation, options) {
    const a = this._assetFor(options);
    return a ? a.clip(animation) : null;
  }

  destroy() { this.asset?.destroy(); this.asset = null; }
}
