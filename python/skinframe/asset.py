"""glTF assets: load, their meshes and poses, and the asset evaluation of `skinframe eval` (every frame of
each clip, every method against the reference, the rest pose beside it, engine presets and truncations)."""
import os
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from ._skinframe import ffi, lib
from .errors import InvalidArgument, UnknownName, raise_for
from .evaluate import AngleStats, WorstVertex
from .mesh import Mesh, Pose
from .options import METHODS, TANGENTS, frames_opts, method_ids, pick

NONE = int(ffi.cast("size_t", -1))


def _text(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


class Asset:
    """A loaded glTF 2.0 file (.gltf or .glb). animations: their names ("" when unnamed)."""

    def __init__(self, path, tangents="mikktspace", texcoord=0, threads=1):
        self.path = str(path)
        self.threads = int(threads)
        self._env = ffi.new("sf_env*", lib.sfpy_env(self.threads))
        opts = ffi.new("sf_gltf_opts*")
        opts.texcoord = int(texcoord)
        opts.generated_tangents = pick(TANGENTS, tangents, "tangents")
        out = ffi.new("sf_gltf**")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_gltf_load_file(self.path.encode(), opts, self._env, out, err), err)
        self._g = ffi.gc(out[0], lib.sf_gltf_destroy)
        g = self._g
        self.animations = [_text(g.animations[a].name) for a in range(g.animation_count)]
        self.durations = [g.animations[a].end_s for a in range(g.animation_count)]
        self.instance_count = int(g.instance_count)

    def primitives(self, instance):
        """The primitive indices (into the file's flattened primitive list) an instance draws."""
        m = self._g.meshes[self._g.instances[instance].mesh]
        return list(range(m.first_primitive, m.first_primitive + m.primitive_count))

    def mesh(self, instance=0, primitive=None, threads=None):
        """The Mesh of one primitive of a scene instance (its first primitive by default)."""
        if not 0 <= instance < self.instance_count:
            raise InvalidArgument("instance %d: the scene has %d" % (instance, self.instance_count), "instance")
        prims = self.primitives(instance)
        primitive = prims[0] if primitive is None else primitive
        if primitive not in prims:
            raise InvalidArgument("primitive %d is not drawn by instance %d" % (primitive, instance), "primitive")
        desc = ffi.new("sf_mesh_desc*")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_gltf_instance_mesh(self._g, instance, primitive, desc, err), err)
        mesh = Mesh(desc, [self], threads=self.threads if threads is None else threads)
        pr = self._g.primitives[primitive]
        mesh.source_vertex = np.frombuffer(ffi.buffer(pr.source_vertex, 4 * pr.mesh.vertex_count), np.uint32).copy()
        return mesh

    def arrays(self, instance=0, primitive=None):
        """The rest mesh of one primitive of an instance as numpy arrays (copies), the keywords of
        Mesh.from_arrays: positions, indices, normals, tangents, uvs, joints, weights, bone_count, targets."""
        prims = self.primitives(instance)
        primitive = prims[0] if primitive is None else primitive
        d = ffi.new("sf_mesh_desc*")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_gltf_instance_mesh(self._g, instance, primitive, d, err), err)
        n, t = d.vertex_count, d.triangle_count

        def floats(p, cols, stride=0):
            if p == ffi.NULL:
                return None
            if stride and stride != 4 * cols:
                raise InvalidArgument("strided stream", "mesh")
            return np.frombuffer(ffi.buffer(p, 4 * cols * n), np.float32).reshape(n, cols).copy()

        out = {"positions": floats(d.positions.data, 3, d.positions.stride),
               "indices": np.frombuffer(ffi.buffer(d.indices, 12 * t), np.uint32).reshape(t, 3).copy(),
               "normals": floats(d.normals.data, 3, d.normals.stride),
               "tangents": floats(d.tangents.data, 4, d.tangents.stride),
               "uvs": floats(d.uvs.data, 2, d.uvs.stride), "targets": []}
        k = d.influence_count
        if k:
            out["joints"] = np.frombuffer(ffi.buffer(d.joints, 4 * k * n), np.uint32).reshape(n, k).copy()
            out["weights"] = np.frombuffer(ffi.buffer(d.weights, 4 * k * n), np.float32).reshape(n, k).copy()
            out["bone_count"] = int(d.bone_count)
        for i in range(d.target_count):
            td = d.targets[i]
            target = {"name": _text(td.name)}
            for key, ptr_ in (("positions", td.position_deltas), ("normals", td.normal_deltas),
                              ("tangents", td.tangent_deltas)):
                if ptr_ == ffi.NULL:
                    continue
                if td.sparse_indices != ffi.NULL:  # sparse: scattered into dense deltas
                    c = td.sparse_count
                    dense = np.zeros((n, 3), np.float32)
                    idx = np.frombuffer(ffi.buffer(td.sparse_indices, 4 * c), np.uint32)
                    dense[idx] = np.frombuffer(ffi.buffer(ptr_, 12 * c), np.float32).reshape(c, 3)
                    target[key] = dense
                else:
                    target[key] = np.frombuffer(ffi.buffer(ptr_, 12 * n), np.float32).reshape(n, 3).copy()
            out["targets"].append(target)
        return out

    def pose(self, instance=0, animation=None, time_s=0.0):
        """The Pose of an instance at time_s of animation (index or name; None: the rest pose, node transforms
        as authored)."""
        a = self._animation_index(animation)
        out = ffi.new("sf_gltf_pose**")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_gltf_pose_create(self._g, self._env, out, err), err)
        gp = ffi.gc(out[0], lib.sf_gltf_pose_destroy)
        raise_for(lib.sf_gltf_pose_sample(gp, NONE if a is None else a, float(time_s), err), err)
        inst = self._g.instances[instance]
        bones = np.zeros((inst.bone_count, 12), np.float32)
        targets = self._g.meshes[inst.mesh].target_count
        weights = np.zeros(max(targets, 1), np.float32)
        raise_for(lib.sf_gltf_pose_instance(gp, instance, ffi.cast("float*", ffi.from_buffer(bones)),
                                            ffi.cast("float*", ffi.from_buffer(weights)), ffi.NULL, err), err)
        return Pose(bones, weights[:targets])

    def _animation_index(self, animation):
        if animation is None:
            return None
        if isinstance(animation, str):
            if animation in self.animations:
                return self.animations.index(animation)
            if animation.lstrip("#").isdigit():
                animation = int(animation.lstrip("#"))
            else:
                raise UnknownName("animation: no animation '%s' in %s" % (animation, self.path), "animation")
        if not 0 <= animation < len(self.animations):
            raise UnknownName("animation: no animation %d (the file has %d)" % (animation, len(self.animations)),
                              "animation")
        return int(animation)


