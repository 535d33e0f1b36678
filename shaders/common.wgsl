// What every WGSL pass starts with after generated/layout.wgsl (web/src/gpu.js joins the two and one pass): the
// bindings and the formulas of src/kernels/sf_kernels.h the passes share; the uniform's struct Params, the ids
// and the state offsets are generated/layout.wgsl's. WebGPU offers 8 storage buffers per
// stage by default, so the topology's arrays (sf_topology_gpu_buffers, the layout `skinframe export-gpu` writes)
// are packed one after another into `topo`, 32-bit words (f32 bits through bitcast), each starting at the word
// offset of the uniform's field of its name. No `precise` in WGSL: an implementation may fuse multiply-adds,
// within the 1e-3 degrees the page checks.
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> pose: array<f32>;          // 12 floats per bone (column-major 3x4), then the morph weights
@group(0) @binding(3) var<storage, read_write> state: array<f32>;   // 32 per vertex, written by deform.wgsl (shaders/README.md)
@group(0) @binding(4) var<storage, read_write> frames: array<f32>;  // per pass at out_base: 3n normals, then 4n tangents (w = handedness)
@group(0) @binding(5) var<storage, read_write> face: array<f32>;    // 12 per triangle (recompute_faces.wgsl)

fn tf(i: u32) -> f32 { return bitcast<f32>(topo[i]); }
fn tf3(base: u32, i: u32) -> vec3<f32> { let o = base + 3u * i; return vec3<f32>(tf(o), tf(o + 1u), tf(o + 2u)); }
fn tf4(base: u32, i: u32) -> vec4<f32> { let o = base + 4u * i; return vec4<f32>(tf(o), tf(o + 1u), tf(o + 2u), tf(o + 3u)); }
fn state3(v: u32, at: u32) -> vec3<f32> { let o = SF_GPU_STATE_STRIDE * v + at; return vec3<f32>(state[o], state[o + 1u], state[o + 2u]); }
fn bone_col(j: u32, c: u32) -> vec3<f32> { let o = SF_BONE_FLOATS * j + 3u * c; return vec3<f32>(pose[o], pose[o + 1u], pose[o + 2u]); }
// A p + t and A d of bone j (sfk_mat_point, sfk_mat_dir).
fn bone_point(j: u32, p: vec3<f32>) -> vec3<f32> {
  return bone_col(j, 0u) * p.x + bone_col(j, 1u) * p.y + bone_col(j, 2u) * p.z + bone_col(j, 3u);
}
fn bone_dir(j: u32, d: vec3<f32>) -> vec3<f32> { return bone_col(j, 0u) * d.x + bone_col(j, 1u) * d.y + bone_col(j, 2u) * d.z; }

