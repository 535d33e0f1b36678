"""The command (SKINFRAME_CLI, default ../../build/skinframe) and the test assets, shared by the tests."""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETS = os.path.join(ROOT, "tests", "assets", "gltf")
CESIUM_MAN = os.path.join(ASSETS, "CesiumMan", "glTF-Binary", "CesiumMan.glb")
MORPH_CUBE = os.path.join(ASSETS, "AnimatedMorphCube", "glTF-Binary", "AnimatedMorphCube.glb")


def cli_path():
    return os.environ.get("SKINFRAME_CLI", os.path.join(ROOT, "build", "skinframe"))


@pytest.fixture(scope="session")
def cli():
    """Runs the command, returning its stdout (or the parsed JSON with --json)."""
    path = cli_path()
    if not os.access(path, os.X_OK):
        if os.environ.get("CI") == "true":
            pytest.fail("the skinframe command is missing: %s" % path)
        pytest.skip("the skinframe command is not built: %s (SKINFRAME_CLI names it)" % path)

    def run(*args):
        out = subprocess.run([path] + list(args), check=True, capture_output=True, text=True).stdout
        return json.loads(out) if "--json" in args else out
    return run
