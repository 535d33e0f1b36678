"""Type hints of the skinframe module (see the docstrings in the package for what each does)."""
from dataclasses import dataclass
from os import PathLike
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
library_version: str
METHODS: Tuple[str, ...]
DEFAULT_METHODS: Tuple[str, ...]

ArrayLike = npt.ArrayLike
Methods = Union[None, str, Sequence[str]]
Target = Union[ArrayLike, Dict[str, Union[ArrayLike, str]]]


class Error(Exception):
    code: str
    message: str
    field: str
    index: Optional[int]
    def __init__(self, message: str, field: str = ..., index: Optional[int] = ...) -> None: ...

class InvalidArgument(Error, ValueError): ...
class OutOfMemory(Error, MemoryError): ...
class NotFinite(Error, ValueError): ...
class IndexRange(Error, ValueError): ...
class JointIndex(Error, ValueError): ...
class CountMismatch(Error, ValueError): ...
class NegativeWeight(Error, ValueError): ...
class ZeroWeights(Error, ValueError): ...
class WeightSum(Error, ValueError): ...
class StrideError(Error, ValueError): ...
class MissingStream(Error, ValueError): ...
class UnknownName(Error, ValueError): ...
class GltfError(Error, ValueError): ...
class FileError(Error, OSError): ...
class Unsupported(Error): ...
class TooLarge(Error, ValueError): ...


class Mesh:
    vertex_count: int
    triangle_count: int
    bone_count: int
    target_count: int
    tangent_frame: bool
    threads: int
    source_vertex: np.ndarray  # only for meshes from Asset.mesh: the file's vertex of each vertex
    @classmethod
    def from_arrays(cls, positions: ArrayLike, indices: ArrayLike, normals: Optional[ArrayLike] = ...,
                    tangents: Optional[ArrayLike] = ..., uvs: Optional[ArrayLike] = ...,
                    joints: Optional[ArrayLike] = ..., weights: Optional[ArrayLike] = ...,
                    targets: Optional[Sequence[Target]] = ..., bone_count: Optional[int] = ...,
                    uv_convention: str = ..., zero_weights: str = ..., threads: int = ...,
                    skip_gradients: bool = ...) -> "Mesh": ...
    def stats(self) -> Dict[str, int]: ...
    def rest_pose(self) -> "Pose": ...


class Pose:
    bones: np.ndarray
    morph_weights: Optional[np.ndarray]
    def __init__(self, bones: Optional[ArrayLike] = ..., morph_weights: Optional[ArrayLike] = ...) -> None: ...


PoseLike = Union[None, Pose, Tuple[Optional[ArrayLike], Optional[ArrayLike]], ArrayLike]


@dataclass(frozen=True)
class AngleStats:
    count: int
    mean: float
    rms: float
    p50: float
    p95: float
    max: float
    over_1: float
    over_5: float
    over_45: float
    def to_dict(self) -> Dict[str, float]: ...


@dataclass
class MethodResult:
    method: str
    normal: Optional[AngleStats]
    tangent: Optional[AngleStats]
    handedness_mismatches: int
    degenerate_normals: int
    degenerate_tangents: int
    worst_normal_vertex: int
    worst_tangent_vertex: int
    normal_deg: Optional[np.ndarray]
    tangent_deg: Optional[np.ndarray]
    unsupported: Optional[str]


@dataclass
class WorstVertex:
    angle_deg: float
    frame: int
    vertex: int


@dataclass
class FrameStats:
    method: str
    normal: Optional[AngleStats]
    tangent: Optional[AngleStats]
    rest_normal: Optional[AngleStats]
    rest_tangent: Optional[AngleStats]
    handedness: int
    worst_frame: int
    worst_frame_mean: float
    worst_normal: Optional[WorstVertex]
    worst_tangent: Optional[WorstVertex]
    frame_normal_mean: np.ndarray
    vertex_max_normal_deg: Optional[np.ndarray]
    vertex_max_tangent_deg: Optional[np.ndarray]


def frames(mesh: Mesh, pose: PoseLike = ..., method: str = ..., morph_directions: str = ..., weighting: str = ...,
           weld: str = ..., tangents: str = ..., reference: str = ...,
           jacobian_cap: float = ...) -> Tuple[np.ndarray, np.ndarray, np.ndarray]: ...


class Evaluator:
    mesh: Mesh
    methods: List[str]
    angles: bool
    def __init__(self, mesh: Mesh, methods: Methods = ..., angles: bool = ..., morph_directions: str = ...,
                 weighting: str = ..., weld: str = ..., tangents: str = ..., reference: str = ...,
                 jacobian_cap: float = ...) -> None: ...
    def run(self, pose: PoseLike = ...) -> Dict[str, MethodResult]: ...


