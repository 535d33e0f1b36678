// The reference's face pass, one thread per triangle, after deform.wgsl (after common.wgsl; the WGSL twin of
// recompute_faces.comp): sfk_recompute_face and sfk_face_frame of src/kernels/sf_kernels.h. face: 12 floats per
// triangle, face_n = cross(e1, e2) (negated when two or more corners mirror), the UV tangent and bitangent, and
// the corner weights: area |face_n| (face_n unnormalised), angle (corner angle, face_n unit) or uniform (1,
// face_n unit); all zero for a collapsed face (|face_n|^2 < 1e-24).

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let f = id.x;
  if (f >= P.face_count) { return; }
  let i0 = topo[P.indices + 3u * f]; let i1 = topo[P.indices + 3u * f + 1u]; let i2 = topo[P.indices + 3u * f + 2u];
  let p0 = state3(i0, 0u); let p1 = state3(i1, 0u); let p2 = state3(i2, 0u);
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
  let mirrored = u32(state[32u * i0 + 3u] < 0.0) + u32(state[32u * i1 + 3u] < 0.0) + u32(state[32u * i2 + 3u] < 0.0);
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
