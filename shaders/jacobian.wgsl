// The jacobian method, one thread per vertex, after deform.wgsl (after common.wgsl; the WGSL twin of
// jacobian.comp), over the gradients sf_topology_gpu_buffers lists (grad_slot_*, grad_morph_*). Written from
// src/kernels/sf_kernels.h: sfk_jacobian_vertex, sfk_rest_basis, sfk_tangent_basis, sfk_jacobian_cap (without
// the scaling of huge J u, J v: inputs within SF_MAX_COORD and ordinary scales do not reach it).
@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  let Pf = state3(v, SF_STATE_POSITION);
  let det = state_at(v, SF_STATE_DET);
  let x = state3(v, SF_STATE_MORPHED_POSITION);
  let B = blend(v);
  let t0 = tf4(P.rest_tangents, v);
  let w = select(t0.w, -t0.w, det < 0.0);
  let n0 = safe_unit(tf3(P.rest_normals, v));
  var nrm = vec3<f32>(0.0);
  var tan = vec3<f32>(0.0);
  if (nonzero(n0)) {
    let basis = tangent_basis(n0);
    var mu = basis.u;
    var mv = basis.v;
    for (var e = topo[P.grad_morph_offsets + v]; e < topo[P.grad_morph_offsets + v + 1u]; e++) {
      let al = pose[P.morph_base + topo[P.grad_morph_target + e]];
      if (al == 0.0) { continue; }
      mu += tf3(P.grad_morph_duv, 2u * e) * al;
      mv += tf3(P.grad_morph_duv, 2u * e + 1u) * al;
    }
    var ju = mat_dir(B, mu);
    var jv = mat_dir(B, mv);
    var cu = vec3<f32>(0.0);
    var cv = vec3<f32>(0.0);
    for (var k = topo[P.grad_slot_offsets + v]; k < topo[P.grad_slot_offsets + v + 1u]; k++) {
      let j = topo[P.grad_slot_joint + k];
      var pj = x;
      if (j != SF_REST_JOINT) { pj = bone_point(j, x); }
      pj -= Pf;
      cu += pj * tf(P.grad_slot_guv + 2u * k);
      cv += pj * tf(P.grad_slot_guv + 2u * k + 1u);
    }
    ju += capped(cu, ju, P.jacobian_cap);
    jv += capped(cv, jv, P.jacobian_cap);
    var N = cross(ju, jv);
    if (det < 0.0) { N = -N; }
    nrm = safe_unit(N);
    let T = ju * dot(t0.xyz, basis.u) + jv * dot(t0.xyz, basis.v);
    tan = orthonormal(nrm, T);
    if (!nonzero(tan)) { tan = safe_unit(mat_dir(B, t0.xyz)); }
  }
  if (P.has_uv == 0u) { tan = vec3<f32>(0.0); }
  write_frame(v, nrm, tan, w);
}
