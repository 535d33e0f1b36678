// recompute-fused, the reference in one pass, one thread per vertex (after common.wgsl; the WGSL twin of
// recompute_fused.comp): each vertex deforms the corners of its own faces from the rest data and the pose, rebuilds
// those faces and gathers them in the adjacency's order, with no position or face buffer. Written from
// src/kernels/sf_kernels.h: sfk_recompute_fused_vertex, sfk_fused_face, sfk_fused_position, through face_frame,
// gather_add and finish_frame of common.wgsl; without weld groups and without the C kernel's small cache of deformed corners (a corner is
// deformed again instead: the same numbers).
struct Corner { p: vec3<f32>, det: f32 }
fn deformed(v: u32) -> Corner {
  let m = blend_matrix(v);
  return Corner(mat_point(m, morph_position(v)), mat_det(m));
}

@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var s = Sums(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  for (var a = topo[P.adj_offsets + v]; a < topo[P.adj_offsets + v + 1u]; a++) {
    let corner = topo[P.adj_corners + a];
    let f = corner / 3u;
    let i0 = topo[P.indices + 3u * f]; let i1 = topo[P.indices + 3u * f + 1u]; let i2 = topo[P.indices + 3u * f + 2u];
    let q0 = deformed(i0); let q1 = deformed(i1); let q2 = deformed(i2);
    let mirrored = u32(q0.det < 0.0) + u32(q1.det < 0.0) + u32(q2.det < 0.0);
    let r = face_frame(q0.p, q1.p, q2.p, uv(i0), uv(i1), uv(i2), mirrored);
    s = gather_add(s, r.n, r.t, r.b, r.w[corner % 3u]);
  }
  finish_frame(v, s);
}
