// The jacobian-fan method (the recommended per-vertex method, docs/methods.md), one thread per vertex, after
// deform.wgsl (after common.wgsl; the WGSL twin of jacobian_fan.comp), over the fan data sf_topology_gpu_buffers
// lists (fan_slot_* with 6 coefficients per slot: g.u, g.v, K_uu, K_uv, K_vu, K_vv; fan_morph_*; fan_normal).
// Written from src/kernels/sf_kernels.h: sfk_jacobian_fan_vertex, sfk_frame_rotate, sfk_arc_rotate,
// sfk_orthonormal_tangent (without the scaling of huge J u, J v: inputs within SF_MAX_COORD do not reach it).

// R d for the rotation taking the frame (n0, t0) to (n1, t1), all unit (sfk_frame_rotate).
fn frame_rotate(n0: vec3<f32>, t0: vec3<f32>, n1: vec3<f32>, t1: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
  return n1 * dot(n0, d) + t1 * dot(t0, d) + cross(n1, t1) * dot(cross(n0, t0), d);
}
// R d for the shortest arc from unit a to unit b; a half turn where they are opposite (sfk_arc_rotate).
fn arc_rotate(a: vec3<f32>, b: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
  let k = cross(a, b);
  let c = dot(a, b);
  if (c > -0.9999) { return d * c + cross(k, d) + k * (dot(k, d) / (1.0 + c)); }
  var e = vec3<f32>(0.0, 0.0, 1.0);
  let q = abs(a);
  if (q.x < q.y) { if (q.x < q.z) { e = vec3<f32>(1.0, 0.0, 0.0); } }
  else if (q.y < q.z) { e = vec3<f32>(0.0, 1.0, 0.0); }
  let axis = safe_unit(cross(a, e));
  return axis * (2.0 * dot(axis, d)) - d;
}

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
  let na = safe_unit(tf3(P.rest_normals, v));
  let nf = safe_unit(tf3(P.fan_normal, v));
  var n = vec3<f32>(0.0);
  var t = vec3<f32>(0.0);
  if (nonzero(na) && nonzero(nf)) {
    let basis = tangent_basis(nf);
    let u = basis.u;
    let vv = basis.v;
    var mu = u;
    var mv = vv;
    for (var e = topo[P.fan_morph_offsets + v]; e < topo[P.fan_morph_offsets + v + 1u]; e++) {
      let al = pose[P.morph_base + topo[P.fan_morph_target + e]];
      if (al == 0.0) { continue; }
      mu += tf3(P.fan_morph_duv, 2u * e) * al;
      mv += tf3(P.fan_morph_duv, 2u * e + 1u) * al;
    }
    var ju = mat_dir(B, mu);
    var jv = mat_dir(B, mv);
    // weight terms relative to P and to B u', B v' (they sum to zero where the weights sum to one)
    var cu = vec3<f32>(0.0);
    var cv = vec3<f32>(0.0);
    for (var k = topo[P.fan_slot_offsets + v]; k < topo[P.fan_slot_offsets + v + 1u]; k++) {
      let j = topo[P.fan_slot_joint + k];
      let c = P.fan_slot_coef + 6u * k;
      var pj = x;
      var au = mu;
      var av = mv;
      if (j != SF_REST_JOINT) { pj = bone_point(j, x); au = bone_dir(j, mu); av = bone_dir(j, mv); }
      pj -= Pf;
      au -= ju;
      av -= jv;
      cu += pj * tf(c);
      cv += pj * tf(c + 1u);
      cu += au * tf(c + 2u);
      cu += av * tf(c + 3u);
      cv += au * tf(c + 4u);
      cv += av * tf(c + 5u);
    }
    ju += capped(cu, ju, P.jacobian_cap);
    jv += capped(cv, jv, P.jacobian_cap);
    let t0n = tf4(P.rest_tangents, v).xyz;
    if (all(ju == u) && all(jv == vv)) {
      // the fan plane does not move (the rest pose, a translation): the authored frame exactly
      n = na;
      t = safe_unit(t0n);
    } else {
      var N = cross(ju, jv);
      if (det < 0.0) { N = -N; }
      let n1 = safe_unit(N);
      if (!nonzero(n1)) {
        t = safe_unit(mat_dir(B, t0n));
      } else {
        // the fan's rest frame (nr, tr) and its posed frame (n1, J tr orthogonalised)
        let nr = cross(u, vv);
        var tr = orthonormal(nr, t0n);
        if (!nonzero(tr)) { tr = u; }
        let t1 = orthonormal(n1, ju * dot(tr, u) + jv * dot(tr, vv));
        if (nonzero(t1)) {
          n = frame_rotate(nr, tr, n1, t1, na);
          t = frame_rotate(nr, tr, n1, t1, t0n);
        } else {
          n = arc_rotate(nr, n1, na);
          t = arc_rotate(nr, n1, t0n);
        }
        n = safe_unit(n);
        t = orthonormal(n, t);
        if (!nonzero(t)) { t = safe_unit(mat_dir(B, t0n)); }
      }
    }
  }
  if (P.has_uv == 0u) { t = vec3<f32>(0.0); }
  write_frame(v, n, t, w);
}
