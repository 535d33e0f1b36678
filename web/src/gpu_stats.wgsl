// The normals' and tangents' angle error statistics of every method slot against the reference slot, on the GPU:
// frames holds 7n floats per slot (3n normals, then 4n tangents). Pass `partial` (one workgroup per 256
// vertices and slot) writes each workgroup's sums and maxima of the angles in degrees; pass `total` (one
// workgroup per slot) reduces those into out[4 slot ..]: normal mean, normal max, tangent mean, tangent max
// (16 bytes per slot to read back; the tangent pair is 0 when p.tangents is 0: no UVs, no tangent frame).
// An angle is 180 degrees when either direction is zero (squared length under 1e-24), as the core's
// sfk_angle_deg; the tangents' angle is that of their xyz.

struct StatsParams { n: u32, ref_slot: u32, groups: u32, tangents: u32 }

@group(0) @binding(0) var<uniform> p: StatsParams;
@group(0) @binding(1) var<storage, read> frames: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
// normal sum, normal max, tangent sum, tangent max of each invocation
var<workgroup> acc: array<vec4<f32>, 256>;

fn normal_of(slot: u32, v: u32) -> vec3<f32> {
  let b = 7u * p.n * slot + 3u * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

fn tangent_of(slot: u32, v: u32) -> vec3<f32> {
  let b = 7u * p.n * slot + 3u * p.n + 4u * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

fn merge(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(a.x + b.x, max(a.y, b.y), a.z + b.z, max(a.w, b.w));
}

// The workgroup's 256 values in acc reduced into element 0.
fn reduce(i: u32) {
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    workgroupBarrier();
    if (i < s) { acc[i] = merge(acc[i], acc[i + s]); }
  }
  workgroupBarrier();
}

@compute @workgroup_size(256)
fn partial_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let v = wid.x * WG + i;
  let slot = wid.y;
  var a = vec4<f32>(0.0);
  if (v < p.n) {
    let an = angle_deg(normal_of(slot, v), normal_of(p.ref_slot, v));
    var at = 0.0;
    if (p.tangents != 0u) { at = angle_deg(tangent_of(slot, v), tangent_of(p.ref_slot, v)); }
    a = vec4<f32>(an, an, at, at);
  }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    let b = 4u * (slot * p.groups + wid.x);
    partial[b] = acc[0].x;
    partial[b + 1u] = acc[0].y;
    partial[b + 2u] = acc[0].z;
    partial[b + 3u] = acc[0].w;
  }
}

@compute @workgroup_size(256)
fn total_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let slot = wid.x;
  var a = vec4<f32>(0.0);
  for (var g = i; g < p.groups; g = g + WG) {
    let b = 4u * (slot * p.groups + g);
    a = merge(a, vec4<f32>(partial[b], partial[b + 1u], partial[b + 2u], partial[b + 3u]));
  }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    out[4u * slot] = acc[0].x / f32(p.n);
    out[4u * slot + 1u] = acc[0].y;
    out[4u * slot + 2u] = acc[0].z / f32(p.n);
    out[4u * slot + 3u] = acc[0].w;
  }
}
