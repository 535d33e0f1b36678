// The reference's gather, one thread per vertex over the vertex -> corner adjacency (CSR: adj_offsets,
// adj_corners; no atomics), after recompute_faces.wgsl (after common.wgsl; the WGSL twin of
// recompute_gather.comp): gather_add and finish_frame of common.wgsl, without weld groups (a vertex's own
// corners for the normal and the tangent).
@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  var s = Sums(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  for (var a = topo[P.adj_offsets + v]; a < topo[P.adj_offsets + v + 1u]; a++) {
    let corner = topo[P.adj_corners + a];
    let o = SF_FACE_FLOATS * (corner / 3u);
    let fn_ = vec3<f32>(face[o], face[o + 1u], face[o + 2u]);
    let ft = vec3<f32>(face[o + 3u], face[o + 4u], face[o + 5u]);
    let fb = vec3<f32>(face[o + 6u], face[o + 7u], face[o + 8u]);
    s = gather_add(s, fn_, ft, fb, face[o + 9u + corner % 3u]);
  }
  finish_frame(v, s);
}
