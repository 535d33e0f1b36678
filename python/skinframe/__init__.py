"""skinframe: normals and tangents of skinned and morphed meshes, every method and the reference, measured.

Numpy arrays in and out over the C library (its shared layers, bound through cffi against the real headers):
Mesh.from_arrays / load build meshes and assets, frames gives one method's normals and tangents, evaluate
measures every method against the reference at one pose, evaluate_frames over many, evaluate_asset is
`skinframe eval` (clips, engine presets, truncation), fix is `skinframe fix` (a repaired glTF written).
Failures raise skinframe.Error subclasses carrying the library's message and field. The library
runs without the GIL; threads=N runs its loops on N threads."""
from ._skinframe import ffi as _ffi, lib as _lib
from .asset import (Asset, AssetReport, Clip, ClipMethod, Problem, Variant, Where, asset_paths, engines,
                    evaluate_asset, load)
from .errors import (CountMismatch, Error, FileError, GltfError, IndexRange, InvalidArgument, JointIndex,
                     MissingStream, NegativeWeight, NotFinite, OutOfMemory, StrideError, TooLarge, UnknownName,
                     Unsupported, WeightSum, ZeroWeights)
from .evaluate import (AngleStats, Evaluator, FrameStats, MethodResult, WorstVertex, evaluate, evaluate_frames,
                       frames)
from .fix import FixCase, FixReport, Truncation, fix
from .heatmap import heatmap_colors
from .mesh import Mesh, Pose
from .options import DEFAULT_METHODS, METHODS

__version__ = _ffi.string(_lib.sf_version_string()).decode()
library_version = __version__

__all__ = ["Asset", "AssetReport", "AngleStats", "Clip", "ClipMethod", "CountMismatch", "DEFAULT_METHODS",
           "Error", "Evaluator", "FileError", "FrameStats", "GltfError", "IndexRange", "InvalidArgument",
           "JointIndex", "METHODS", "Mesh", "MethodResult", "MissingStream", "NegativeWeight", "NotFinite",
           "OutOfMemory", "Pose", "Problem", "StrideError", "TooLarge", "UnknownName", "Unsupported", "Variant",
           "WeightSum", "Where", "WorstVertex", "ZeroWeights", "asset_paths", "engines", "evaluate", "evaluate_asset",
           "evaluate_frames", "fix", "FixCase", "FixReport", "Truncation", "frames", "heatmap_colors", "load"]
