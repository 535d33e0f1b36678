"""The cffi declarations of skinframe._skinframe (_cdef.h), compiled against the real headers by setup.py."""
import os

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = ["skinframe_eval", "skinframe_gltf", "skinframe_render", "skinframe_files", "skinframe"]
SOURCE = ("#include <skinframe.h>\n#include <skinframe_gltf.h>\n#include <skinframe_eval.h>\n"
          "#include <skinframe_render.h>\n#include <skinframe_fix.h>\n#include \"_pool.h\"\n")


def emit(c_file):
    """Writes the extension's C source (cffi's API mode: the declarations checked by the compiler)."""
    ffi = cffi.FFI()
    with open(os.path.join(HERE, "_cdef.h")) as f:
        ffi.cdef(f.read())
    ffi.set_source("skinframe._skinframe", SOURCE)
    os.makedirs(os.path.dirname(c_file), exist_ok=True)
    ffi.emit_c_code(c_file)
