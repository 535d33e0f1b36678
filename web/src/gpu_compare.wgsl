// The GPU passes' frames against the wasm core's, on the GPU: frames and core each hold 7n floats per method slot
// (3n normals, then 4n tangents), core uploaded from the core's results of the same pose. Pass `partial` (one
// workgroup per 256 vertices and slot) writes each workgroup's largest normal angle and tangent angle (degrees,
// between the two frames of a vertex) and its count of tangent handedness signs that differ; pass `total` (one
// workgroup per slot) reduces those into out[4 slot ..]: normal max, tangent max, handedness count, 0. The page
// reads back 16 bytes per slot, not the frames. Tangents are compared where p.tangents is 1.
// An angle is 180 degrees when exactly one of the two is zero, 0 when both are: a zero the core also made is
// no difference between the two.

struct CompareParams { n: u32, groups: u32, tangents: u32, pad: u32 }

@group(0) @binding(0) var<uniform> p: CompareParams;
@group(0) @binding(1) var<storage, read> frames: array<f32>;
@group(0) @binding(2) var<storage, read> core: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
// normal max, tangent max, handedness count of each invocation
var<workgroup> acc: array<vec3<f32>, 256>;

// How far the GPU's direction is from the core's: angle.wgsl's angle, 0 where both are zero (they agree).
fn differ_deg(a: vec3<f32>, b: vec3<f32>) -> f32 {
  if (!(dot(a, a) >= SF_SAFE_UNIT_EPS2) && !(dot(b, b) >= SF_SAFE_UNIT_EPS2)) { return 0.0; }
  return angle_deg(a, b);
}

fn gpu3(i: u32) -> vec3<f32> { return vec3<f32>(frames[i], frames[i + 1u], frames[i + 2u]); }
fn core3(i: u32) -> vec3<f32> { return vec3<f32>(core[i], core[i + 1u], core[i + 2u]); }

fn merge(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
  return vec3<f32>(max(a.x, b.x), max(a.y, b.y), a.z + b.z);
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
  var a = vec3<f32>(0.0);
  if (v < p.n) {
    let nb = 7u * p.n * slot + 3u * v;
    a.x = differ_deg(gpu3(nb), core3(nb));
    if (p.tangents != 0u) {
      let tb = 7u * p.n * slot + 3u * p.n + 4u * v;
      a.y = differ_deg(gpu3(tb), core3(tb));
      a.z = select(0.0, 1.0, frames[tb + 3u] != core[tb + 3u]);
    }
  }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    let b = 3u * (slot * p.groups + wid.x);
    partial[b] = acc[0].x;
    partial[b + 1u] = acc[0].y;
    partial[b + 2u] = acc[0].z;
  }
}

@compute @workgroup_size(256)
fn total_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let slot = wid.x;
  var a = vec3<f32>(0.0);
  for (var g = i; g < p.groups; g = g + WG) {
    let b = 3u * (slot * p.groups + g);
    a = merge(a, vec3<f32>(partial[b], partial[b + 1u], partial[b + 2u]));
  }
  acc[i] = a;
  reduce(i);
  if (i == 0u) {
    out[4u * slot] = acc[0].x;
    out[4u * slot + 1u] = acc[0].y;
    out[4u * slot + 2u] = acc[0].z;
    out[4u * slot + 3u] = 0.0;
  }
}
