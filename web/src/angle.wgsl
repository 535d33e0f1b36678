// The angle between two directions in degrees, as the core measures it (sfk_angle_deg): 180 where either is
// shorter than sfk_safe_unit's threshold. Joined after shaders/generated/layout.wgsl by the statistics and the
// cross-check passes (web/src/gpu.js).
fn angle_deg(a: vec3<f32>, b: vec3<f32>) -> f32 {
  if (!(dot(a, a) >= SF_SAFE_UNIT_EPS2) || !(dot(b, b) >= SF_SAFE_UNIT_EPS2)) { return 180.0; }
  return degrees(atan2(length(cross(a, b)), dot(a, b)));
}
