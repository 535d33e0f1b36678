"""Mesh.from_arrays, frames, evaluate and evaluate_frames: on CesiumMan's arrays against `skinframe eval`
(the same data through numpy), and on small meshes against what the answer must be."""
import numpy as np
import pytest

import skinframe
from conftest import CESIUM_MAN


def test_arrays_through_numpy_match_command(cli):
    theirs = {m["method"]: m for m in cli("eval", CESIUM_MAN, "--json")["animations"][0]["methods"]}
    asset = skinframe.load(CESIUM_MAN)
    mesh = skinframe.Mesh.from_arrays(**asset.arrays())
    clip = skinframe.evaluate_asset(asset, methods="skinned").clips[0]
    poses = [asset.pose(0, 0, t) for t in clip.frame_times]
    ours = skinframe.evaluate_frames(mesh, poses, weld="position-normal", tangents="mikktspace")
    assert list(ours) == list(skinframe.DEFAULT_METHODS)
    for name, st in ours.items():
        for key in ("count", "mean", "p95", "max"):
            assert getattr(st.normal, key) == pytest.approx(theirs[name]["normal"][key], rel=1e-9), name + key
            assert getattr(st.tangent, key) == pytest.approx(theirs[name]["tangent"][key], rel=1e-9), name + key
            assert getattr(st.rest_normal, key) == pytest.approx(theirs[name]["rest_normal"][key], rel=1e-9)
        assert st.worst_frame == theirs[name]["worst_frame"]["frame"], name
        assert st.worst_normal.angle_deg == pytest.approx(theirs[name]["worst_normal_vertex"]["angle_deg"]), name
        assert st.handedness == theirs[name]["handedness_mismatches"], name


def test_evaluate_angles_agree_with_statistics():
    asset = skinframe.load(CESIUM_MAN)
    mesh = asset.mesh()
    rows = skinframe.evaluate(mesh, asset.pose(0, 0, 0.5), angles=True, weld="position-normal")
    for name, r in rows.items():
        assert r.normal_deg.shape == (mesh.vertex_count,)
        assert float(r.normal_deg.max()) == pytest.approx(r.normal.max, rel=1e-6)
        assert float(r.normal_deg.mean()) == pytest.approx(r.normal.mean, rel=1e-4)
        assert int(np.argmax(r.normal_deg)) == r.worst_normal_vertex or r.normal.max == 0
    assert rows["recompute"].normal.max == 0.0


def plane(twist_deg):
    """Two triangles of a unit quad on two bones; bone 1 rotated about x by twist_deg."""
    pos = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    idx = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
    joints = np.array([[0, 1]] * 4, np.uint32)
    weights = np.array([[1, 0], [1, 0], [0.5, 0.5], [0, 1]], np.float32)
    c, s = np.cos(np.radians(twist_deg)), np.sin(np.radians(twist_deg))
    rot = np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0]], np.float32)
    return skinframe.Mesh.from_arrays(pos, idx, joints=joints, weights=weights), \
        skinframe.Pose(np.stack([rot, rot]))


def test_rigid_rotation_moves_normals_exactly():
    mesh, pose = plane(30.0)
    pos, nrm, tan = skinframe.frames(mesh, pose, method="skinned")
    expect = np.array([0, -np.sin(np.radians(30)), np.cos(np.radians(30))], np.float32)
    assert np.allclose(nrm, expect, atol=1e-6)
    assert np.allclose(pos[2], [1, np.cos(np.radians(30)), np.sin(np.radians(30))], atol=1e-6)
    rows = skinframe.evaluate(mesh, pose)
    assert rows["skinned"].normal.max < 1e-3 and rows["unchanged"].normal.mean == pytest.approx(30.0, abs=1e-3)


