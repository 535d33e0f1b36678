"""One method's frames, an evaluation of every method against the reference, and statistics over frames."""
from dataclasses import dataclass, asdict
from typing import Optional

import numpy as np

from ._skinframe import ffi, lib
from .errors import raise_for
from .mesh import as_pose, ptr
from .options import METHODS, frames_opts, method_ids


@dataclass(frozen=True)
class AngleStats:
    """Angles in degrees: count, mean, rms, p50, p95, max, and the shares over 1, 5 and 45 degrees."""
    count: int
    mean: float
    rms: float
    p50: float
    p95: float
    max: float
    over_1: float
    over_5: float
    over_45: float

    @classmethod
    def from_c(cls, s):
        """None when nothing was measured (count 0), as the command's JSON writes null."""
        if s.count == 0:
            return None
        return cls(int(s.count), s.mean, s.rms, s.p50, s.p95, s.max, s.over_1, s.over_5, s.over_45)

    def to_dict(self):
        return asdict(self)


@dataclass
class MethodResult:
    """One method against the reference at one pose; normal_deg / tangent_deg per vertex when asked for."""
    method: str
    normal: Optional[AngleStats]
    tangent: Optional[AngleStats]
    handedness_mismatches: int
    degenerate_normals: int
    degenerate_tangents: int
    worst_normal_vertex: int
    worst_tangent_vertex: int
    normal_deg: Optional[np.ndarray] = None
    tangent_deg: Optional[np.ndarray] = None
    unsupported: Optional[str] = None


def _workspace(mesh, methods_mask):
    wopts = ffi.new("sf_workspace_opts*")
    wopts.methods = methods_mask
    out = ffi.new("sf_workspace**")
    err = ffi.new("sf_error*")
    raise_for(lib.sf_workspace_create(mesh._topo, wopts, out, err), err)
    return ffi.gc(out[0], lib.sf_workspace_destroy)


def frames(mesh, pose=None, method="skinned", morph_directions="deltas", weighting="area", weld="none",
           tangents="uv", reference="rebuilt", jacobian_cap=0.0):
    """One method's final positions (n, 3), normals (n, 3) and tangents (n, 4) at pose (None: rest),
    written by the library straight into the returned numpy arrays. The GIL is released while it runs."""
    (m,) = method_ids([method])
    p = as_pose(mesh, pose)
    opts = frames_opts(morph_directions, weighting, weld, tangents, reference, jacobian_cap)
    ws = _workspace(mesh, 1 << m)
    n = mesh.vertex_count
    pos, nrm, tan = np.empty((n, 3), np.float32), np.empty((n, 3), np.float32), np.empty((n, 4), np.float32)
    out = ffi.new("sf_frames_out*", [ptr("float*", pos), ptr("float*", nrm), ptr("float*", tan)])
    err = ffi.new("sf_error*")
    raise_for(lib.sf_frames_compute(mesh._topo, p._c(mesh), m, opts, ws, out, err), err)
    return pos, nrm, tan


class Evaluator:
    """Every asked-for method measured against the reference, pose after pose, with one evaluation and one
    workspace (allocated once). methods: names (None: the default set); angles=True keeps the per-vertex
    angles; the reference's options (weighting, weld, tangents, reference) and the methods' (morph_directions,
    jacobian_cap) as the command names them. Not to be shared by threads (the workspace is one thread's)."""

    def __init__(self, mesh, methods=None, angles=False, morph_directions="deltas", weighting="area", weld="none",
                 tangents="uv", reference="rebuilt", jacobian_cap=0.0):
        self.mesh = mesh
        ids = method_ids(methods)
        self.methods = [METHODS[m] for m in ids]
        self._ids = ffi.new("sf_method[]", ids)
        desc = ffi.new("sf_eval_desc*")
        desc.methods = self._ids
        desc.method_count = len(ids)
        desc.method_opts = frames_opts(morph_directions, jacobian_cap=jacobian_cap)[0]
        desc.reference_opts = frames_opts(morph_directions, weighting, weld, tangents, reference, jacobian_cap)[0]
        desc.flags = lib.SF_EVAL_KEEP_ANGLES if angles else 0
        self.angles = angles
        out = ffi.new("sf_evaluation**")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_evaluation_create(mesh._topo, desc, ffi.NULL, out, err), err)
        self._ev = ffi.gc(out[0], lib.sf_evaluation_destroy)
        self._ws = _workspace(mesh, lib.sf_evaluation_methods_mask(self._ev))

    def run(self, pose=None):
        """Evaluates pose (None: rest): {method name: MethodResult}, in the order asked for."""
        p = as_pose(self.mesh, pose)
        err = ffi.new("sf_error*")
        raise_for(lib.sf_evaluation_run(self._ev, p._c(self.mesh), self._ws, ffi.NULL, err), err)
        return self._rows()

    def _rows(self):
        res = lib.sf_evaluation_results(self._ev)
        n = self.mesh.vertex_count
        rows = {}
        for k in range(res.row_count):
            r = res.rows[k]
            name = METHODS[r.method]
            if r.status != lib.SF_OK:
                rows[name] = MethodResult(name, None, None, 0, 0, 0, 0, 0,
                                          unsupported=ffi.string(r.detail.message).decode())
                continue
            e = r.errors
            tangent = res.tangent_frame != 0
            mr = MethodResult(name, AngleStats.from_c(e.normal), AngleStats.from_c(e.tangent),
                              int(e.handedness_mismatches), int(e.degenerate_normals), int(e.degenerate_tangents),
                              int(e.worst_normal_vertex), int(e.worst_tangent_vertex))
            if self.angles and r.normal_deg != ffi.NULL:
                mr.normal_deg = np.frombuffer(ffi.buffer(r.normal_deg, 4 * n), np.float32).copy()
                if tangent and r.tangent_deg != ffi.NULL:
                    mr.tangent_deg = np.frombuffer(ffi.buffer(r.tangent_deg, 4 * n), np.float32).copy()
            rows[name] = mr
        return rows


