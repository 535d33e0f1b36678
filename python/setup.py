"""Builds the skinframe module: the library's shared layers (CMake, -DSF_BUILD_SHARED=ON) from the source tree
above this folder, then the cffi extension against its headers; the shared libraries are installed inside the
package, found through the extension's $ORIGIN run path.

SKINFRAME_CMAKE_BUILD_DIR names the CMake build folder to (re)use (default: build/cmake-shared here),
SKINFRAME_CFFI_DIR where the extension's generated C goes (default: build/cffi here), SKINFRAME_JOBS the
parallel jobs of the library's build."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "skinframe"))
import _build  # noqa: E402  (the builder lives beside the package's sources)

CMAKE_DIR = os.environ.get("SKINFRAME_CMAKE_BUILD_DIR") or os.path.join(HERE, "build", "cmake-shared")


class BuildWithLibrary(build_ext):
    """Builds the shared layers first, then the extension, then copies the libraries beside it."""

    def run(self):
        jobs = os.environ.get("SKINFRAME_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", CMAKE_DIR, "-DCMAKE_BUILD_TYPE=Release",
                               "-DSF_BUILD_SHARED=ON", "-DSF_BUILD_CLI=OFF", "-DSF_BUILD_TESTS=OFF",
                               "-DSF_BUILD_BENCH=OFF", "-DSF_BUILD_SCENES=OFF", "-DSF_INSTALL=OFF",
                               "-DSF_WITH_CUDA=OFF"], stdout=subprocess.DEVNULL)
        subprocess.check_call(["cmake", "--build", CMAKE_DIR, "-j", jobs], stdout=subprocess.DEVNULL)
        super().run()
        dest = os.path.join(self.build_lib if not self.inplace else HERE, "skinframe")
        for lib in _build.LIBRARIES:  # each under its SONAME (lib<name>.so.<major>), as the extension asks
            for path in glob.glob(os.path.join(CMAKE_DIR, "src", "lib%s.so.*" % lib)):
                if os.path.basename(path).count(".") == 2:
                    shutil.copy2(path, os.path.join(dest, os.path.basename(path)), follow_symlinks=True)


os.chdir(HERE)  # setuptools takes the sources relative to this folder
# (setuptools wants the sources relative to this folder)
C_FILE = os.path.relpath(os.path.join(os.environ.get("SKINFRAME_CFFI_DIR") or os.path.join(HERE, "build", "cffi"),
                                      "_skinframe.c"), HERE)
_build.emit(C_FILE)
extension = Extension("skinframe._skinframe", sources=[C_FILE, "skinframe/_pool.c"],
                      include_dirs=[os.path.join(ROOT, "include"), os.path.join(HERE, "skinframe")], library_dirs=[os.path.join(CMAKE_DIR, "src")],
                      libraries=_build.LIBRARIES + ["pthread"],
                      extra_compile_args=["-std=c11", "-Wall", "-Wno-unused-function"],
                      extra_link_args=["-Wl,-rpath,$ORIGIN"])
setup(ext_modules=[extension], cmdclass={"build_ext": BuildWithLibrary})
