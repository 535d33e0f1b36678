// jacobian-fan normals and tangents in three.js's vertex shader, from the embedded per-vertex attributes of
// docs/embedded.md (`_SKINFRAME_FAN_*`; GLTFLoader names them in lower case). applySkinframeFan patches a
// MeshStandardMaterial (or MeshPhysicalMaterial) through onBeforeCompile: the morph-normal chunk is dropped (the
// fan's morph gradients carry the targets) and the skinning-normal chunk computes the frame from the mesh's
// skin matrix, its morphed position and the attributes, as src/kernels/sfk_jacobian_fan.h does. WebGL2 offers 16
// vertex attributes, fewer than the coefficients of two slot groups, so the module packs them (decoded from
// snorm16 where they are quantized) into one float texture read by gl_VertexID, as three.js does its morph
// targets.
import { BufferAttribute, DataTexture, FloatType, NearestFilter, RGBAFormat } from 'three';

const REST_JOINT = 65535;
const COEFS = 6;

// The attribute of geometry named name (GLTFLoader lower-cases application-specific names).
function attr(geometry, name) {
  return geometry.getAttribute(name) || geometry.getAttribute(name.toLowerCase()) || null;
}

// Component i (element-major) of a (possibly interleaved) attribute as the GPU reads it: normalized int16 is
// max(q / 32767, -1).
function value(a, i) {
  return a.getComponent(Math.floor(i / a.itemSize), i % a.itemSize);
}

/**
 * The fan data of geometry packed for the shader: one RGBA float texel per vector, per vertex the fan normal,
 * then per slot group its joints and six coefficient vectors (times their scales), then per morph target D u and
 * D v. Morph gradients come from geometry.morphAttributes._skinframe_fan_du / _dv (one attribute per target, as
 * the glTF's morph targets hold them).
 */
export function packSkinframeFan(geometry) {
  const normal = attr(geometry, '_SKINFRAME_FAN_NORMAL');
  if (!normal) throw new Error('skinframe-fan: the geometry has no _SKINFRAME_FAN_NORMAL attribute');
  const n = normal.count;
  let groups = 0;
  while (attr(geometry, `_SKINFRAME_FAN_JOINTS_${groups}`)) ++groups;
  const s0 = attr(geometry, '_SKINFRAME_FAN_SCALE_0'), s1 = attr(geometry, '_SKINFRAME_FAN_SCALE_1');
  const scale = (v, c) => (!s0 ? 1 : c < 4 ? value(s0, 4 * v + c) : value(s1, 4 * v + c - 4));
  const morph = geometry.morphAttributes || {};
  const du = morph._skinframe_fan_du || morph._SKINFRAME_FAN_DU || [];
  const dv = morph._skinframe_fan_dv || morph._SKINFRAME_FAN_DV || [];
  const targets = du.length;
  const stride = 1 + 7 * groups + 2 * targets;
  const texels = n * stride, width = Math.min(4096, Math.max(1, texels)), height = Math.ceil(texels / width);
  const data = new Float32Array(4 * width * height);
  const coef = [];
  for (let k = 0; k < COEFS * groups; ++k) coef.push(attr(geometry, `_SKINFRAME_FAN_${k}`));
  for (let v = 0; v < n; ++v) {
    let t = 4 * v * stride;
    for (let q = 0; q < 3; ++q) data[t + q] = value(normal, 3 * v + q);
    t += 4;
    for (let g = 0; g < groups; ++g) {
      const joints = attr(geometry, `_SKINFRAME_FAN_JOINTS_${g}`);
      for (let i = 0; i < 4; ++i) data[t + i] = value(joints, 4 * v + i);
      t += 4;
      for (let c = 0; c < COEFS; ++c, t += 4)
        for (let i = 0; i < 4; ++i) data[t + i] = value(coef[COEFS * g + c], 4 * v + i) * scale(v, c);
    }
    for (let k = 0; k < targets; ++k, t += 8)
      for (let q = 0; q < 3; ++q) {
        data[t + q] = du[k].getComponent(v, q) * scale(v, COEFS); // VEC3, or VEC4 int16 (w 0)
        data[t + 4 + q] = dv[k].getComponent(v, q) * scale(v, COEFS);
      }
  }
  const texture = new DataTexture(data, width, height, RGBAFormat, FloatType);
  texture.minFilter = texture.magFilter = NearestFilter;
  texture.needsUpdate = true;
  return { texture, stride, groups, targets };
}

