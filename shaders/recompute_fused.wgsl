// recompute-fused, the reference in one pass, one thread per vertex (after common.wgsl; the WGSL twin of
// recompute_fused.comp): each vertex deforms the corners of its own faces from the rest data and the pose, rebuilds
// those faces and gathers them in the adjacency's order, with no position or face buffer. Written from
// src/kernels/sf_kernels.h: sfk_recompute_fused_vertex, sfk_fused_face, sfk_fused_position, sfk_recompute_face,
// sfk_finish_frame; without weld groups and without the C kernel's small cache of deformed corners (a corner is
// deformed again instead: the same numbers).
struct Corner { p: vec3<f32>, det: f32 }
fn deformed(v: u32) -> Corner {
  let m = blend_matrix(v);
  return Corner(mat_point(m, morph_position(v)), mat_det(m));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var N = vec3<f32>(0.0); var T = vec3<f32>(0.0); var B = vec3<f32>(0.0);
  for (var a = topo[P.adj_offsets + v]; a < topo[P.adj_offsets + v + 1u]; a++) {
    let corner = topo[P.adj_corners + a];
    let f = corner / 3u;
    let c = corner % 3u;
    let i0 = topo[P.indices + 3u * f]; let i1 = topo[P.indices + 3u * f + 1u]; let i2 = topo[P.indices + 3u * f + 2u];
    let q0 = deformed(i0); let q1 = deformed(i1); let q2 = deformed(i2);
    let e1 = q1.p - q0.p; let e2 = q2.p - q0.p;
    var fn_ = cross(e1, e2);
    var ft = vec3<f32>(0.0); var fb = vec3<f32>(0.0);
    if (P.has_uv == 1u) {
      let d1 = uv(i1) - uv(i0); let d2 = uv(i2) - uv(i0);
      let det = d1.x * d2.y - d2.x * d1.y;
      if (abs(det) > 1e-12) {
        let inv = 1.0 / det;
        ft = (e1 * d2.y - e2 * d1.y) * inv;
        fb = (e2 * d1.x - e1 * d2.x) * inv;
      }
    }
    if (u32(q0.det < 0.0) + u32(q1.det < 0.0) + u32(q2.det < 0.0) >= 2u) { fn_ = -fn_; }
    let len2 = dot(fn_, fn_);
    var w = 0.0;
    if (len2 >= 1e-24) {
      if (P.weighting == 2u) {
        w = 1.0; fn_ = fn_ * (1.0 / sqrt(len2));
      } else if (P.weighting == 1u) {
        let p = array<vec3<f32>, 3>(q0.p, q1.p, q2.p);
        w = corner_angle(p[c], p[(c + 1u) % 3u], p[(c + 2u) % 3u]);
        fn_ = fn_ * (1.0 / sqrt(len2));
      } else {
        w = sqrt(len2);
      }
    }
    if (P.weighting == 0u) { N += fn_; } else { N += fn_ * w; }
    T += ft * w;
    B += fb * w;
  }
  let n = safe_unit(N);
  let t = orthonormal(n, T);
  let hand = select(1.0, -1.0, dot(cross(n, t), B) * P.bitangent_sign < 0.0);
  write_frame(v, n, t, hand);
}
