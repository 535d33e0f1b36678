// The reference's first pass on the GPU: morph positions, blend the bone matrices, skin (one thread per
// vertex). Written from src/kernels/sf_kernels.h: sfk_deform_vertex (position part), sfk_blend_matrix,
// sfk_mat_det, sfk_mat_point. Bone matrices: 12 floats, column-major 3x4 (skinframe.h's convention).
struct Params { vertex_count: u32, influences: u32, targets: u32, pad: u32 }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> rest: array<f32>;      // 3n packed rest positions
@group(0) @binding(2) var<storage, read> joints: array<u32>;    // influences * n
@group(0) @binding(3) var<storage, read> weights: array<f32>;   // influences * n
@group(0) @binding(4) var<storage, read> bones: array<f32>;     // 12 * bones
@group(0) @binding(5) var<storage, read> deltas: array<f32>;    // targets * 3n, dense position deltas
@group(0) @binding(6) var<storage, read> morph: array<f32>;     // targets weights
@group(0) @binding(7) var<storage, read_write> out_p: array<f32>; // 3n final positions, then n determinants

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  let n = P.vertex_count;
  if (v >= n) { return; }
  var p = vec3<f32>(rest[3u * v], rest[3u * v + 1u], rest[3u * v + 2u]);
  for (var k = 0u; k < P.targets; k++) {
    let a = morph[k];
    if (a == 0.0) { continue; }
    let d = k * 3u * n + 3u * v;
    p += a * vec3<f32>(deltas[d], deltas[d + 1u], deltas[d + 2u]);
  }
  var m: array<f32, 12>;
  for (var c = 0u; c < 12u; c++) { m[c] = 0.0; }
  var total = 0.0;
  for (var i = 0u; i < P.influences; i++) {
    let w = weights[P.influences * v + i];
    if (w == 0.0) { continue; }
    let b = 12u * joints[P.influences * v + i];
    for (var c = 0u; c < 12u; c++) { m[c] += w * bones[b + c]; }
    total += w;
  }
  if (total == 0.0) { m[0] = 1.0; m[4] = 1.0; m[8] = 1.0; }
  let a0 = vec3<f32>(m[0], m[1], m[2]);
  let a1 = vec3<f32>(m[3], m[4], m[5]);
  let a2 = vec3<f32>(m[6], m[7], m[8]);
  let q = a0 * p.x + a1 * p.y + a2 * p.z + vec3<f32>(m[9], m[10], m[11]);
  out_p[3u * v] = q.x; out_p[3u * v + 1u] = q.y; out_p[3u * v + 2u] = q.z;
  out_p[3u * n + v] = dot(a0, cross(a1, a2));
}