def load(path, tangents="mikktspace", texcoord=0, threads=1):
    """Loads a .gltf or .glb file. tangents: how a primitive without TANGENT but with UVs gets one
    ("mikktspace" as the glTF specification recommends and `skinframe eval` does, or "uv")."""
    return Asset(path, tangents, texcoord, threads)


def asset_paths(paths, on_skip=None):
    """Every .gltf/.glb under each folder of paths (recursively, sorted by path in byte order, links to folders
    not followed) and every other path as given, in argument order: the files `skinframe eval DIR` evaluates.
    on_skip(folder, message) is called for a folder that cannot be read (it is left out)."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    encoded = [ffi.new("char[]", os.fsencode(p)) for p in paths]
    argv = ffi.new("const char*[]", encoded)
    skip = ffi.NULL
    if on_skip is not None:
        @ffi.callback("void(void*, const char*, const sf_error*)")
        def skip(user, folder, why):
            on_skip(os.fsdecode(ffi.string(folder)), _text(why.message))
    out = ffi.new("sf_asset_paths*")
    err = ffi.new("sf_error*")
    raise_for(lib.sf_asset_paths_collect(argv, len(encoded), skip, ffi.NULL, out, err), err)
    try:
        return [os.fsdecode(ffi.string(out.items[i])) for i in range(out.count)]
    finally:
        lib.sf_asset_paths_free(out)


def engines():
    """The engine presets' names: three.js, babylon.js, godot, bevy, filament, unity."""
    return [_text(lib.sf_engine_at(i).name) for i in range(lib.sf_engine_count())]


@dataclass
class Where:
    """A vertex of the file: the node drawing it, mesh, primitive, and the vertex index as in the file."""
    node: int
    mesh: int
    primitive: int
    vertex: int
    flat_split: bool


@dataclass
class ClipMethod:
    """One method over a clip: the statistics the command's table prints."""
    method: str
    skipped: Optional[str]
    normal: Optional[AngleStats] = None
    tangent: Optional[AngleStats] = None
    rest_normal: Optional[AngleStats] = None
    rest_tangent: Optional[AngleStats] = None
    handedness: int = 0
    worst_frame: int = 0
    worst_frame_time: float = 0.0
    worst_frame_mean: float = 0.0
    worst_normal: Optional[WorstVertex] = None
    worst_normal_where: Optional[Where] = None
    worst_tangent: Optional[WorstVertex] = None
    worst_tangent_where: Optional[Where] = None


