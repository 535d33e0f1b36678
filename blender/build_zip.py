"""Writes the add-on's zip: skinframe_normals/ with the skinframe Python module (built for Blender's Python,
its shared libraries inside) as skinframe_normals/skinframe/, installable through Blender's Preferences.
Usage: python3 build_zip.py MODULE_DIR OUT.zip   (MODULE_DIR: the built package folder named skinframe)"""
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main(module_dir, out):
    if not os.path.isfile(os.path.join(module_dir, "__init__.py")):
        sys.exit("build_zip: %s is not the built skinframe package" % module_dir)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        addon = os.path.join(HERE, "skinframe_normals")
        for name in sorted(os.listdir(addon)):
            if name.endswith(".py"):
                z.write(os.path.join(addon, name), "skinframe_normals/" + name)
        for name in sorted(os.listdir(module_dir)):
            path = os.path.join(module_dir, name)
            if os.path.isfile(path) and not name.endswith((".pyc", ".c")) and name != "_build.py":
                z.write(path, "skinframe_normals/skinframe/" + name)
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
