// The normals' and tangents' angle error statistics of every method slot against the reference slot, on the GPU,
// reduced by reduce.wgsl: frames holds 7n floats per slot (3n normals, then 4n tangents); each slot's out is
// normal mean, normal max, tangent mean, tangent max (the tangent pair is 0 when p.tangents is 0: no UVs, no
// tangent frame). An angle is 180 degrees when either direction is zero (squared length under 1e-24), as the
// core's sfk_angle_deg; the tangents' angle is that of their xyz.

// struct StatsParams: shaders/generated/layout.wgsl

@group(0) @binding(0) var<uniform> p: StatsParams;
@group(0) @binding(1) var<storage, read> frames: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

fn normal_of(slot: u32, v: u32) -> vec3<f32> {
  let b = SF_FRAME_FLOATS * p.n * slot + SF_FRAME_NORMAL_FLOATS * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

fn tangent_of(slot: u32, v: u32) -> vec3<f32> {
  let b = SF_FRAME_FLOATS * p.n * slot + SF_FRAME_NORMAL_FLOATS * p.n + 4u * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

// normal sum, normal max, tangent sum, tangent max
fn merge(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(a.x + b.x, max(a.y, b.y), a.z + b.z, max(a.w, b.w));
}

fn sample(slot: u32, v: u32) -> vec4<f32> {
  let an = angle_deg(normal_of(slot, v), normal_of(p.ref_slot, v));
  var at = 0.0;
  if (p.tangents != 0u) { at = angle_deg(tangent_of(slot, v), tangent_of(p.ref_slot, v)); }
  return vec4<f32>(an, an, at, at);
}

fn finish(slot: u32, a: vec4<f32>) -> vec4<f32> {
  return vec4<f32>(a.x / f32(p.n), a.y, a.z / f32(p.n), a.w);
}
