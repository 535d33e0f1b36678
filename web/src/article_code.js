// Which shader lines each section of the article shows. The code itself is read from shaders/ when the page is
// built (vite.config.js, virtual:shader-code): for every language the listed files, and for every equation term
// the text that marks its line in that language. A term whose text is no longer in its file fails the build, so
// the article cannot drift from the shaders silently.
export const LANGUAGES = [
  { id: 'wgsl', name: 'WGSL' },
  { id: 'glsl', name: 'GLSL' },
  { id: 'hlsl', name: 'HLSL (spirv-cross)' },
];

// files: per language, paths under shaders/. terms: name -> per language, a substring of the term's line(s).
export const SECTIONS = {
  lbs: {
    files: { wgsl: ['deform.wgsl', 'frames_vertex.wgsl'], glsl: ['deform.comp', 'frames_vertex.comp'], hlsl: ['generated/deform.hlsl', 'generated/frames_vertex.hlsl'] },
    terms: {
      blend: { wgsl: 'let m = blend_matrix(v);', glsl: 'mat4x3 m = blend_matrix(v);', hlsl: 'float4x3 m = blend_matrix(param_1);' },
      position: { wgsl: 'let q = mat_point(m, p);', glsl: 'put3(o + SF_STATE_POSITION, mat_point(m, p));', hlsl: 'float3 param_5 = mat_point(param_2, param_3);' },
      normal: { wgsl: 'n = safe_unit(mn);', glsl: 'n = safe_unit(mn);', hlsl: 'float3 param_5 = mn;' },
      tangent: { wgsl: 't = safe_unit(mt);', glsl: 't = safe_unit(mt);', hlsl: 'float3 param_6 = mt;' },
    },
  },
  skinned: {
    files: { wgsl: ['frames_vertex.wgsl'], glsl: ['frames_vertex.comp'], hlsl: ['generated/frames_vertex.hlsl'] },
    terms: {
      normal: { wgsl: 'n = safe_unit(mat_dir(B, mn));', glsl: 'n = safe_unit(a0 * mn.x + a1 * mn.y + a2 * mn.z);', hlsl: 'float3 param_8 = ((a0 * mn.x)' },
      tangent: { wgsl: 't = safe_unit(mat_dir(B, mt));', glsl: 't = safe_unit(a0 * mt.x + a1 * mt.y + a2 * mt.z);', hlsl: 'float3 param_7 = ((a0 * mt.x)' },
      blend: { wgsl: 'let B = blend(v);', glsl: 'vec3 a0 = state3(o + SF_STATE_BLEND)', hlsl: 'float3 a0 = state3(' },
    },
  },
  morph: {
    files: { wgsl: ['deform.wgsl', 'common.wgsl'], glsl: ['deform.comp', 'common.glsl'], hlsl: ['generated/deform.hlsl'] },
    terms: {
      position: { wgsl: 'let p = morph_position(v);', glsl: 'vec3 p = morph_position(v);', hlsl: 'float3 p = morph_position(param);' },
      normal: { wgsl: 'if (P.morph_dirs != SF_MORPH_DIRECTIONS_NONE)', glsl: 'if (P.morph_dirs != SF_MORPH_DIRECTIONS_NONE)', hlsl: 'if (P_morph_dirs != 1u)' },
    },
  },
  deltas: {
    files: { wgsl: ['deform.wgsl'], glsl: ['deform.comp'], hlsl: ['generated/deform.hlsl'] },
    terms: {
      position: { wgsl: 'let p = morph_position(v);', glsl: 'vec3 p = morph_position(v);', hlsl: 'float3 p = morph_position(param);' },
      normal: { wgsl: 'n += tf3(P.morph_dn, e) * a;', glsl: 'n += a * vec3(morph_dn', hlsl: 'precise float3 _422 = n + _420;' },
      tangent: { wgsl: 't += tf3(P.morph_dt, e) * a;', glsl: 't += a * vec3(morph_dt', hlsl: 'precise float3 _450 = t + _448;' },
    },
  },
  recompute: {
    files: { wgsl: ['recompute_faces.wgsl', 'recompute_gather.wgsl', 'common.wgsl'], glsl: ['recompute_faces.comp', 'recompute_gather.comp', 'common.glsl'], hlsl: ['generated/recompute_faces.hlsl', 'generated/recompute_gather.hlsl'] },
    terms: {
      face: { wgsl: 'var r = FaceFrame(cross(e1, e2)', glsl: 'precise vec3 fn = cross(e1, e2);', hlsl: 'float3 fn = cross(e1, e2);' },
      sum: { wgsl: 's = gather_add(s, fn_, ft, fb,', glsl: 'gather_add(N, T, B, face3(o)', hlsl: 'gather_add(param_3, param_4' },
      normal: { wgsl: 'finish_frame(v, s);', glsl: 'vec4 t = finish_frame(N, T, B, n);', hlsl: 'float4 _246 = finish_frame(' },
    },
  },
  'inverse-transpose': {
    files: { wgsl: ['frames_vertex.wgsl', 'common.wgsl'], glsl: ['frames_vertex.comp', 'common.glsl'], hlsl: ['generated/frames_vertex.hlsl'] },
    terms: {
      blend: { wgsl: 'let B = blend(v);', glsl: 'vec3 a0 = state3(o + SF_STATE_BLEND)', hlsl: 'float3 a0 = state3(' },
      cofactor: { wgsl: 'return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;', glsl: 'return cross(a1, a2) * v.x + cross(a2, a0) * v.y + cross(a0, a1) * v.z;', hlsl: 'float3 cofactor_dir(' },
      normal: { wgsl: 'n = select(safe_unit(cofactor_dir(B.a0, B.a1, B.a2, mn) * (1.0 / det))', glsl: 'safe_unit(cofactor_dir(a0, a1, a2, mn) * (1.0 / det))', hlsl: 'cofactor_dir(param_9, param_10, param_11, param_12) * (1.0f / det)' },
    },
  },
  jacobian: {
    files: { wgsl: ['jacobian.wgsl'], glsl: ['jacobian.comp'], hlsl: ['generated/jacobian.hlsl'] },
    terms: {
      blend: { wgsl: 'var ju = mat_dir(B, mu);', glsl: 'precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;', hlsl: 'float3 ju = _428;' },
      morph: { wgsl: 'mu += tf3(P.grad_morph_duv, 2u * e) * al;', glsl: 'mu += al * vec3(grad_morph_duv', hlsl: 'precise float3 _389 = mu + _387;' },
      weights: { wgsl: 'cu += pj * tf(P.grad_slot_guv + 2u * k);', glsl: 'cu += pj * grad_slot_guv[2u * k];', hlsl: 'ju = _593;' },
      normal: { wgsl: 'var N = cross(ju, jv);', glsl: 'precise vec3 N = cross(ju, jv);', hlsl: 'float3 N = cross(ju, jv);' },
    },
  },
  'jacobian-fan': {
    files: { wgsl: ['jacobian_fan.wgsl'], glsl: ['jacobian_fan.comp'], hlsl: ['generated/jacobian_fan.hlsl'] },
    terms: {
      blend: { wgsl: 'var ju = mat_dir(B, mu);', glsl: 'precise vec3 ju = a0 * mu.x + a1 * mu.y + a2 * mu.z;', hlsl: 'float3 ju = _608;' },
      secant: { wgsl: 'let c = P.fan_slot_coef + 6u * k;', glsl: 'cu += pj * fan_slot_coef[c];', hlsl: 'ju = _802;' },
      normal: { wgsl: 'var N = cross(ju, jv);', glsl: 'precise vec3 N = cross(ju, jv);', hlsl: 'float3 N = cross(ju, jv);' },
    },
  },
};
