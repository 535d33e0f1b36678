// The workgroup reduction that the statistics and the cross-check passes share (web/src/gpu.js joins it after the
// pass's own file): pass `partial` (one workgroup per SF_REDUCE_WORKGROUP vertices and slot, slot = workgroup_id.y)
// reduces each vertex's sample(slot, v) with merge into partial[SF_REDUCE_OUT_FLOATS (slot p.groups + group) ..];
// pass `total` (one workgroup per slot) merges a slot's partials and writes finish(slot, merged) to
// out[SF_REDUCE_OUT_FLOATS slot ..] (the floats per slot read back). The pass's file declares p (with n and
// groups), partial and out, and the three functions; merge's identity is vec4(0) (every accumulator is a sum or a
// maximum of values >= 0).

const WG: u32 = SF_REDUCE_WORKGROUP; // shaders/generated/layout.wgsl: gpu.js sizes `partial` by it
var<workgroup> acc: array<vec4<f32>, SF_REDUCE_WORKGROUP>;

// The workgroup's values in acc reduced into element 0.
fn reduce(i: u32) {
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    workgroupBarrier();
    if (i < s) { acc[i] = merge(acc[i], acc[i + s]); }
  }
  workgroupBarrier();
}

fn partial_at(b: u32) -> vec4<f32> { return vec4<f32>(partial[b], partial[b + 1u], partial[b + 2u], partial[b + 3u]); }

@compute @workgroup_size(SF_REDUCE_WORKGROUP)
fn partial_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let v = wid.x * WG + i;
  let slot = wid.y;
  var a = vec4<f32>(0.0);
  if (v < p.n) { a = sample(slot, v); }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    let b = SF_REDUCE_OUT_FLOATS * (slot * p.groups + wid.x);
    partial[b] = acc[0].x;
    partial[b + 1u] = acc[0].y;
    partial[b + 2u] = acc[0].z;
    partial[b + 3u] = acc[0].w;
  }
}

@compute @workgroup_size(SF_REDUCE_WORKGROUP)
fn total_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let slot = wid.x;
  var a = vec4<f32>(0.0);
  for (var g = i; g < p.groups; g = g + WG) { a = merge(a, partial_at(SF_REDUCE_OUT_FLOATS * (slot * p.groups + g))); }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    let r = finish(slot, acc[0]);
    let o = SF_REDUCE_OUT_FLOATS * slot;
    out[o] = r.x;
    out[o + 1u] = r.y;
    out[o + 2u] = r.z;
    out[o + 3u] = r.w;
  }
}