@dataclass
class Variant:
    """A deformation runtimes apply (an engine preset or a truncation) measured against the full one."""
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
    """One animation (index None: the rest pose) evaluated: frames, methods, variants."""
    index: Optional[int]
    name: str
    duration_s: float
    frames: int
    fps: float
    vertices: int
    tangent_vertices: int
    seconds: float
    methods: List[ClipMethod]
    variants: List[Variant] = field(default_factory=list)
    frame_times: Optional[np.ndarray] = None


@dataclass
class Problem:
    """A data problem of the authored data, summed over the primitives evaluated: its cause (e.g.
    "weights-not-one"), description, count, and the worst instance (mesh, primitive, index, value)."""
    cause: str
    description: str
    count: int
    worst_mesh: int
    worst_primitive: int
    worst_index: int
    worst_value: float


@dataclass
class AssetReport:
    """The outcome of evaluate_asset: the settings, the counts, one Clip per animation."""
    path: str
    reference: dict
    morph_directions: str
    instances: int
    units: int
    vertices: int
    tangent_vertices: int
    influences: dict
    clips: List[Clip]
    problems: List[Problem] = field(default_factory=list)

    def table(self, clip=0):
        """The clip's table and worst vertices as `skinframe eval` prints them."""
        from .report import clip_table
        return clip_table(self.clips[clip])

    def text(self):
        """The report as `skinframe eval` prints it, without the timings and the data problems."""
        from .report import report_text
        return report_text(self)


def _where(g, units, unit, vertex):
    u = units[unit]
    pr = g.primitives[u.primitive]
    return Where(int(g.instances[u.instance].node), int(pr.mesh_index), int(pr.primitive_index),
                 int(pr.source_vertex[vertex]), bool(pr.flat_normals))


def _clip_methods(g, units, stats, ids, plan):
    out = []
    for m in ids:
        s = stats[m]
        if s.skipped:
            out.append(ClipMethod(METHODS[m], _text(s.reason)))
            continue
        normal, tangent = AngleStats.from_c(s.normal), AngleStats.from_c(s.tangent)
        cm = ClipMethod(METHODS[m], None, normal, tangent, AngleStats.from_c(s.rest_normal),
                        AngleStats.from_c(s.rest_tangent), int(s.handedness), int(s.worst_frame),
                        lib.sf_clip_plan_time(plan, s.worst_frame), float(s.worst_frame_mean))
        if normal:
            cm.worst_normal = WorstVertex(s.worst_n, int(s.worst_n_frame), int(s.worst_n_vertex))
            cm.worst_normal_where = _where(g, units, s.worst_n_unit, s.worst_n_vertex)
        if tangent:
            cm.worst_tangent = WorstVertex(s.worst_t, int(s.worst_t_frame), int(s.worst_t_vertex))
            cm.worst_tangent_where = _where(g, units, s.worst_t_unit, s.worst_t_vertex)
        out.append(cm)
    return out


def _variants(e, g, units, plan):
    out = []
    for i in range(lib.sf_asset_eval_variant_count(e)):
        v = lib.sf_asset_eval_variant(e, i)
        ids = [v.methods[k] for k in range(v.method_count)]
        ms = _clip_methods(g, units, v.stats, ids, plan)
        first = v.stats[ids[0]] if ids else None
        pos_mean = first.pos_sum / first.pos_count if first is not None and first.pos_count else 0.0
        out.append(Variant(_text(v.label), _text(v.engine.name) if v.engine != ffi.NULL else None,
                           int(v.max_influences), int(v.max_morph_targets), int(v.truncated), ms, pos_mean,
                           first.pos_max if first is not None else 0.0))
    return out