// sfk_safe_unit without its overflow path: zero when |v|^2 < 1e-24.
fn safe_unit(v: vec3<f32>) -> vec3<f32> {
  let len2 = dot(v, v);
  if (!(len2 >= SF_SAFE_UNIT_EPS2)) { return vec3<f32>(0.0); }
  return v * (1.0 / sqrt(len2));
}
fn nonzero(v: vec3<f32>) -> bool { return dot(v, v) > 0.0; }
// sfk_orthonormal_tangent: t made unit and orthogonal to unit n (zero when impossible).
fn orthonormal(n: vec3<f32>, t: vec3<f32>) -> vec3<f32> { return safe_unit(t - n * dot(n, t)); }
// cof(A) v = [a1 x a2, a2 x a0, a0 x a1] v for A's columns a0 a1 a2 (sfk_mat_cofactor_dir).
fn cofactor_dir(a0: vec3<f32>, a1: vec3<f32>, a2: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
  return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;
}
// A 3x4 matrix by columns: p' = a0 p.x + a1 p.y + a2 p.z + t (skinframe.h's layout).
struct Mat { a0: vec3<f32>, a1: vec3<f32>, a2: vec3<f32>, t: vec3<f32> }
fn mat_dir(m: Mat, d: vec3<f32>) -> vec3<f32> { return m.a0 * d.x + m.a1 * d.y + m.a2 * d.z; }
fn mat_point(m: Mat, p: vec3<f32>) -> vec3<f32> { return m.a0 * p.x + m.a1 * p.y + m.a2 * p.z + m.t; }
fn mat_det(m: Mat) -> f32 { return dot(m.a0, cross(m.a1, m.a2)); }
// Vertex v's blended bone matrix, the identity without influences (sfk_blend_matrix).
fn blend_matrix(v: u32) -> Mat {
  var m = Mat(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  var total = 0.0;
  let K = P.influences;
  for (var i = 0u; i < K; i++) {
    let w = tf(P.weights + K * v + i);
    if (w == 0.0) { continue; }
    let j = topo[P.joints + K * v + i];
    m.a0 += w * bone_col(j, 0u); m.a1 += w * bone_col(j, 1u); m.a2 += w * bone_col(j, 2u); m.t += w * bone_col(j, 3u);
    total += w;
  }
  if (total == 0.0) { m.a0.x = 1.0; m.a1.y = 1.0; m.a2.z = 1.0; }
  return m;
}
// Vertex v's morphed rest position (position deltas only, sfk_deform_position).
fn morph_position(v: u32) -> vec3<f32> {
  var p = tf3(P.rest_positions, v);
  for (var e = topo[P.morph_offsets + v]; e < topo[P.morph_offsets + v + 1u]; e++) {
    let a = pose[P.morph_base + topo[P.morph_target + e]];
    if (a == 0.0) { continue; }
    p += tf3(P.morph_dp, e) * a;
  }
  return p;
}
// The blended matrix as deform.wgsl stored it at SF_STATE_BLEND.
fn blend(v: u32) -> Mat {
  let b = SF_STATE_BLEND;
  return Mat(state3(v, b), state3(v, b + 3u), state3(v, b + 6u), state3(v, b + 9u));
}
fn state_at(v: u32, at: u32) -> f32 { return state[SF_GPU_STATE_STRIDE * v + at]; }
// Tarini's cap (sfk_jacobian_cap): c limited to cap |base|; cap 0 = off.
fn capped(c: vec3<f32>, base: vec3<f32>, cap: f32) -> vec3<f32> {
  if (!(cap > 0.0)) { return c; }
  let lim = cap * length(base);
  let lc = length(c);
  if (lc > lim) { return c * (lim / lc); }
  return c;
}
// (u, v) with u x v = n for a unit n (Duff et al. 2017, sfk_tangent_basis).
struct Basis { u: vec3<f32>, v: vec3<f32> }
fn tangent_basis(n: vec3<f32>) -> Basis {
  let s = select(-1.0, 1.0, n.z >= 0.0);
  let a = -1.0 / (s + n.z);
  let b = n.x * n.y * a;
  return Basis(vec3<f32>(1.0 + s * n.x * n.x * a, s * b, -s * n.x), vec3<f32>(b, s + n.y * n.y * a, -n.y));
}
fn uv(v: u32) -> vec2<f32> {
  if (P.has_uv == 0u) { return vec2<f32>(0.0); }
  return vec2<f32>(tf(P.uvs + 2u * v), tf(P.uvs + 2u * v + 1u));
}
// Interior angle at p0 of the triangle p0 p1 p2, 0 for a degenerate corner (sfk_corner_angle).
fn corner_angle(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>) -> f32 {
  let a = p1 - p0; let b = p2 - p0;
  let s = length(cross(a, b)); let d = dot(a, b);
  if (s == 0.0 && d == 0.0) { return 0.0; }
  return atan2(s, d);
}
// One face of the reference (sfk_recompute_face, sfk_recompute_face_frame, sfk_recompute_corner_weight): from its
// final corners, their UVs and how many corners mirror, the face normal n (negated when two or more mirror; unit
// for angle and uniform weighting), UV tangent t and bitangent b, and the corner weights w (area: |n|; angle:
// corner angles; uniform: 1; all zero for a collapsed face).
struct FaceFrame { n: vec3<f32>, t: vec3<f32>, b: vec3<f32>, w: vec3<f32> }
fn face_frame(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, uv0: vec2<f32>, uv1: vec2<f32>, uv2: vec2<f32>,
              mirrored: u32) -> FaceFrame {
  let e1 = p1 - p0; let e2 = p2 - p0;
  var r = FaceFrame(cross(e1, e2), vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  if (P.has_uv == 1u) {
    let d1 = uv1 - uv0; let d2 = uv2 - uv0;
    let det = d1.x * d2.y - d2.x * d1.y;
    if (abs(det) > SF_UV_DET_EPS) {
      let inv = 1.0 / det;
      r.t = (e1 * d2.y - e2 * d1.y) * inv;
      r.b = (e2 * d1.x - e1 * d2.x) * inv;
    }
  }
  if (mirrored >= 2u) { r.n = -r.n; }
  let len2 = dot(r.n, r.n);
  if (len2 >= SF_SAFE_UNIT_EPS2) {
    if (P.weighting == SF_WEIGHTING_UNIFORM) {
      r.w = vec3<f32>(1.0); r.n = r.n * (1.0 / sqrt(len2));
    } else if (P.weighting == SF_WEIGHTING_ANGLE) {
      r.w = vec3<f32>(corner_angle(p0, p1, p2), corner_angle(p1, p2, p0), corner_angle(p2, p0, p1));
      r.n = r.n * (1.0 / sqrt(len2));
    } else {
      r.w = vec3<f32>(sqrt(len2));
    }
  }
  return r;
}
// The gather's sums at a vertex and its step: a face's frame at one of its corners, weight w, added
// (sfk_recompute_vertex; area weighting adds the unnormalised face normal itself).
struct Sums { n: vec3<f32>, t: vec3<f32>, b: vec3<f32> }
fn gather_add(s: Sums, fn_: vec3<f32>, ft: vec3<f32>, fb: vec3<f32>, w: f32) -> Sums {
  var r = s;
  if (P.weighting == SF_WEIGHTING_AREA) { r.n += fn_; } else { r.n += fn_ * w; }
  r.t += ft * w;
  r.b += fb * w;
  return r;
}
// Writes vertex v's frame into this pass's part of `frames`.
fn write_frame(v: u32, n: vec3<f32>, t: vec3<f32>, w: f32) {
  let o = P.out_base + 3u * v;
  frames[o] = n.x; frames[o + 1u] = n.y; frames[o + 2u] = n.z;
  let q = P.out_base + 3u * P.vertex_count + 4u * v;
  frames[q] = t.x; frames[q + 1u] = t.y; frames[q + 2u] = t.z; frames[q + 3u] = w;
}
// n = SafeUnit(N), t = SafeUnit(T - n (n.T)), w = sign(dot(cross(n, t), B) * bitangent_sign), written for vertex v
// (sfk_finish_frame).
fn finish_frame(v: u32, s: Sums) {
  let n = safe_unit(s.n);
  let t = orthonormal(n, s.t);
  write_frame(v, n, t, select(1.0, -1.0, dot(cross(n, t), s.b) * P.bitangent_sign < 0.0));
}
