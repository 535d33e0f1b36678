// The four views' mesh drawn straight from the GPU passes' buffers (web/src/gpu_views.js): joined after
// shaders/generated/layout.wgsl and angle.wgsl. No vertex buffers: each corner of a triangle reads its vertex
// from the topology's indices, the final position from the deformation's state, and the drawn slot's normal and
// tangent from the frames (3n normals, then 4n tangents per method slot). The error views colour each vertex
// by the angle between the method's and the reference's slots, as the statistics pass measures it. The
// shading is views.js's, so the GPU-drawn views and the three.js ones give the same pixels.

// struct ViewParams, the modes (SF_VIEW_MODE_*) and error kinds (SF_VIEW_ERROR_*): shaders/generated/layout.wgsl

@group(0) @binding(0) var<uniform> V: ViewParams;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> state: array<f32>;
@group(0) @binding(3) var<storage, read> frames: array<f32>;

struct Corner {
  @builtin(position) clip: vec4<f32>,
  @location(0) normal: vec3<f32>,
  @location(1) tangent: vec4<f32>,
  @location(2) uv: vec2<f32>,
  @location(3) err: f32,
}

fn slot_normal(slot: u32, v: u32) -> vec3<f32> {
  let b = SF_FRAME_FLOATS * V.n * slot + SF_FRAME_NORMAL_FLOATS * v;
  return vec3<f32>(frames[b], frames[b + 1u], frames[b + 2u]);
}

fn slot_tangent(slot: u32, v: u32) -> vec4<f32> {
  let b = SF_FRAME_FLOATS * V.n * slot + SF_FRAME_NORMAL_FLOATS * V.n + 4u * v;
  return vec4<f32>(frames[b], frames[b + 1u], frames[b + 2u], frames[b + 3u]);
}

@vertex
fn vs_main(@builtin(vertex_index) corner: u32) -> Corner {
  let v = topo[V.indices + corner];
  let o = SF_GPU_STATE_STRIDE * v + SF_STATE_POSITION;
  var c: Corner;
  let clip = V.view_proj * vec4<f32>(state[o], state[o + 1u], state[o + 2u], 1.0);
  // WebGL's depth range (-w..w) to WebGPU's (0..w): the camera's matrices are three.js's
  c.clip = vec4<f32>(clip.xy, 0.5 * (clip.z + clip.w), clip.w);
  // shaded in the scene's space, as views.js's mat3(modelMatrix) turns them
  let turn = mat3x3<f32>(V.model[0].xyz, V.model[1].xyz, V.model[2].xyz);
  c.normal = turn * slot_normal(V.shade_slot, v);
  let t = slot_tangent(V.shade_slot, v);
  c.tangent = vec4<f32>(turn * t.xyz, t.w);
  c.uv = vec2<f32>(0.0);
  if (V.has_uv != 0u) { c.uv = vec2<f32>(bitcast<f32>(topo[V.uvs + 2u * v]), bitcast<f32>(topo[V.uvs + 2u * v + 1u])); }
  c.err = -1.0;
  if (V.error == SF_VIEW_ERROR_NORMAL_ANGLE) { c.err = angle_deg(slot_normal(V.method_slot, v), slot_normal(V.ref_slot, v)); }
  if (V.error == SF_VIEW_ERROR_TANGENT_ANGLE) { c.err = angle_deg(slot_tangent(V.method_slot, v).xyz, slot_tangent(V.ref_slot, v).xyz); }
  return c;
}

// 0 degrees SF_VIEW_HEAT_LOW, half of SF_VIEW_HEAT_FULL_DEG SF_VIEW_HEAT_MID, that and more SF_VIEW_HEAT_HIGH
fn heat(d: f32) -> vec3<f32> {
  let t = clamp(d / SF_VIEW_HEAT_FULL_DEG, 0.0, 1.0);
  if (t < 0.5) { return mix(SF_VIEW_HEAT_LOW, SF_VIEW_HEAT_MID, t * 2.0); }
  return mix(SF_VIEW_HEAT_MID, SF_VIEW_HEAT_HIGH, t * 2.0 - 1.0);
}

@fragment
fn fs_main(c: Corner, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
  var n = vec3<f32>(0.0);
  if (length(c.normal) > 0.0) { n = normalize(c.normal); }
  if (!front) { n = -n; }
  // layout.wgsl: the light, colours and shading terms, the same as the page's three.js views'
  let l = normalize(SF_VIEW_LIGHT);
  if (V.mode == SF_VIEW_MODE_ERROR_HEAT) {
    var col = heat(c.err);
    if (c.err < 0.0) { col = SF_VIEW_NOT_MEASURED; }
    return vec4<f32>(col * (SF_VIEW_HEAT_AMBIENT + SF_VIEW_HEAT_DIFFUSE * abs(dot(n, l))), 1.0);
  }
  if (V.mode == SF_VIEW_MODE_NORMAL_MAPPED && length(c.tangent.xyz) > 0.0) {
    let t = normalize(c.tangent.xyz - n * dot(n, c.tangent.xyz));
    var s = 1.0;
    if (c.tangent.w < 0.0) { s = -1.0; }
    if (!front) { s = -s; }
    let b = cross(n, t) * s;
    // height BUMP_HEIGHT sin(2 pi BUMP_CYCLES u) sin(2 pi BUMP_CYCLES v); the normal map's +Y runs along -v (glTF)
    let k = 6.2831853 * SF_VIEW_BUMP_CYCLES;
    let du = SF_VIEW_BUMP_HEIGHT * k * cos(k * c.uv.x) * sin(k * c.uv.y);
    let dv = SF_VIEW_BUMP_HEIGHT * k * sin(k * c.uv.x) * cos(k * c.uv.y);
    let m = normalize(vec3<f32>(-du * SF_VIEW_BUMP_SLOPE, dv * SF_VIEW_BUMP_SLOPE, 1.0));
    n = normalize(t * m.x + b * m.y + n * m.z);
  }
  if (V.mode == SF_VIEW_MODE_NORMAL_COLOURS) { return vec4<f32>(n * 0.5 + 0.5, 1.0); }
  return vec4<f32>(SF_VIEW_SURFACE * (SF_VIEW_SURFACE_AMBIENT + SF_VIEW_SURFACE_DIFFUSE * max(dot(n, l), 0.0)), 1.0);
}