def evaluate(mesh, pose=None, methods=None, angles=False, **options):
    """Every method of `methods` (None: the default set) at pose against the reference: {name: MethodResult}
    with the statistics (and, with angles=True, the per-vertex angles in degrees). options: morph_directions,
    weighting, weld, tangents, reference, jacobian_cap, as the command names them."""
    return Evaluator(mesh, methods, angles, **options).run(pose)


@dataclass
class WorstVertex:
    """The largest angle over the frames: angle in degrees, frame index, vertex index."""
    angle_deg: float
    frame: int
    vertex: int


@dataclass
class FrameStats:
    """One method over many frames (the statistics of `skinframe eval`, streamed: percentiles from its
    histogram within 0.001 degree): normal, tangent, the rest pose's, the worst frame and vertices."""
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
    frame_normal_mean: np.ndarray  # per frame: the mean normal error
    vertex_max_normal_deg: Optional[np.ndarray] = None  # per vertex: the largest normal error over the frames
    vertex_max_tangent_deg: Optional[np.ndarray] = None  # per vertex: the largest tangent error (with UVs)


class _Stats:
    """sf_method_stats[SF_METHOD_COUNT] for `ids`, freed with the object."""

    def __init__(self, ids):
        self.c = ffi.new("sf_method_stats[]", lib.SF_METHOD_COUNT)
        self._ids = ffi.new("sf_method[]", ids)
        err = ffi.new("sf_error*")
        raise_for(lib.sf_method_stats_create(self.c, self._ids, len(ids), err), err)

    def __del__(self):
        lib.sf_method_stats_free(self.c)


def evaluate_frames(mesh, poses, methods=None, vertex_max=False, **options):
    """Every method over the frames of `poses` (an iterable of Pose, (bones, weights) or None), beside the rest
    pose's error, with the statistics `skinframe eval` prints: {name: FrameStats}. Memory does not grow with
    the frames (the angles stream into histograms). vertex_max=True adds each vertex's largest normal error
    over the frames (FrameStats.vertex_max_normal_deg) and, where the mesh has a tangent frame (UVs), its
    largest tangent error (FrameStats.vertex_max_tangent_deg)."""
    ev = Evaluator(mesh, methods, angles=True, **options)
    ids = method_ids(methods)
    st = _Stats(ids)
    err = ffi.new("sf_error*")
    tangent = mesh.tangent_frame
    n = mesh.vertex_count

    def add_run(frame, rest):
        res = lib.sf_evaluation_results(ev._ev)
        for k in range(res.row_count):
            r = res.rows[k]
            m = st.c + r.method
            if r.status != lib.SF_OK:
                continue
            m.handedness += r.errors.handedness_mismatches
            tdeg = r.tangent_deg if tangent else ffi.NULL
            raise_for(lib.sf_method_stats_add(m, r.normal_deg, tdeg, n, 0, frame, not rest, err), err)
            if vertex_max and not rest:
                angles = np.frombuffer(ffi.buffer(r.normal_deg, 4 * n), np.float32)
                np.maximum(vmax[r.method], angles, out=vmax[r.method])
                if tdeg != ffi.NULL:
                    angles = np.frombuffer(ffi.buffer(tdeg, 4 * n), np.float32)
                    np.maximum(tmax[r.method], angles, out=tmax[r.method])

    for m in ids:
        lib.sf_method_stats_clip_start(st.c + m)
    ev.run(None)
    add_run(0, True)
    for m in ids:
        raise_for(lib.sf_method_stats_clip_finish(st.c + m, True, err), err)
        lib.sf_method_stats_clip_start(st.c + m)
    means = {m: [] for m in ids}
    vmax = {m: np.zeros(n, np.float32) for m in ids}
    tmax = {m: np.zeros(n, np.float32) for m in ids}
    for f, pose in enumerate(poses):
        ev.run(pose)
        for m in ids:
            lib.sf_method_stats_frame_start(st.c + m)
        add_run(f, False)
        for m in ids:
            s = st.c[m]
            means[m].append(s.frame_sn / s.frame_cn if s.frame_cn else 0.0)
            lib.sf_method_stats_frame_end(st.c + m, f)
    out = {}
    for m in ids:
        raise_for(lib.sf_method_stats_clip_finish(st.c + m, False, err), err)
        out[METHODS[m]] = _frame_stats(METHODS[m], st.c[m], np.array(means[m]))
        if vertex_max:
            out[METHODS[m]].vertex_max_normal_deg = vmax[m]
            if tangent:
                out[METHODS[m]].vertex_max_tangent_deg = tmax[m]
    return out


def _frame_stats(name, s, means):
    normal = AngleStats.from_c(s.normal)
    tangent = AngleStats.from_c(s.tangent)
    return FrameStats(name, normal, tangent, AngleStats.from_c(s.rest_normal), AngleStats.from_c(s.rest_tangent),
                      int(s.handedness), int(s.worst_frame), float(s.worst_frame_mean),
                      WorstVertex(s.worst_n, int(s.worst_n_frame), int(s.worst_n_vertex)) if normal else None,
                      WorstVertex(s.worst_t, int(s.worst_t_frame), int(s.worst_t_vertex)) if tangent else None,
                      means)
