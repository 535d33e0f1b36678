// The reference's gather (one thread per vertex) over the precomputed vertex -> corner adjacency (CSR; no
// atomics): sfk_recompute_vertex and sfk_finish_frame of src/kernels/sf_kernels.h, without weld groups (a
// vertex's own corners for the normal and the tangent). n = SafeUnit(N), t = SafeUnit(T - n (n.T)),
// w = sign(dot(cross(n, t), B) * bitangent_sign).
struct Params { vertex_count: u32, weighting: u32, bitangent_sign: f32, pad: u32 }
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;  // n + 1
@group(0) @binding(2) var<storage, read> corners: array<u32>;  // corner = 3 face + c
@group(0) @binding(3) var<storage, read> face: array<f32>;     // 12 per face (recompute_faces.wgsl)
@group(0) @binding(4) var<storage, read_write> frames: array<f32>; // 3n normals, then 4n tangents

fn safe_unit(v: vec3<f32>) -> vec3<f32> {
  let len2 = dot(v, v);
  if (!(len2 >= 1e-24)) { return vec3<f32>(0.0); }
  return v * (1.0 / sqrt(len2));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let v = id.x;
  let n = P.vertex_count;
  if (v >= n) { return; }
  var N = vec3<f32>(0.0); var T = vec3<f32>(0.0); var B = vec3<f32>(0.0);
  for (var a = offsets[v]; a < offsets[v + 1u]; a++) {
    let corner = corners[a];
    let o = 12u * (corner / 3u);
    let w = face[o + 9u + corner % 3u];
    let fn_ = vec3<f32>(face[o], face[o + 1u], face[o + 2u]);
    if (P.weighting == 0u) { N += fn_; } else { N += fn_ * w; }
    T += vec3<f32>(face[o + 3u], face[o + 4u], face[o + 5u]) * w;
    B += vec3<f32>(face[o + 6u], face[o + 7u], face[o + 8u]) * w;
  }
  let nn = safe_unit(N);
  let t = safe_unit(T - nn * dot(nn, T));
  var hand = 1.0;
  if (dot(cross(nn, t), B) * P.bitangent_sign < 0.0) { hand = -1.0; }
  frames[3u * v] = nn.x; frames[3u * v + 1u] = nn.y; frames[3u * v + 2u] = nn.z;
  frames[3u * n + 4u * v] = t.x; frames[3u * n + 4u * v + 1u] = t.y; frames[3u * n + 4u * v + 2u] = t.z;
  frames[3u * n + 4u * v + 3u] = hand;
}
