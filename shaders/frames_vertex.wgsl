// The methods that need no neighbours, one thread per vertex, after deform.wgsl (after common.wgsl; the WGSL
// twin of frames_vertex.comp): unchanged (0), skinned (1), inverse-transpose (2), bone-normal-matrices (3) by
// P.method, numbered as sf_method. Written from src/kernels/sf_kernels.h: sfk_vertex_frame,
// sfk_inverse_transpose_normal, sfk_bone_normal_matrices_normal, sfk_bone_normal_frame.
@compute @workgroup_size(SF_PASS_WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  if (v >= P.vertex_count) { return; }
  let det = state_at(v, SF_STATE_DET);
  let mn = state3(v, SF_STATE_MORPHED_NORMAL);
  let mt = state3(v, SF_STATE_MORPHED_TANGENT);
  let B = blend(v);
  let rest_w = tf4(P.rest_tangents, v).w;
  var n: vec3<f32>;
  var t: vec3<f32>;
  var w = rest_w;
  if (P.method == SF_METHOD_UNCHANGED) {
    n = safe_unit(mn);
    t = safe_unit(mt);
  } else {
    t = safe_unit(mat_dir(B, mt));
    w = select(rest_w, -rest_w, det < 0.0);
    if (P.method == SF_METHOD_SKINNED) {
      n = safe_unit(mat_dir(B, mn));
    } else if (P.method == SF_METHOD_INVERSE_TRANSPOSE) {
      n = select(safe_unit(cofactor_dir(B.a0, B.a1, B.a2, mn) * (1.0 / det)), vec3<f32>(0.0), abs(det) < SF_SINGULAR_DET_EPS);
    } else {
      var acc = vec3<f32>(0.0);
      var total = 0.0;
      let K = P.influences;
      for (var i = 0u; i < K; i++) {
        let wi = tf(P.weights + K * v + i);
        if (wi == 0.0) { continue; }
        let j = topo[P.joints + K * v + i];
        acc += cofactor_dir(bone_col(j, 0u), bone_col(j, 1u), bone_col(j, 2u), mn) * wi;
        total += wi;
      }
      n = safe_unit(select(acc, mn, total == 0.0));
    }
  }
  if (P.has_uv == 0u) { t = vec3<f32>(0.0); }
  write_frame(v, n, t, w);
}
