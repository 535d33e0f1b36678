// The reference's gather, one thread per vertex over the vertex -> corner adjacency (CSR: adj_offsets,
// adj_corners; no atomics), after recompute_faces.wgsl (after common.wgsl; the WGSL twin of
// recompute_gather.comp): sfk_recompute_vertex and sfk_finish_frame of src/kernels/sf_kernels.h, without weld
// groups (a vertex's own corners for the normal and the tangent). n = SafeUnit(N), t = SafeUnit(T - n (n.T)),
// w = sign(dot(cross(n, t), B) * bitangent_sign).
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var N = vec3<f32>(0.0); var T = vec3<f32>(0.0); var B = vec3<f32>(0.0);
  for (var a = topo[P.adj_offsets + v]; a < topo[P.adj_offsets + v + 1u]; a++) {
    let corner = topo[P.adj_corners + a];
    let o = 12u * (corner / 3u);
    let w = face[o + 9u + corner % 3u];
    let fn_ = vec3<f32>(face[o], face[o + 1u], face[o + 2u]);
    if (P.weighting == 0u) { N += fn_; } else { N += fn_ * w; }
    T += vec3<f32>(face[o + 3u], face[o + 4u], face[o + 5u]) * w;
    B += vec3<f32>(face[o + 6u], face[o + 7u], face[o + 8u]) * w;
  }
  let n = safe_unit(N);
  let t = orthonormal(n, T);
  let hand = select(1.0, -1.0, dot(cross(n, t), B) * P.bitangent_sign < 0.0);
  write_frame(v, n, t, hand);
}
