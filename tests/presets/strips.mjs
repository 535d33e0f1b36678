// The generated strips every engine-preset check (tests/*/presets) loads into its engine, the cases built from
// them, eval's frame times, and the geometry the checks measure with.
// A strip of quads along x (0..4, two rows of vertices), bent by joint 1 (at x = 2, child of joint 0 at the
// origin) turned by the rotation keys ([time, xyzw]; one at t = 0: a clip of one frame). weights(a) gives a vertex's sets from
// a = its blend towards joint 1 (0 at x <= 1, 1 at x >= 3).
export function stripGltf({ normals, weights, keys }) {
  const cols = 9, pos = [], nrm = [], idx = [];
  for (let i = 0; i < cols; ++i)
    for (let r = 0; r < 2; ++r) {
      const x = (4 * i) / (cols - 1);
      pos.push(x, r, 0.3 * Math.sin(1.7 * x + r)); // not flat, so that face normals differ from vertex ones
      nrm.push(0, 0, 1);
    }
  for (let i = 0; i + 1 < cols; ++i) {
    const a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
    idx.push(a, c, b, b, c, d);
  }
  const n = pos.length / 3, sets = [];
  for (let v = 0; v < n; ++v) {
    const a = Math.min(1, Math.max(0, (pos[3 * v] - 1) / 2));
    weights(a).forEach((w, s) => (sets[s] ??= []).push(...w));
  }
  const parts = [], views = [], accessors = [];
  let length = 0;
  const add = (array, type, count, componentType, extra = {}) => {
    const bytes = Buffer.from(array.buffer);
    parts.push(bytes);
    views.push({ buffer: 0, byteOffset: length, byteLength: bytes.length });
    accessors.push({ bufferView: views.length - 1, componentType, count, type, ...extra });
    length += bytes.length;
    return accessors.length - 1;
  };
  const lo = [0, 0, 0].map((_, k) => Math.min(...pos.filter((_, i) => i % 3 === k)));
  const hi = [0, 0, 0].map((_, k) => Math.max(...pos.filter((_, i) => i % 3 === k)));
  const attributes = { POSITION: add(new Float32Array(pos), 'VEC3', n, 5126, { min: lo, max: hi }) };
  if (normals) attributes.NORMAL = add(new Float32Array(nrm), 'VEC3', n, 5126);
  sets.forEach((w, s) => {
    attributes[`JOINTS_${s}`] = add(new Uint16Array(n * 4).map((_, i) => (i % 4 < 2 ? i % 4 : 0)), 'VEC4', n, 5123);
    attributes[`WEIGHTS_${s}`] = add(new Float32Array(w), 'VEC4', n, 5126);
  });
  const indices = add(new Uint16Array(idx), 'SCALAR', idx.length, 5123);
  const ibm = add(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, 0, 0, 1]), 'MAT4', 2, 5126);
  const times = keys.map((k) => k[0]);
  const time = add(new Float32Array(times), 'SCALAR', keys.length, 5126,
                   { min: [times[0]], max: [times[times.length - 1]] });
  const rot = add(new Float32Array(keys.flatMap((k) => k[1])), 'VEC4', keys.length, 5126);
  const data = Buffer.concat(parts);
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0, 2] }],
    nodes: [{ name: 'root', children: [1] }, { name: 'bend', translation: [2, 0, 0] }, { mesh: 0, skin: 0 }],
    meshes: [{ primitives: [{ attributes, indices }] }],
    skins: [{ joints: [0, 1], inverseBindMatrices: ibm }],
    animations: [{ channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }],
                   samplers: [{ input: time, output: rot }] }],
    accessors,
    bufferViews: views,
    buffers: [{ byteLength: data.length, uri: `data:application/octet-stream;base64,${data.toString('base64')}` }],
  });
}

export const sub = (a, i, b, j) => [a[3 * i] - b[3 * j], a[3 * i + 1] - b[3 * j + 1], a[3 * i + 2] - b[3 * j + 2]];
export const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const len = (a) => Math.hypot(a[0], a[1], a[2]);
export const angle = (a, b) => (Math.atan2(len(cross(a, b)), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * 180) / Math.PI;

// eval's frames for a clip ending at `end`: t = 0, 1/30, ... below the end, then the end as the file stores it
// (float32: an engine posed at the double 0.1 is still before a key at 0.1f, which matters where its slerp is
// not continuous there, as three.js's normalising lerp branch is not for keys that are not unit).
export function evalFrames(end) {
  const frames = [];
  for (let f = 0; f / 30 < end - 1e-9; ++f) frames.push(f / 30);
  frames.push(Math.fround(end));
  return frames;
}

const half = Math.SQRT1_2;
export const bend = [0, 0, Math.sin(Math.PI / 6), Math.cos(Math.PI / 6)];
export const cases = [
  { name: 'no NORMAL (flat)', normals: false, weights: (a) => [[1 - a, a, 0, 0]], keys: [[0, bend]] },
  { name: 'weight in the second set', normals: true,
    weights: (a) => [[0.1 * (1 - a), 0.1 * a, 0, 0], [0.9 * a, 0.9 * (1 - a), 0, 0]], keys: [[0, [0, 0, half, half]]] },
  // keys of length 1.2 and 0.9, far apart (every engine's slerp branch, not a lerp): the node matrix scales
  { name: 'rotation keys not unit', normals: true, weights: (a) => [[1 - a, a, 0, 0]],
    keys: [[0, [0, 0, 0, 1.2]], [0.1, bend.map((q) => 0.9 * q)]] },
  // keys of length 1.2 and 0.9, 5 degrees apart (dot 1.08: every engine's lerp branch, which three.js and glam
  // normalise and Babylon.js does not): the frames between the keys tell the engines apart
  { name: 'rotation keys not unit, close', normals: true, weights: (a) => [[1 - a, a, 0, 0]],
    keys: [[0, bend.map((q) => 1.2 * q)], [0.1, [0, 0, Math.sin((35 * Math.PI) / 360), Math.cos((35 * Math.PI) / 360)]
      .map((q) => 0.9 * q)]] },
];