def evaluate_asset(asset, methods=None, animation="all", fps=30.0, max_frames=100000, morph_directions="deltas",
                   weighting="area", weld="position-normal", tangents="mikktspace", reference="rebuilt",
                   jacobian_cap=0.0, max_influences=0, max_morph_targets=0, engine=None, influence_variants=True,
                   threads=1, on_frame=None):
    """`skinframe eval` as a function: every frame (t = 0, 1/fps, ... and the end) of each clip of asset (a
    path or an Asset), every method against the reference (recompute with weighting/weld/tangents/reference;
    the defaults are the command's for real assets), the rest-pose error beside it, and the variants: keeping 4
    and 8 influences where the asset has more (influence_variants), max_influences / max_morph_targets (one
    truncation), engine (a preset's name or "all"). animation: "all", an index or a name. on_frame(clip_index,
    frame, time_s) is called after each frame. Returns an AssetReport; raises a skinframe.Error subclass."""
    if not isinstance(asset, Asset):
        asset = load(asset, tangents=tangents, threads=threads)
    g = asset._g
    ids = method_ids(methods)
    c_ids = ffi.new("sf_method[]", ids)
    o = ffi.new("sf_asset_eval_opts*")
    lib.sf_asset_eval_opts_init(o)
    o.methods = c_ids
    o.method_count = len(ids)
    o.reference_opts = frames_opts(morph_directions, weighting, weld, tangents, reference, jacobian_cap)[0]
    o.method_opts = frames_opts(morph_directions, jacobian_cap=jacobian_cap)[0]
    o.fps = float(fps)
    o.max_frames = int(max_frames)
    o.influence_variants = bool(influence_variants)
    o.max_influences = int(max_influences)
    o.max_morph_targets = int(max_morph_targets)
    o.threads = max(int(threads), 1)
    if engine == "all":
        o.all_engines = True
    elif engine is not None:
        o.engine = lib.sf_engine_find(engine.encode())
        if o.engine == ffi.NULL:
            raise UnknownName("engine: unknown engine '%s' (one of %s)" % (engine, ", ".join(engines())), "engine")
    name = ffi.new("char[]", asset.path.encode())
    o.name = name
    env = ffi.new("sf_env*", lib.sfpy_env(int(threads)))
    out = ffi.new("sf_asset_eval**")
    err = ffi.new("sf_error*")
    raise_for(lib.sf_asset_eval_create(g, o, env, out, err), err)
    e = ffi.gc(out[0], lib.sf_asset_eval_destroy)
    count = ffi.new("size_t*")
    units = lib.sf_asset_eval_units(e, count)
    vertices, tvertices = ffi.new("size_t*"), ffi.new("size_t*")
    lib.sf_asset_eval_counts(e, vertices, tvertices)
    raise_for(lib.sf_asset_eval_rest(e, err), err)
    if animation == "all":
        anims = list(range(g.animation_count)) or [None]
    else:
        anims = [asset._animation_index(animation)]
    clips = []
    for a in anims:
        clips.append(_run_clip(asset, e, a, ids, units, on_frame, len(clips), err))
    problems = _problems(g, units, count[0], max_influences or 4)
    infl = lib.sf_asset_eval_influences(e)
    ref = {"method": "recompute", "weighting": weighting, "weld": weld, "tangents": tangents, "directions": reference}
    return AssetReport(asset.path, ref, morph_directions, int(g.instance_count), int(count[0]), int(vertices[0]),
                       int(tvertices[0]), {"vertices": int(infl.vertices), "over4": int(infl.over4),
                                           "over8": int(infl.over8), "max_slots": int(infl.max_slots)}, clips,
                       problems)


def _problems(g, units, unit_count, limit):
    """The data problems of the units' primitives per cause (influences over `limit` count as one)."""
    totals = ffi.new("sf_asset_problem_total[]", lib.SF_GLTF_PROBLEM_COUNT)
    lib.sf_asset_problems_gather(g, units, unit_count, limit, totals)
    out = []
    for k in range(lib.SF_GLTF_PROBLEM_COUNT):
        t = totals[k]
        if t.count:
            pr = g.primitives[t.primitive]
            out.append(Problem(_text(lib.sf_gltf_problem_name(k)), _text(lib.sf_gltf_problem_description(k)),
                               int(t.count), int(pr.mesh_index), int(pr.primitive_index), int(t.index), t.worst))
    return out


def _run_clip(asset, e, a, ids, units, on_frame, clip_index, err):
    g = asset._g
    clip = ffi.new("sf_asset_clip*")
    callback = ffi.NULL
    if on_frame is not None:
        @ffi.callback("int(void*, const sf_asset_clip*, size_t, double)")
        def callback(user, c, frame, t):
            try:
                on_frame(clip_index, frame, t)
                return 0
            except Exception:  # stops the clip: the library reports "stopped"
                return 1
    raise_for(lib.sf_asset_eval_clip(e, NONE if a is None else a, callback, ffi.NULL, clip, err), err)
    plan = ffi.addressof(clip, "plan")
    times = np.array([lib.sf_clip_plan_time(plan, f) for f in range(clip.plan.frames)])
    return Clip(a, "" if a is None else asset.animations[a], 0.0 if a is None else asset.durations[a],
                int(clip.plan.frames), clip.plan.fps, int(clip.vertices), int(clip.tangent_vertices),
                clip.seconds, _clip_methods(g, units, clip.methods, ids, plan), _variants(e, g, units, plan), times)