def evaluate(mesh: Mesh, pose: PoseLike = ..., methods: Methods = ..., angles: bool = ...,
             **options: Union[str, float]) -> Dict[str, MethodResult]: ...
def evaluate_frames(mesh: Mesh, poses: Iterable[PoseLike], methods: Methods = ..., vertex_max: bool = ...,
                    **options: Union[str, float]) -> Dict[str, FrameStats]: ...
def heatmap_colors(angles_deg: ArrayLike) -> np.ndarray: ...


class Asset:
    path: str
    animations: List[str]
    durations: List[float]
    instance_count: int
    threads: int
    def primitives(self, instance: int) -> List[int]: ...
    def mesh(self, instance: int = ..., primitive: Optional[int] = ..., threads: Optional[int] = ...) -> Mesh: ...
    def arrays(self, instance: int = ..., primitive: Optional[int] = ...) -> Dict[str, object]: ...
    def pose(self, instance: int = ..., animation: Union[None, int, str] = ..., time_s: float = ...) -> Pose: ...


def load(path: Union[str, PathLike], tangents: str = ..., texcoord: int = ..., threads: int = ...) -> Asset: ...
def asset_paths(paths: Union[str, PathLike, Sequence[Union[str, PathLike]]],
                on_skip: Optional[Callable[[str, str], object]] = ...) -> List[str]: ...
def engines() -> List[str]: ...


@dataclass
class Where:
    node: int
    mesh: int
    primitive: int
    vertex: int
    flat_split: bool


@dataclass
class ClipMethod:
    method: str
    skipped: Optional[str]
    normal: Optional[AngleStats]
    tangent: Optional[AngleStats]
    rest_normal: Optional[AngleStats]
    rest_tangent: Optional[AngleStats]
    handedness: int
    worst_frame: int
    worst_frame_time: float
    worst_frame_mean: float
    worst_normal: Optional[WorstVertex]
    worst_normal_where: Optional[Where]
    worst_tangent: Optional[WorstVertex]
    worst_tangent_where: Optional[Where]


@dataclass
class Variant:
    label: str
    engine: Optional[str]
    max_influences: int
    max_morph_targets: int
    truncated: int
    methods: List[ClipMethod]
    position_mean: float
    position_max: float


@dataclass
class Clip:
    index: Optional[int]
    name: str
    duration_s: float
    frames: int
    fps: float
    vertices: int
    tangent_vertices: int
    seconds: float
    methods: List[ClipMethod]
    variants: List[Variant]
    frame_times: Optional[np.ndarray]


@dataclass
class Problem:
    cause: str
    description: str
    count: int
    worst_mesh: int
    worst_primitive: int
    worst_index: int
    worst_value: float


@dataclass
class AssetReport:
    path: str
    reference: Dict[str, str]
    morph_directions: str
    instances: int
    units: int
    vertices: int
    tangent_vertices: int
    influences: Dict[str, int]
    clips: List[Clip]
    problems: List[Problem]
    def table(self, clip: int = ...) -> str: ...
    def text(self) -> str: ...


def evaluate_asset(asset: Union[str, PathLike, Asset], methods: Methods = ..., animation: Union[str, int] = ...,
                   fps: float = ..., max_frames: int = ..., morph_directions: str = ..., weighting: str = ...,
                   weld: str = ..., tangents: str = ..., reference: str = ..., jacobian_cap: float = ...,
                   max_influences: int = ..., max_morph_targets: int = ..., engine: Optional[str] = ...,
                   influence_variants: bool = ..., threads: int = ...,
                   on_frame: Optional[Callable[[int, int, float], object]] = ...) -> AssetReport: ...


@dataclass
class FixCase:
    case: str
    normal_before: Optional[AngleStats]
    normal_after: Optional[AngleStats]
    tangent_before: Optional[AngleStats]
    tangent_after: Optional[AngleStats]


@dataclass
class Truncation:
    max_influences: int
    truncated_vertices: int
    position_mean: float
    position_max: float
    diagonal: float
    normal: Optional[AngleStats]


@dataclass
class FixReport:
    file: str
    output: str
    repairs: Dict[str, int]
    embed: Optional[Dict[str, Union[str, int]]]
    max_influences_cost: Optional[Truncation]
    cases: List[FixCase]


def fix(input: Union[str, PathLike], output: Union[str, PathLike], morph_normals: bool = ..., weights: bool = ...,
        normals: bool = ..., tangents: bool = ..., max_influences: int = ..., embed: Optional[str] = ...,
        embed_float: bool = ..., measure: bool = ..., fps: float = ..., overwrite: bool = ...,
        threads: int = ...) -> FixReport: ...
