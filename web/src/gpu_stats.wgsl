// The normals' angle error statistics of every method slot against the reference slot, on the GPU: frames holds
// 7n floats per slot (3n normals, then 4n tangents). Pass `partial` (one workgroup per 256 vertices and slot)
// writes each workgroup's sum and maximum of the angles in degrees; pass `total` (one workgroup per slot) sums
// and maximises those into out[2 slot] = mean, out[2 slot + 1] = max: 8 bytes per slot to read back.
// An angle is 180 degrees when exactly one of the two normals is zero, 0 when both are (as the core's).

struct Params { n: u32, ref_slot: u32, groups: u32, pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> frames: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

const WG: u32 = 256u;
var<workgroup> sums: array<f32, 256>;
var<workgroup> maxs: array<f32, 256>;

fn normal_of(slot: u32, v: u32) -> vec3<f32> {
  let b = 7u * p.n * slot + 3u * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

fn angle_deg(a: vec3<f32>, b: vec3<f32>) -> f32 {
  let la = length(a);
  let lb = length(b);
  if (la == 0.0 || lb == 0.0) { return select(180.0, 0.0, la == lb); }
  return degrees(atan2(length(cross(a, b)), dot(a, b)));
}

// The workgroup's 256 values in sums/maxs reduced into element 0.
fn reduce(i: u32) {
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    workgroupBarrier();
    if (i < s) {
      sums[i] = sums[i] + sums[i + s];
      maxs[i] = max(maxs[i], maxs[i + s]);
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(256)
fn partial_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let v = wid.x * WG + i;
  let slot = wid.y;
  var a = 0.0;
  if (v < p.n) { a = angle_deg(normal_of(slot, v), normal_of(p.ref_slot, v)); }
  sums[i] = a;
  maxs[i] = a;
  reduce(i);
  if (i == 0u) {
    partial[2u * (slot * p.groups + wid.x)] = sums[0];
    partial[2u * (slot * p.groups + wid.x) + 1u] = maxs[0];
  }
}

@compute @workgroup_size(256)
fn total_main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = lid.x;
  let slot = wid.x;
  var s = 0.0;
  var m = 0.0;
  for (var g = i; g < p.groups; g = g + WG) {
    s = s + partial[2u * (slot * p.groups + g)];
    m = max(m, partial[2u * (slot * p.groups + g) + 1u]);
  }
  sums[i] = s;
  maxs[i] = m;
  reduce(i);
  if (i == 0u) {
    out[2u * slot] = sums[0] / f32(p.n);
    out[2u * slot + 1u] = maxs[0];
  }
}