// GLSL ES 3.00: the frame of one vertex (sfk_jacobian_fan_vertex, cap off), after three.js's skinning and morph
// declarations.
const PARS = /* glsl */ `
#ifndef USE_TANGENT
attribute vec4 tangent; // the rest tangent turns the fan's frame even where the material has no normal map
#endif
uniform highp sampler2D sfFanTexture;
vec4 sfFanTexel(const in int i) {
  int t = gl_VertexID * SF_FAN_STRIDE + i;
  int w = textureSize(sfFanTexture, 0).x;
  return texelFetch(sfFanTexture, ivec2(t % w, t / w), 0);
}
vec3 sfSafeUnit(vec3 v) { float l = dot(v, v); return l >= 1e-24 ? v * (1.0 / sqrt(l)) : vec3(0.0); }
bool sfNonzero(vec3 v) { return dot(v, v) > 0.0; }
vec3 sfOrtho(vec3 n, vec3 t) { return sfSafeUnit(t - n * dot(n, t)); }
void sfBasis(vec3 n, out vec3 u, out vec3 v) {
  float s = n.z >= 0.0 ? 1.0 : -1.0;
  float a = -1.0 / (s + n.z);
  float b = n.x * n.y * a;
  u = vec3(1.0 + s * n.x * n.x * a, s * b, -s * n.x);
  v = vec3(b, s + n.y * n.y * a, -n.y);
}
vec3 sfFrameRotate(vec3 n0, vec3 t0, vec3 n1, vec3 t1, vec3 d) {
  return n1 * dot(n0, d) + t1 * dot(t0, d) + cross(n1, t1) * dot(cross(n0, t0), d);
}
vec3 sfArcRotate(vec3 a, vec3 b, vec3 d) {
  vec3 k = cross(a, b);
  float c = dot(a, b);
  if (c > -0.9999) return d * c + cross(k, d) + k * (dot(k, d) / (1.0 + c));
  vec3 q = abs(a);
  vec3 e = q.x < q.y ? (q.x < q.z ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 0.0, 1.0)) : (q.y < q.z ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0));
  vec3 axis = sfSafeUnit(cross(a, e));
  return axis * (2.0 * dot(axis, d)) - d;
}
mat4 sfFanBone(float j) {
#ifdef USE_SKINNING
  return bindMatrixInverse * getBoneMatrix(j) * bindMatrix;
#else
  return mat4(1.0);
#endif
}
// x: morphed position, S: the skin matrix (bind space), n0 / t0: the rest NORMAL / TANGENT, du / dv: the morph of
// the fan's gradients. Writes the unit normal and tangent (w flipped under mirroring).
void sfFanFrame(vec3 x, mat4 S, vec3 n0, vec4 t0, vec3 du, vec3 dv, out vec3 nOut, out vec4 tOut) {
  vec3 a0 = S[0].xyz, a1 = S[1].xyz, a2 = S[2].xyz;
  vec3 P = (S * vec4(x, 1.0)).xyz;
  float det = dot(a0, cross(a1, a2));
  tOut = vec4(0.0, 0.0, 0.0, det < 0.0 ? -t0.w : t0.w);
  nOut = vec3(0.0);
  vec3 na = sfSafeUnit(n0), nf = sfSafeUnit(sfFanTexel(0).xyz);
  if (!sfNonzero(na) || !sfNonzero(nf)) return;
  vec3 u, v;
  sfBasis(nf, u, v);
  vec3 mu = u + du, mv = v + dv;
  vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z, jv = a0 * mv.x + a1 * mv.y + a2 * mv.z;
  vec3 cu = vec3(0.0), cv = vec3(0.0);
  for (int g = 0; g < SF_FAN_GROUPS; ++g) {
    vec4 joints = sfFanTexel(1 + 7 * g);
    vec4 c0 = sfFanTexel(2 + 7 * g), c1 = sfFanTexel(3 + 7 * g), c2 = sfFanTexel(4 + 7 * g);
    vec4 c3 = sfFanTexel(5 + 7 * g), c4 = sfFanTexel(6 + 7 * g), c5 = sfFanTexel(7 + 7 * g);
    for (int i = 0; i < 4; ++i) {
      vec3 pj = x, au = mu, av = mv;
      if (joints[i] < ${REST_JOINT - 0.5}) {
        mat4 B = sfFanBone(joints[i]);
        pj = (B * vec4(x, 1.0)).xyz;
        au = mat3(B) * mu;
        av = mat3(B) * mv;
      }
      pj -= P; au -= ju; av -= jv;
      cu += pj * c0[i] + au * c2[i] + av * c3[i];
      cv += pj * c1[i] + au * c4[i] + av * c5[i];
    }
  }
  ju += cu;
  jv += cv;
  vec3 N = cross(ju, jv);
  if (det < 0.0) N = -N;
  vec3 n1 = sfSafeUnit(N), t = vec3(0.0), n = vec3(0.0);
  if (!sfNonzero(n1)) {
    tOut.xyz = sfSafeUnit(mat3(S) * t0.xyz);
    return;
  }
  vec3 nr = cross(u, v), tr = sfOrtho(nr, t0.xyz);
  if (!sfNonzero(tr)) tr = u;
  vec3 t1 = sfOrtho(n1, ju * dot(tr, u) + jv * dot(tr, v));
  if (sfNonzero(t1)) {
    n = sfFrameRotate(nr, tr, n1, t1, na);
    t = sfFrameRotate(nr, tr, n1, t1, t0.xyz);
  } else {
    n = sfArcRotate(nr, n1, na);
    t = sfArcRotate(nr, n1, t0.xyz);
  }
  nOut = sfSafeUnit(n);
  t = sfOrtho(nOut, t);
  tOut.xyz = sfNonzero(t) ? t : sfSafeUnit(mat3(S) * t0.xyz);
}
`;

