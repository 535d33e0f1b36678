// How far float32 alone can put two evaluations of the reference apart on a mesh. The reference's directions come
// from the deformed triangles' edges; two correct evaluations (the wasm core, a GPU that contracts multiply-adds)
// may round a deformed coordinate differently by an ulp for each rounded term it sums (a skinned coordinate blends
// one term per influence), and across an edge of length e that turns the edge, and the directions made from it, by
// up to about that many ulps / e radians. A corner's normal sums its faces, so a difference on every coordinate
// moves it by up to about twice that (web/test/float_bound.test.mjs measures it).

// The spacing of float32 values at magnitude x (x > 0).
function ulp32(x) {
  return 2 ** (Math.floor(Math.log2(x)) - 23);
}

// The bound, in degrees, for a mesh's rest positions (xyz per vertex) and triangles (3 indices each) whose deformed
// coordinates may round apart by `steps` float32 steps: twice that many ulps of its largest coordinate over its
// shortest edge. 0 for a mesh without a measurable edge.
export function referenceRoundingDeg(positions, indices, steps = 1) {
  let far = 0;
  for (let i = 0; i < positions.length; ++i) far = Math.max(far, Math.abs(positions[i]));
  let shortest2 = Infinity;
  for (let t = 0; t + 2 < indices.length; t += 3) {
    for (let k = 0; k < 3; ++k) {
      const a = 3 * indices[t + k], b = 3 * indices[t + (k + 1) % 3];
      const dx = positions[b] - positions[a], dy = positions[b + 1] - positions[a + 1], dz = positions[b + 2] - positions[a + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 > 0 && d2 < shortest2) shortest2 = d2;
    }
  }
  if (!(far > 0) || shortest2 === Infinity) return 0;
  return (2 * steps * ulp32(far) / Math.sqrt(shortest2)) * 180 / Math.PI;
}
