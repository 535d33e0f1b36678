"""The README's Python example runs as printed and prints `skinframe eval`'s table."""
import contextlib
import io
import os
import re

from conftest import ROOT


def test_readme_example_prints_the_eval_table(cli):
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text[text.index("## Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 11
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
        theirs = cli("eval", "tests/assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb")
    finally:
        os.chdir(cwd)
    strip = lambda line: line.split("; evaluated in")[0]
    ours = [strip(x) for x in out.getvalue().splitlines()]
    table = [strip(x) for x in theirs.splitlines() if x.startswith("  ")]
    assert table and all(line in ours for line in table)
    assert any(line.startswith("jacobian-fan") and "worst vertex" in line for line in ours)
