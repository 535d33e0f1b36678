"""`pip install ./python` offline, as on a fresh machine: pip takes no index and no build isolation (setuptools
and cffi are the system's), installs into a virtual environment that sees the system's packages, and the installed
module, imported from there with no path into the source tree, evaluates CesiumMan as `skinframe eval` does.

SKINFRAME_CMAKE_BUILD_DIR (set by run.sh) lets the install reuse the shared layers the test run built; without it
pip's build compiles them afresh."""
import json
import os
import subprocess
import sys

import pytest

from conftest import CESIUM_MAN, ROOT

# Runs inside the installed environment: where the module was imported from, the asset's vertex count through
# load, and one clip's statistics through evaluate_asset.
PROBE = """
import json, sys, skinframe
asset = skinframe.load(sys.argv[1])
report = skinframe.evaluate_asset(sys.argv[1], threads=2)
rows = {m.method: [m.normal.mean, m.normal.max, m.tangent.mean if m.tangent else None]
        for m in report.clips[0].methods}
print(json.dumps({"file": skinframe.__file__, "vertices": asset.arrays()["positions"].shape[0], "rows": rows}))
"""


def pip_or_skip():
    """The pytest interpreter's pip, or a skip (a failure under CI=true) naming the package that gives it."""
    found = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if found.returncode != 0:
        why = "no pip for %s (Debian: python3-pip)" % sys.executable
        if os.environ.get("CI") == "true":
            pytest.fail(why + "; CI=true makes it a failure")
        pytest.skip(why)


def clean_env(extra):
    """The environment without Python's search-path variables, the user's pip configuration or site folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def test_offline_pip_install_evaluates_cesium_man(cli, tmp_path):
    pip_or_skip()
    venv = tmp_path / "venv"
    # --without-pip: the venv needs no ensurepip (Debian's python3-venv); the system's pip runs inside it.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    build = {"SKINFRAME_CFFI_DIR": str(tmp_path / "cffi"), "SKINFRAME_JOBS": os.environ.get("SKINFRAME_JOBS", "2")}
    if os.environ.get("SKINFRAME_CMAKE_BUILD_DIR"):
        build["SKINFRAME_CMAKE_BUILD_DIR"] = os.environ["SKINFRAME_CMAKE_BUILD_DIR"]
    installed = subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                                os.path.join(ROOT, "python")], cwd=tmp_path, env=clean_env(build),
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "Successfully installed skinframe" in installed.stdout

    probe = subprocess.run([python, "-c", PROBE, CESIUM_MAN], cwd=tmp_path, env=clean_env({}),
                           capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    ours = json.loads(probe.stdout)
    site = os.path.realpath(str(venv))
    assert os.path.realpath(ours["file"]).startswith(site + os.sep), ours["file"]
    # not the source tree's package (the venv may itself lie in the build folder under the source tree)
    assert not os.path.realpath(ours["file"]).startswith(os.path.realpath(os.path.join(ROOT, "python")) + os.sep)

    theirs = cli("eval", CESIUM_MAN, "--json")
    assert ours["vertices"] == theirs["vertices_per_frame"]
    methods = theirs["animations"][0]["methods"]
    assert list(ours["rows"]) == [m["method"] for m in methods]
    for m in methods:
        normal_mean, normal_max, tangent_mean = ours["rows"][m["method"]]
        assert normal_mean == pytest.approx(m["normal"]["mean"], rel=1e-12), m["method"]
        assert normal_max == pytest.approx(m["normal"]["max"], rel=1e-12), m["method"]
        assert tangent_mean == pytest.approx(m["tangent"]["mean"], rel=1e-12), m["method"]
    assert any(m["normal"]["mean"] > 1.0 for m in methods)
