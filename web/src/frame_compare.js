// The GPU passes' frames against the wasm core's: per method the largest angle between the two normals and the two
// tangents (degrees) and the count of tangent handedness signs that differ. Used where the core's frames are: on
// the page for a mesh evaluated there, in the scene worker for the worker's scenes.

export function angleDeg(a, ai, b, bi) {
  const ax = a[ai], ay = a[ai + 1], az = a[ai + 2], bx = b[bi], by = b[bi + 1], bz = b[bi + 2];
  const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz);
  if (la === 0 || lb === 0) return la === lb ? 0 : 180;
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  return (Math.atan2(Math.hypot(cx, cy, cz), ax * bx + ay * by + az * bz) * 180) / Math.PI;
}

// out: the GPU's frames, 7n floats per method slot (3n normals, then 4n tangents); want: [{method, normals,
// tangents (null: not measured)}]. Returns [{method, normalDeg, tangentDeg (null when not measured), handedness}].
export function compareFrames(out, n, want) {
  return want.map((w) => {
    const base = 7 * n * w.method;
    let mn = 0, mt = 0, h = 0;
    for (let v = 0; v < n; ++v) {
      mn = Math.max(mn, angleDeg(out, base + 3 * v, w.normals, 3 * v));
      if (!w.tangents) continue;
      const g = base + 3 * n + 4 * v;
      mt = Math.max(mt, angleDeg(out, g, w.tangents, 4 * v));
      h += out[g + 3] !== w.tangents[4 * v + 3];
    }
    return { method: w.method, normalDeg: mn, tangentDeg: w.tangents ? mt : null, handedness: w.tangents ? h : null };
  });
}
