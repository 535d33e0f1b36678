// The wrapper itself: caller meshes through sfw_mesh_create/commit, the live statistics, views that survive
// memory growth, and the library's messages for bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_METHODS, METHODS, RECOMPUTE } from '../src/skinframe.js';
import { loadCore } from './helpers.mjs';

// A strip along x in [0, 2] (n+1 columns x 2 rows) in the xz plane, weights of bone 1 rising with x.
function strip(n) {
  const positions = [], uvs = [], indices = [], joints = [], weights = [];
  for (let j = 0; j < 2; ++j)
    for (let i = 0; i <= n; ++i) {
      const x = (2 * i) / n, z = 0.4 * j;
      positions.push(x, 0, z); uvs.push(x / 2, j);
      joints.push(0, 1); weights.push(1 - x / 2, x / 2);
    }
  for (let i = 0; i < n; ++i) {
    const a = i, b = i + 1, c = n + 1 + i, d = n + 2 + i;
    indices.push(a, c, b, b, c, d);
  }
  return { positions: Float32Array.from(positions), uvs: Float32Array.from(uvs), indices: Uint32Array.from(indices),
    joints: Uint32Array.from(joints), weights: Float32Array.from(weights), influenceCount: 2, boneCount: 2 };
}

test('a caller mesh is skinned as linear blend skinning says', async () => {
  const sf = await loadCore();
  const desc = strip(8);
  const view = sf.createMesh(desc);
  const n = desc.positions.length / 3;
  assert.equal(view.vertexCount, n);
  // bone 0 identity, bone 1 a rotation of 30 degrees about z plus a lift
  const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
  view.bones.set([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1, 0.1, 0.5, 0]);
  view.run();
  for (let v = 0; v < n; ++v) {
    const [x, y, z] = desc.positions.subarray(3 * v, 3 * v + 3);
    const w1 = desc.weights[2 * v + 1], w0 = desc.weights[2 * v];
    const ex = w0 * x + w1 * (c * x - s * y + 0.1), ey = w0 * y + w1 * (s * x + c * y + 0.5), ez = z;
    assert.ok(Math.abs(view.positions[3 * v] - ex) < 1e-5 && Math.abs(view.positions[3 * v + 1] - ey) < 1e-5 &&
      Math.abs(view.positions[3 * v + 2] - ez) < 1e-6, `vertex ${v}`);
  }
  assert.equal(view.summary(RECOMPUTE).normal.max, 0);
  // the one-pass recompute, on request: the reference's frames bit for bit
  assert.deepEqual(sf.catalog().methods.map((m) => m.name), ALL_METHODS);
  const fused = ALL_METHODS.indexOf('recompute-fused');
  assert.equal(view.summary(fused).status, -1, 'not run by default');
  view.setAllMethods(true).run();
  assert.equal(view.summary(fused).normal.max, 0);
  assert.deepEqual(Array.from(view.rows[fused].normals), Array.from(view.refNormals));
  assert.ok(view.summary(METHODS.indexOf('unchanged')).normal.mean > 1, 'unchanged normals stay up on a bent strip');
  view.destroy();
});

test('a caller mesh made by the glTF rules: flat normals without normals, MikkTSpace without tangents', async () => {
  const sf = await loadCore();
  const desc = strip(8);
  const t = desc.indices.length / 3;
  const flat = sf.createMesh({ ...desc, gltf: true });
  assert.equal(flat.vertexCount, 3 * t, 'a vertex per corner');
  const up = flat.run().refNormals; // the rest pose: every face of the strip faces -y or +y
  for (let v = 0; v < flat.vertexCount; ++v) assert.ok(Math.abs(Math.abs(up[3 * v + 1]) - 1) < 1e-6, `vertex ${v}`);
  flat.destroy();
  // with normals: MikkTSpace tangents only; the strip's UVs do not mirror, so no vertex splits
  const n = desc.positions.length / 3;
  const normals = new Float32Array(3 * n);
  for (let v = 0; v < n; ++v) normals[3 * v + 1] = -1;
  const smooth = sf.createMesh({ ...desc, normals, gltf: true });
  assert.equal(smooth.vertexCount, n);
  assert.equal(sf.exports.sfw_view_split_vertices(smooth.ptr), 0);
  assert.ok(smooth.hasTangentFrame);
  smooth.destroy();
});