// Replaces skinnormal_vertex: the skin matrix (identity without skinning), the morphed position, the frame.
const NORMAL = /* glsl */ `
{
  mat4 sfSkin = mat4(1.0);
#ifdef USE_SKINNING
  sfSkin = skinWeight.x * boneMatX + skinWeight.y * boneMatY + skinWeight.z * boneMatZ + skinWeight.w * boneMatW;
  sfSkin = bindMatrixInverse * sfSkin * bindMatrix;
#endif
  vec3 sfX = vec3(position);
  vec3 sfDu = vec3(0.0), sfDv = vec3(0.0);
#ifdef USE_MORPHTARGETS
  sfX *= morphTargetBaseInfluence;
  for (int i = 0; i < MORPHTARGETS_COUNT; ++i)
    if (morphTargetInfluences[i] != 0.0) sfX += getMorph(gl_VertexID, i, 0).xyz * morphTargetInfluences[i];
#if SF_FAN_TARGETS > 0
  for (int k = 0; k < SF_FAN_TARGETS; ++k) {
    float a = morphTargetInfluences[k];
    if (a == 0.0) continue;
    sfDu += sfFanTexel(1 + 7 * SF_FAN_GROUPS + 2 * k).xyz * a;
    sfDv += sfFanTexel(2 + 7 * SF_FAN_GROUPS + 2 * k).xyz * a;
  }
#endif
#endif
  vec4 sfT0 = tangent; // (0, 0, 0, 1) where the geometry has none: the fan's own u, as the library does
  vec4 sfTangent;
  sfFanFrame(sfX, sfSkin, vec3(normal), sfT0, sfDu, sfDv, objectNormal, sfTangent);
#ifdef USE_TANGENT
  objectTangent = sfTangent.xyz;
#endif
}
`;

/**
 * Patches material (MeshStandardMaterial or MeshPhysicalMaterial) so that mesh's normals and tangents are
 * jacobian-fan's. Returns the packed data (its texture is the shader's; dispose it with the mesh). A material
 * patched for one mesh's layout serves meshes of the same slot groups and targets.
 */
export function applySkinframeFan(material, mesh) {
  const fan = packSkinframeFan(mesh.geometry);
  const previous = material.onBeforeCompile;
  material.onBeforeCompile = (shader, renderer) => {
    if (previous) previous(shader, renderer);
    shader.uniforms.sfFanTexture = { value: fan.texture };
    shader.defines = { ...shader.defines, SF_FAN_STRIDE: fan.stride, SF_FAN_GROUPS: fan.groups, SF_FAN_TARGETS: fan.targets };
    shader.vertexShader = shader.vertexShader
      .replace('#include <skinning_pars_vertex>', `#include <skinning_pars_vertex>\n${PARS}`)
      .replace('#include <morphnormal_vertex>', '')
      .replace('#include <skinnormal_vertex>', NORMAL);
  };
  const key = `skinframe-fan:${fan.stride}:${fan.groups}:${fan.targets}`;
  const previousKey = material.customProgramCacheKey.bind(material);
  material.customProgramCacheKey = () => `${previousKey()}|${key}`;
  material.needsUpdate = true;
  return fan;
}

/**
 * GLTFLoader plugin: GLTFLoader keeps application-specific vertex attributes (as `_skinframe_fan_*`) but not
 * those of morph targets, so this one puts each primitive's `_SKINFRAME_FAN_DU` / `_DV` target accessors in
 * geometry.morphAttributes._skinframe_fan_du / _dv (zeros for a target without them).
 *   loader.register((parser) => new SkinframeFanPlugin(parser));
 */
export class SkinframeFanPlugin {
  constructor(parser) {
    this.parser = parser;
    this.name = 'skinframe_fan_targets';
  }

  async afterRoot(result) {
    const parser = this.parser, meshes = parser.json.meshes || [], pending = [], seen = new Set();
    for (const scene of result.scenes) {
      scene.traverse((obj) => {
        const a = obj.isMesh ? parser.associations.get(obj) : null;
        if (!a || a.meshes === undefined || a.primitives === undefined || seen.has(obj.geometry)) return;
        const targets = meshes[a.meshes].primitives[a.primitives].targets || [];
        if (!targets.some((t) => t._SKINFRAME_FAN_DU !== undefined)) return;
        seen.add(obj.geometry);
        const geometry = obj.geometry, n = geometry.getAttribute('position').count;
        const load = (t, key) => (t[key] === undefined ? Promise.resolve(new BufferAttribute(new Float32Array(3 * n), 3))
          : parser.getDependency('accessor', t[key]));
        pending.push(Promise.all(targets.map((t) => Promise.all([load(t, '_SKINFRAME_FAN_DU'), load(t, '_SKINFRAME_FAN_DV')])))
          .then((list) => {
            geometry.morphAttributes._skinframe_fan_du = list.map((p) => p[0]);
            geometry.morphAttributes._skinframe_fan_dv = list.map((p) => p[1]);
          }));
      });
    }
    await Promise.all(pending);
  }
}
