// The reference's face pass, one thread per triangle, after deform.wgsl (after common.wgsl; the WGSL twin of
// recompute_faces.comp): face_frame of common.wgsl. face: 12 floats per triangle, its face normal, UV tangent,
// UV bitangent and corner weights.

@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let f = id.x;
  if (f >= P.face_count) { return; }
  let i0 = topo[P.indices + 3u * f]; let i1 = topo[P.indices + 3u * f + 1u]; let i2 = topo[P.indices + 3u * f + 2u];
  let mirrored = u32(state_at(i0, SF_STATE_DET) < 0.0) + u32(state_at(i1, SF_STATE_DET) < 0.0) +
                 u32(state_at(i2, SF_STATE_DET) < 0.0);
  let r = face_frame(state3(i0, SF_STATE_POSITION), state3(i1, SF_STATE_POSITION), state3(i2, SF_STATE_POSITION),
                     uv(i0), uv(i1), uv(i2), mirrored);
  let o = SF_FACE_FLOATS * f;
  face[o] = r.n.x; face[o + 1u] = r.n.y; face[o + 2u] = r.n.z;
  face[o + 3u] = r.t.x; face[o + 4u] = r.t.y; face[o + 5u] = r.t.z;
  face[o + 6u] = r.b.x; face[o + 7u] = r.b.y; face[o + 8u] = r.b.z;
  face[o + 9u] = r.w.x; face[o + 10u] = r.w.y; face[o + 11u] = r.w.z;
}
