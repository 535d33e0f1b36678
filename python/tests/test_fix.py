"""fix against `skinframe fix`: the same bytes written, the same repairs counted, the same cases measured."""
import os

import pytest

import skinframe
from conftest import ASSETS, CESIUM_MAN, MORPH_CUBE

MORPH_STRESS = os.path.join(ASSETS, "MorphStressTest", "glTF-Binary", "MorphStressTest.glb")


def _stats(s):
    return None if s is None else {"count": s.count, "mean": s.mean, "p95": s.p95, "max": s.max}


def _same_stats(ours, theirs):
    if theirs is None or theirs["count"] == 0:
        return ours is None
    return ours is not None and ours["count"] == theirs["count"] and all(
        ours[k] == pytest.approx(theirs[k], rel=1e-12, abs=1e-12) for k in ("mean", "p95", "max"))


@pytest.mark.parametrize("asset,args,kw", [
    (MORPH_CUBE, [], {}),
    (MORPH_STRESS, [], {}),
    (CESIUM_MAN, ["--max-influences", "2", "--embed", "jacobian-fan"], dict(max_influences=2, embed="jacobian-fan")),
    (MORPH_STRESS, ["--no-morph-normals", "--embed", "jacobian-fan", "--embed-float"],
     dict(morph_normals=False, embed="jacobian-fan", embed_float=True)),
])
def test_fix_matches_command(cli, tmp_path, asset, args, kw):
    if not os.path.exists(asset):
        pytest.fail("missing staged asset %s" % asset)
    theirs_path, ours_path = str(tmp_path / "command.glb"), str(tmp_path / "module.glb")
    theirs = cli("fix", asset, "-o", theirs_path, "--json", *args)
    ours = skinframe.fix(asset, ours_path, **kw)
    with open(theirs_path, "rb") as a, open(ours_path, "rb") as b:
        assert a.read() == b.read(), "the module wrote other bytes than the command"
    assert ours.repairs == theirs["repairs"]
    assert ours.embed == theirs.get("embed")
    if "max_influences_cost" in theirs:
        t, o = theirs["max_influences_cost"], ours.max_influences_cost
        assert o.truncated_vertices == t["truncated_vertices"]
        for k in ("position_mean", "position_max", "diagonal"):
            assert getattr(o, k) == pytest.approx(t[k], rel=1e-12, abs=1e-15)
        assert _same_stats(_stats(o.normal), t["normal"])
    else:
        assert ours.max_influences_cost is None
    assert [c.case for c in ours.cases] == [c["case"] for c in theirs["cases"]]
    for o, t in zip(ours.cases, theirs["cases"]):
        assert _same_stats(_stats(o.normal_before), t["before"]["normal"])
        assert _same_stats(_stats(o.normal_after), t["after"]["normal"])
        assert _same_stats(_stats(o.tangent_before), t["before"]["tangent"])
        assert _same_stats(_stats(o.tangent_after), t["after"]["tangent"])


def test_fix_keeps_inputs_and_existing_outputs(tmp_path):
    out = tmp_path / "fixed.glb"
    out.write_bytes(b"not ours")
    with pytest.raises(FileExistsError):
        skinframe.fix(MORPH_CUBE, out, measure=False)
    assert out.read_bytes() == b"not ours"
    with open(MORPH_CUBE, "rb") as f:
        before = f.read()
    with pytest.raises(skinframe.Error) as e:
        skinframe.fix(MORPH_CUBE, MORPH_CUBE, measure=False, overwrite=True)
    with open(MORPH_CUBE, "rb") as f:
        assert f.read() == before
    assert "input" in e.value.message
    with pytest.raises(skinframe.InvalidArgument):
        skinframe.fix(MORPH_CUBE, tmp_path / "fixed.png")
    with pytest.raises(skinframe.InvalidArgument):
        skinframe.fix(MORPH_CUBE, tmp_path / "f.glb", embed="jacobian")


def test_fix_of_a_fixed_file_changes_nothing(tmp_path):
    once, twice = tmp_path / "once.glb", tmp_path / "twice.glb"
    skinframe.fix(MORPH_STRESS, once, measure=False)
    report = skinframe.fix(once, twice, measure=False)
    assert report.repairs["accessors_written"] == 0
    assert once.read_bytes() == twice.read_bytes()
