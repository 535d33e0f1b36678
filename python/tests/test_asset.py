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


def test_library_work_releases_the_gil():
    """While a clip is evaluated in another thread (one library call of a second or so: 301 frames), this thread
    keeps running: its longest pause stays far below the call's length."""
    import threading
    import time
    done = threading.Event()
    seconds, failures = [], []

    def work():
        try:
            seconds.append(skinframe.evaluate_asset(CESIUM_MAN, methods="all", fps=150).clips[0].seconds)
        except Exception as e:  # reported below: the waiting loop must end either way
            failures.append(e)
        finally:
            done.set()
    t = threading.Thread(target=work)
    stamps = [time.perf_counter()]
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    assert not failures, "the evaluation failed: %r" % failures
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert seconds[0] > 0.1, "the clip ran too fast to tell"
    assert max(gaps) < 0.5 * seconds[0], "longest pause %.3f s during a %.3f s call" % (max(gaps), seconds[0])


def test_truncation_variants_match_command(cli):
    args = dict(max_influences=2, max_morph_targets=1, methods=["skinned", "jacobian-fan"])
    theirs = cli("eval", CESIUM_MAN, "--max-influences", "2", "--max-morph-targets", "1", "--method",
                 "skinned,jacobian-fan", "--json")["animations"][0]["variants"]
    ours = [(v, m) for v in skinframe.evaluate_asset(CESIUM_MAN, **args).clips[0].variants for m in v.methods]
    assert len(ours) == len(theirs) > 0
    for (v, m), t in zip(ours, theirs):
        assert (v.label, m.method, v.truncated) == (t["label"], t["normals"], t["truncated_vertices"])
        if "skipped" in t:
            assert m.skipped == t["skipped"]
            continue
        for key in ("mean", "p95", "max"):
            assert getattr(m.normal, key) == pytest.approx(t["normal"][key], rel=1e-12), key
        assert v.position_mean == pytest.approx(t["position"]["mean"], rel=1e-9)
        assert v.position_max == pytest.approx(t["position"]["max"], rel=1e-9)


def test_concurrent_python_threads_share_the_pool():
    """Two Python threads evaluating at once, each asking for threads: the same bits as one alone."""
    import threading
    alone = skinframe.evaluate_asset(CESIUM_MAN, methods=["skinned", "jacobian"], threads=1).clips[0].methods
    out = [None, None]

    def work(i):
        out[i] = skinframe.evaluate_asset(CESIUM_MAN, methods=["skinned", "jacobian"], threads=2).clips[0].methods
    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for got in out:
        assert [(m.normal, m.tangent, m.worst_normal) for m in got] == \
            [(m.normal, m.tangent, m.worst_normal) for m in alone]


def test_data_problems_match_command(cli):
    theirs = cli("eval", MORPH_CUBE, "--method", "skinned", "--json")["data_problems"]
    ours = skinframe.evaluate_asset(MORPH_CUBE, methods="skinned").problems
    assert len(theirs) > 0
    assert [(p.cause, p.count, p.worst_mesh, p.worst_primitive, p.worst_index) for p in ours] == \
        [(t["cause"], t["count"], t["worst_mesh"], t["worst_primitive"], t["worst_index"]) for t in theirs]
    assert [p.worst_value for p in ours] == pytest.approx([t["worst_value"] for t in theirs])


def test_asset_paths_as_the_command_lists_them(cli):
    from conftest import ASSETS
    folders = [os.path.join(ASSETS, "SimpleSkin"), os.path.join(ASSETS, "AnimatedMorphCube")]
    ours = skinframe.asset_paths(folders)
    rows = cli("eval", *folders, "--method", "skinned").splitlines()
    theirs = []
    for line in rows:
        first = line.split(" ")[0]
        if first.endswith((".gltf", ".glb")) and first not in theirs:
            theirs.append(first)
    assert len(ours) >= 3 and ours == theirs
    assert skinframe.asset_paths(ASSETS) == sorted(skinframe.asset_paths(ASSETS), key=os.fsencode)