def test_morph_target_moves_positions():
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    delta = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 0]], np.float32)
    mesh = skinframe.Mesh.from_arrays(pos, [0, 1, 2], targets=[delta])
    p, n, _ = skinframe.frames(mesh, (None, [0.5]), method="recompute")
    assert np.allclose(p[1], [1, 0, 0.5])
    assert np.allclose(n[0], np.cross([1, 0, 0.5], [0, 1, 0]) / np.linalg.norm(np.cross([1, 0, 0.5], [0, 1, 0])),
                       atol=1e-6)


def test_errors_name_the_field():
    pos = np.zeros((3, 3), np.float32)
    pos[1, 0] = pos[2, 1] = 1
    with pytest.raises(skinframe.JointIndex) as e:
        skinframe.Mesh.from_arrays(pos, [0, 1, 2], joints=[[0], [1], [5]], weights=[[1], [1], [1]], bone_count=2)
    assert e.value.field == "mesh.joints" and e.value.index == 2 and "5" in e.value.message
    with pytest.raises(skinframe.IndexRange):
        skinframe.Mesh.from_arrays(pos, [0, 1, 3])
    with pytest.raises(skinframe.NotFinite) as e:
        skinframe.Mesh.from_arrays(np.full((3, 3), np.nan), [0, 1, 2])
    assert e.value.field == "mesh.positions"
    with pytest.raises(skinframe.InvalidArgument):
        skinframe.Mesh.from_arrays(pos[:, :2], [0, 1, 2])


def test_float32_arrays_are_not_copied():
    pos = np.ascontiguousarray(np.random.default_rng(1).random((50, 3)), np.float32)
    view = skinframe.mesh._floats(pos, 3, "p")
    assert view is pos or np.shares_memory(view, pos)


def test_heatmap_colors():
    rgba = skinframe.heatmap_colors([0.0, 11.25, 22.5, 33.75, 45.0, 170.0])
    assert np.allclose(rgba[:, :3], [[0, 1, 0], [0.5, 1, 0], [1, 1, 0], [1, 0.5, 0], [1, 0, 0], [1, 0, 0]])
    assert np.all(rgba[:, 3] == 1)


def test_vertex_max_over_frames():
    asset = skinframe.load(CESIUM_MAN)
    mesh = asset.mesh()
    poses = [asset.pose(0, 0, t) for t in (0.3, 0.9, 1.5)]
    st = skinframe.evaluate_frames(mesh, poses, methods=["skinned"], vertex_max=True)["skinned"]
    rows = [skinframe.evaluate(mesh, p, methods=["skinned"], angles=True)["skinned"] for p in poses]
    assert np.array_equal(st.vertex_max_normal_deg, np.max([r.normal_deg for r in rows], axis=0))
    assert float(st.vertex_max_normal_deg.max()) == pytest.approx(st.normal.max)
    assert int(np.argmax(st.vertex_max_normal_deg)) == st.worst_normal.vertex
    assert mesh.tangent_frame  # CesiumMan has UVs: the tangents' largest errors too
    assert np.array_equal(st.vertex_max_tangent_deg, np.max([r.tangent_deg for r in rows], axis=0))
    assert float(st.vertex_max_tangent_deg.max()) == pytest.approx(st.tangent.max)
    assert int(np.argmax(st.vertex_max_tangent_deg)) == st.worst_tangent.vertex
    assert len(st.frame_normal_mean) == 3


def test_zero_weights_rest_keeps_the_vertex():
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    move = np.array([[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 2.0]]], np.float32)
    kw = dict(joints=[[0], [0], [0]], weights=[[1], [1], [0]], bone_count=1)
    with pytest.raises(skinframe.ZeroWeights):
        skinframe.Mesh.from_arrays(pos, [0, 1, 2], **kw)
    mesh = skinframe.Mesh.from_arrays(pos, [0, 1, 2], zero_weights="rest", **kw)
    p, _, _ = skinframe.frames(mesh, skinframe.Pose(move))
    assert np.allclose(p, [[0, 0, 2], [1, 0, 2], [0, 1, 0]])
