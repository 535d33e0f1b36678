// The GPU passes' frames against the wasm core's, on the GPU, reduced by reduce.wgsl: frames and core each hold
// 7n floats per method slot (3n normals, then 4n tangents), core uploaded from the core's results of the same
// pose. Each slot's out is its largest normal angle, its largest tangent angle (degrees, between the two frames of
// a vertex) and its count of tangent handedness signs that differ, in the lanes SF_COMPARE_OUT_* (the lane left
// is 0). The page reads back 16 bytes per slot, not
// the frames. Tangents are compared where p.tangents is 1.
// An angle is 180 degrees when exactly one of the two is zero, 0 when both are: a zero the core also made is
// no difference between the two.

// struct CompareParams: shaders/generated/layout.wgsl

@group(0) @binding(0) var<uniform> p: CompareParams;
@group(0) @binding(1) var<storage, read> frames: array<f32>;
@group(0) @binding(2) var<storage, read> core: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

// How far the GPU's direction is from the core's: angle.wgsl's angle, 0 where both are zero (they agree).
fn differ_deg(a: vec3<f32>, b: vec3<f32>) -> f32 {
  if (!(dot(a, a) >= SF_SAFE_UNIT_EPS2) && !(dot(b, b) >= SF_SAFE_UNIT_EPS2)) { return 0.0; }
  return angle_deg(a, b);
}

fn gpu3(i: u32) -> vec3<f32> { return vec3<f32>(frames[i], frames[i + 1u], frames[i + 2u]); }
fn core3(i: u32) -> vec3<f32> { return vec3<f32>(core[i], core[i + 1u], core[i + 2u]); }

// lane by lane: the handedness lane counts, the others are maxima
fn merge(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
  var r = max(a, b);
  r[SF_COMPARE_OUT_HANDEDNESS] = a[SF_COMPARE_OUT_HANDEDNESS] + b[SF_COMPARE_OUT_HANDEDNESS];
  return r;
}

fn sample(slot: u32, v: u32) -> vec4<f32> {
  var a = vec4<f32>(0.0);
  let nb = SF_FRAME_FLOATS * p.n * slot + SF_FRAME_NORMAL_FLOATS * v;
  a[SF_COMPARE_OUT_NORMAL_MAX] = differ_deg(gpu3(nb), core3(nb));
  if (p.tangents != 0u) {
    let tb = SF_FRAME_FLOATS * p.n * slot + SF_FRAME_NORMAL_FLOATS * p.n + 4u * v;
    a[SF_COMPARE_OUT_TANGENT_MAX] = differ_deg(gpu3(tb), core3(tb));
    a[SF_COMPARE_OUT_HANDEDNESS] = select(0.0, 1.0, frames[tb + 3u] != core[tb + 3u]);
  }
  return a;
}

fn finish(slot: u32, a: vec4<f32>) -> vec4<f32> { return a; }
