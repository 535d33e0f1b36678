// The reference's face pass (one thread per triangle): sfk_recompute_face and sfk_face_frame of
// src/kernels/sf_kernels.h. face_n = cross(e1, e2) (negated when two or more corners are mirrored), the UV
// tangent and bitangent, and the corner weights: area |face_n| (face_n unnormalised), angle (corner angle,
// face_n unit) or uniform (1, face_n unit); all zero for a collapsed face (|face_n|^2 < 1e-24).
struct Params { vertex_count: u32, face_count: u32, weighting: u32, has_uv: u32 }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> indices: array<u32>;  // 3F
@group(0) @binding(2) var<storage, read> uvs: array<f32>;      // 2n
@group(0) @binding(3) var<storage, read> skinned: array<f32>;  // 3n positions, then n determinants
@group(0) @binding(4) var<storage, read_write> face: array<f32>; // per face 12: n xyz, t xyz, b xyz, w0 w1 w2

fn pos(v: u32) -> vec3<f32> { return vec3<f32>(skinned[3u * v], skinned[3u * v + 1u], skinned[3u * v + 2u]); }
fn uv(v: u32) -> vec2<f32> { return vec2<f32>(uvs[2u * v], uvs[2u * v + 1u]); }
fn corner_angle(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>) -> f32 {
  let a = p1 - p0; let b = p2 - p0;
  let s = length(cross(a, b)); let d = dot(a, b);
  if (s == 0.0 && d == 0.0) { return 0.0; }
  return atan2(s, d);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let f = id.x;
  if (f >= P.face_count) { return; }
  let i0 = indices[3u * f]; let i1 = indices[3u * f + 1u]; let i2 = indices[3u * f + 2u];
  let p0 = pos(i0); let p1 = pos(i1); let p2 = pos(i2);
  let e1 = p1 - p0; let e2 = p2 - p0;
  var fn_ = cross(e1, e2);
  var t = vec3<f32>(0.0); var b = vec3<f32>(0.0);
  if (P.has_uv == 1u) {
    let d1 = uv(i1) - uv(i0); let d2 = uv(i2) - uv(i0);
    let det = d1.x * d2.y - d2.x * d1.y;
    if (abs(det) > 1e-12) {
      let inv = 1.0 / det;
      t = (e1 * d2.y - e2 * d1.y) * inv;
      b = (e2 * d1.x - e1 * d2.x) * inv;
    }
  }
  let n = P.vertex_count;
  let mirrored = u32(skinned[3u * n + i0] < 0.0) + u32(skinned[3u * n + i1] < 0.0) + u32(skinned[3u * n + i2] < 0.0);
  if (mirrored >= 2u) { fn_ = -fn_; }
  let len2 = dot(fn_, fn_);
  var w = vec3<f32>(0.0);
  if (len2 >= 1e-24) {
    if (P.weighting == 2u) {
      w = vec3<f32>(1.0); fn_ = fn_ * (1.0 / sqrt(len2));
    } else if (P.weighting == 1u) {
      w = vec3<f32>(corner_angle(p0, p1, p2), corner_angle(p1, p2, p0), corner_angle(p2, p0, p1));
      fn_ = fn_ * (1.0 / sqrt(len2));
    } else {
      w = vec3<f32>(sqrt(len2));
    }
  }
  let o = 12u * f;
  face[o] = fn_.x; face[o + 1u] = fn_.y; face[o + 2u] = fn_.z;
  face[o + 3u] = t.x; face[o + 4u] = t.y; face[o + 5u] = t.z;
  face[o + 6u] = b.x; face[o + 7u] = b.y; face[o + 8u] = b.z;
  face[o + 9u] = w.x; face[o + 10u] = w.y; face[o + 11u] = w.z;
}