test('live statistics equal the full statistics but the percentiles', async () => {
  const sf = await loadCore();
  const view = sf.openScene('sheet', 'bone-twist', { 'towel-twist': 0.6, ripples: 0.4 }).run();
  const full = METHODS.map((_, m) => JSON.parse(JSON.stringify(view.summary(m))));
  view.setLive(true).run();
  for (let m = 0; m < METHODS.length; ++m) {
    const live = view.summary(m);
    for (const kind of ['normal', 'tangent']) {
      for (const f of ['mean', 'rms', 'max', 'over1', 'over5', 'over45'])
        assert.equal(live[kind][f], full[m][kind][f], `${METHODS[m]} ${kind} ${f}`);
      assert.ok(Number.isNaN(live[kind].p50) && Number.isNaN(live[kind].p95));
    }
  }
  view.destroy();
});

test('views follow memory growth', async () => {
  const sf = await loadCore();
  const small = sf.openScene('tip', 'move-neighbor').run();
  const before = Array.from(small.refNormals);
  const bytes = sf.memory.buffer.byteLength;
  const big = sf.openScene('sheet', '', { resolution: 200 });
  assert.ok(sf.memory.buffer.byteLength > bytes, 'memory grew');
  assert.deepEqual(Array.from(small.refNormals), before);
  small.run();
  assert.deepEqual(Array.from(small.refNormals), before);
  big.destroy(); small.destroy();
});

test('bad input gives the library message', async () => {
  const sf = await loadCore();
  assert.throws(() => sf.openScene('nope'), /nope/);
  assert.throws(() => sf.openScene('sheet', '', { twist: 1000 }), /twist = 1000 outside \[-720, 720\]/);
  const desc = strip(2);
  desc.indices[0] = 99;
  assert.throws(() => sf.createMesh(desc), /99/);
  assert.throws(() => sf.createMesh({ ...desc, gltf: true }), /99/, 'the glTF rules leave a bad index to the topology');
  const desc2 = strip(2);
  desc2.joints[0] = 7;
  assert.throws(() => sf.createMesh(desc2), /joint/);
});

// Everything a run gives, as plain arrays (for comparing two views).
function results(view) {
  return { positions: Array.from(view.positions), refNormals: Array.from(view.refNormals),
    refTangents: Array.from(view.refTangents), stats: Array.from(view.stats), frame: Array.from(view.frame),
    heads: Array.from(view.boneHeads), tails: Array.from(view.boneTails),
    rows: METHODS.map((_, m) => ['normals', 'tangents', 'normalDeg', 'tangentDeg'].map((k) => Array.from(view.rows[m][k]))) };
}

test('a pose-only change re-poses the open scene: the same results as opening it again', async () => {
  const sf = await loadCore();
  for (const [scene, pose] of [['sheet', { twist: 70, bend: -30, swirl: 0.6, ripples: -1.2 }], ['elbow', { bend: 80 }],
    ['ramp', {}]]) {
    const info = sf.catalog().scenes.find((s) => s.name === scene);
    const size = info.params.some((p) => p.name === 'resolution') ? { resolution: 6 } : {};
    const view = sf.openScene(scene, '', size).setOptions({ weld: 1 }).setLive(true);
    view.run();
    const rest = results(view);
    const settings = { ...size, ...pose };
    assert.equal(view.repose(settings), true, `${scene}: ${JSON.stringify(pose)} changes only the pose`);
    view.run();
    const fresh = sf.openScene(scene, '', settings).setOptions({ weld: 1 }).setLive(true).run();
    assert.deepEqual(results(view), results(fresh), scene);
    if (Object.keys(pose).length) assert.notDeepEqual(results(view).positions, rest.positions, `${scene}: posed`);
    fresh.destroy();
    // back to rest: the first results again
    assert.equal(view.repose(size), true);
    assert.deepEqual(results(view.run()), rest, `${scene} at rest again`);
    view.destroy();
  }
});

test('a change of the mesh is not a re-pose; bad settings leave the view as it was', async () => {
  const sf = await loadCore();
  const view = sf.openScene('sheet', '', { resolution: 4, twist: 20 }).setLive(true).run();
  const before = results(view);
  assert.equal(view.repose({ resolution: 5, twist: 20 }), false, 'another resolution is another mesh');
  assert.equal(view.vertexCount, 21 * 5);
  assert.throws(() => view.repose({ resolution: 4, twist: 1000 }), /twist = 1000 outside \[-720, 720\]/);
  assert.throws(() => view.repose({ resolution: 4, nope: 1 }), /nope/);
  assert.deepEqual(results(view.run()), before);
  const mesh = sf.createMesh(strip(2));
  assert.throws(() => mesh.repose({}), /not a built-in scene/);
  mesh.destroy(); view.destroy();
});
