"""evaluate_asset against `skinframe eval`: every statistic of its JSON, and its printed table line for line."""
import os

import pytest

import skinframe
from conftest import CESIUM_MAN, MORPH_CUBE

STATS = ("count", "mean", "rms", "p50", "p95", "max", "over_1", "over_5", "over_45")


def same_stats(ours, theirs, what):
    if theirs is None:
        assert ours is None, what
        return
    for key in STATS:
        assert getattr(ours, key) == pytest.approx(theirs[key], rel=1e-12, abs=1e-12), "%s.%s" % (what, key)


def test_cesium_man_matches_command_json(cli):
    theirs = cli("eval", CESIUM_MAN, "--json")
    ours = skinframe.evaluate_asset(CESIUM_MAN)
    assert ours.vertices == theirs["vertices_per_frame"]
    assert len(ours.clips) == len(theirs["animations"])
    for clip, tclip in zip(ours.clips, theirs["animations"]):
        assert clip.frames == tclip["frames"] and clip.index == tclip["index"]
        assert [m.method for m in clip.methods] == [m["method"] for m in tclip["methods"]]
        for m, tm in zip(clip.methods, tclip["methods"]):
            for part in ("normal", "tangent", "rest_normal", "rest_tangent"):
                same_stats(getattr(m, part), tm[part], m.method + "." + part)
            worst = tm.get("worst_normal_vertex")
            if worst:
                assert m.worst_normal.angle_deg == pytest.approx(worst["angle_deg"])
                assert m.worst_normal.frame == worst["frame"]
                assert m.worst_normal_where.vertex == worst["vertex"]
                assert m.worst_normal_where.node == worst["node"]
            assert m.worst_frame == tm["worst_frame"]["frame"]
            assert m.handedness == tm["handedness_mismatches"]


def test_cesium_man_table_matches_command_text(cli):
    theirs = cli("eval", CESIUM_MAN).splitlines()
    ours = skinframe.evaluate_asset(CESIUM_MAN).text().splitlines()
    strip = lambda line: line.split("; evaluated in")[0]  # the timing differs from run to run
    assert [strip(x) for x in ours] == [strip(x) for x in theirs[:len(ours)]]
    assert len(ours) > 20


def test_engines_and_morphs_match_command(cli):
    theirs = cli("eval", MORPH_CUBE, "--engine", "all", "--json")
    ours = skinframe.evaluate_asset(MORPH_CUBE, engine="all")
    for clip, tclip in zip(ours.clips, theirs["animations"]):
        for m, tm in zip(clip.methods, tclip["methods"]):
            same_stats(m.normal, tm["normal"], m.method)
        engines = [v for v in clip.variants if v.engine]
        assert [v.engine for v in engines] == [tv["engine"] for tv in tclip["variants"]]
        for v, tv in zip(engines, tclip["variants"]):
            assert v.methods[0].normal.mean == pytest.approx(tv["normal"]["mean"], rel=1e-12)
            assert v.methods[0].normal.max == pytest.approx(tv["normal"]["max"], rel=1e-12)


def test_threads_give_the_same_bits():
    one = skinframe.evaluate_asset(CESIUM_MAN, methods=["skinned", "jacobian-fan"], threads=1)
    two = skinframe.evaluate_asset(CESIUM_MAN, methods=["skinned", "jacobian-fan"], threads=3)
    for a, b in zip(one.clips[0].methods, two.clips[0].methods):
        assert a.normal == b.normal and a.tangent == b.tangent and a.worst_normal == b.worst_normal


def test_on_frame_sees_every_frame():
    seen = []
    report = skinframe.evaluate_asset(CESIUM_MAN, methods="skinned", on_frame=lambda c, f, t: seen.append(f))
    assert seen == list(range(report.clips[0].frames))


def test_errors_carry_message_and_field(tmp_path):
    with pytest.raises(skinframe.FileError) as e:
        skinframe.load(os.path.join(str(tmp_path), "missing.glb"))
    assert "missing.glb" in e.value.message
    bad = tmp_path / "bad.gltf"
    bad.write_text('{"asset": {"version": "2.0"}, "accessors": [{"count": -1}]}')
    with pytest.raises(skinframe.GltfError) as e:
        skinframe.load(str(bad))
    assert e.value.field.startswith("accessors") and isinstance(e.value, skinframe.Error)
    with pytest.raises(skinframe.UnknownName):
        skinframe.evaluate_asset(CESIUM_MAN, methods=["no-such-method"])
