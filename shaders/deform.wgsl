// Deformation, one thread per vertex (after common.wgsl; the WGSL twin of deform.comp): morph (position deltas,
// and the normal/tangent deltas by morph_dirs), blend the bone matrices, skin the position. Written from
// src/kernels/sf_kernels.h: sfk_deform_vertex, sfk_blend_matrix, sfk_mat_det, sfk_mat_point.
// state, 32 floats per vertex: [0..2] final position, [3] det(blend), [4..6] morphed rest position, [7..9]
// morphed normal (not normalised), [10..12] morphed tangent xyz, [13..24] the blended matrix (column-major 3x4).
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var n = tf3(P.rest_normals, v);
  var t = tf4(P.rest_tangents, v).xyz;
  if (P.morph_dirs != 0u) {
    for (var e = topo[P.morph_offsets + v]; e < topo[P.morph_offsets + v + 1u]; e++) {
      let a = pose[P.morph_base + topo[P.morph_target + e]];
      if (a == 0.0) { continue; }
      n += tf3(P.morph_dn, e) * a;
      if (P.morph_dirs == 1u) { t += tf3(P.morph_dt, e) * a; }
    }
  }
  let p = morph_position(v);
  let m = blend_matrix(v);
  let q = mat_point(m, p);
  let o = 32u * v;
  state[o] = q.x; state[o + 1u] = q.y; state[o + 2u] = q.z;
  state[o + 3u] = mat_det(m);
  state[o + 4u] = p.x; state[o + 5u] = p.y; state[o + 6u] = p.z;
  state[o + 7u] = n.x; state[o + 8u] = n.y; state[o + 9u] = n.z;
  state[o + 10u] = t.x; state[o + 11u] = t.y; state[o + 12u] = t.z;
  let cols = array<vec3<f32>, 4>(m.a0, m.a1, m.a2, m.t);
  for (var c = 0u; c < 4u; c++) {
    let col = cols[c];
    state[o + 13u + 3u * c] = col.x; state[o + 14u + 3u * c] = col.y; state[o + 15u + 3u * c] = col.z;
  }
}
