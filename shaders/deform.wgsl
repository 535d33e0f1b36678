// Deformation, one thread per vertex (after common.wgsl; the WGSL twin of deform.comp): morph (position deltas,
// and the normal/tangent deltas by morph_dirs), blend the bone matrices, skin the position. Written from
// src/kernels/sf_kernels.h: sfk_deform_vertex, sfk_blend_matrix, sfk_mat_det, sfk_mat_point.
// Writes `state`, SF_GPU_STATE_STRIDE floats per vertex at the SF_STATE_* offsets (generated/layout.wgsl).
fn put3(o: u32, x: vec3<f32>) { state[o] = x.x; state[o + 1u] = x.y; state[o + 2u] = x.z; }

@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var n = tf3(P.rest_normals, v);
  var t = tf4(P.rest_tangents, v).xyz;
  if (P.morph_dirs != SF_MORPH_DIRECTIONS_NONE) {
    for (var e = topo[P.morph_offsets + v]; e < topo[P.morph_offsets + v + 1u]; e++) {
      let a = pose[P.morph_base + topo[P.morph_target + e]];
      if (a == 0.0) { continue; }
      n += tf3(P.morph_dn, e) * a;
      if (P.morph_dirs == SF_MORPH_DIRECTIONS_DELTAS) { t += tf3(P.morph_dt, e) * a; }
    }
  }
  let p = morph_position(v);
  let m = blend_matrix(v);
  let q = mat_point(m, p);
  let o = SF_GPU_STATE_STRIDE * v;
  put3(o + SF_STATE_POSITION, q);
  state[o + SF_STATE_DET] = mat_det(m);
  put3(o + SF_STATE_MORPHED_POSITION, p);
  put3(o + SF_STATE_MORPHED_NORMAL, n);
  put3(o + SF_STATE_MORPHED_TANGENT, t);
  let cols = array<vec3<f32>, 4>(m.a0, m.a1, m.a2, m.t);
  for (var c = 0u; c < 4u; c++) { put3(o + SF_STATE_BLEND + 3u * c, cols[c]); }
}
