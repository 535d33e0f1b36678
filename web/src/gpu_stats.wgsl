// The normals' and tangents' angle error statistics of every method slot against the reference slot, on the GPU,
// reduced by reduce.wgsl: frames holds 7n floats per slot (3n normals, then 4n tangents); each slot's out is
// the normal and tangent angles' mean and max, in the lanes SF_STATS_OUT_* (the tangent pair is 0 when
// p.tangents is 0: no UVs, no tangent frame). An angle is 180 degrees when either direction is zero (squared length under 1e-24), as the
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

// lane by lane: the means' lanes hold sums until finish, the others maxima
fn merge(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  var r = max(a, b);
  r[SF_STATS_OUT_NORMAL_MEAN] = a[SF_STATS_OUT_NORMAL_MEAN] + b[SF_STATS_OUT_NORMAL_MEAN];
  r[SF_STATS_OUT_TANGENT_MEAN] = a[SF_STATS_OUT_TANGENT_MEAN] + b[SF_STATS_OUT_TANGENT_MEAN];
  return r;
}

fn sample(slot: u32, v: u32) -> vec4<f32> {
  var r = vec4<f32>(0.0);
  let an = angle_deg(normal_of(slot, v), normal_of(p.ref_slot, v));
  r[SF_STATS_OUT_NORMAL_MEAN] = an;
  r[SF_STATS_OUT_NORMAL_MAX] = an;
  if (p.tangents != 0u) {
    let at = angle_deg(tangent_of(slot, v), tangent_of(p.ref_slot, v));
    r[SF_STATS_OUT_TANGENT_MEAN] = at;
    r[SF_STATS_OUT_TANGENT_MAX] = at;
  }
  return r;
}

fn finish(slot: u32, a: vec4<f32>) -> vec4<f32> {
  var r = a;
  r[SF_STATS_OUT_NORMAL_MEAN] = a[SF_STATS_OUT_NORMAL_MEAN] / f32(p.n);
  r[SF_STATS_OUT_TANGENT_MEAN] = a[SF_STATS_OUT_TANGENT_MEAN] / f32(p.n);
  return r;
}
