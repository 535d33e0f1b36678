"""Mesh (a rest mesh turned into the library's read-only topology) and Pose (bone matrices, morph weights)."""
import numpy as np

from ._skinframe import ffi, lib
from .errors import InvalidArgument, raise_for


def _floats(a, cols, what, rows=None):
    """a as a C-contiguous float32 (rows, cols) array: numpy's own buffer when it already is one (no copy)."""
    arr = np.ascontiguousarray(a, dtype=np.float32)
    if arr.ndim == 1 and cols and arr.size % cols == 0:
        arr = arr.reshape(-1, cols)
    if arr.ndim != 2 or arr.shape[1] != cols or (rows is not None and arr.shape[0] != rows):
        raise InvalidArgument("%s: expected shape (%s, %d), got %s" % (what, rows if rows is not None else "n", cols,
                              tuple(np.shape(a))), what)
    return arr


def _uints(a, cols, what, rows=None):
    src = np.asarray(a)
    if src.size and (src.min() < 0):
        raise InvalidArgument("%s: negative index %d" % (what, int(src.min())), what)
    arr = np.ascontiguousarray(src, dtype=np.uint32)
    if arr.ndim == 1 and cols and arr.size % cols == 0:
        arr = arr.reshape(-1, cols)
    if arr.ndim != 2 or (cols and arr.shape[1] != cols) or (rows is not None and arr.shape[0] != rows):
        raise InvalidArgument("%s: expected shape (%s, %s), got %s" % (what, rows if rows is not None else "n",
                              cols or "k", tuple(src.shape)), what)
    return arr


def ptr(ctype, arr):
    """A pointer into numpy's buffer (no copy); the caller keeps arr alive."""
    return ffi.cast(ctype, ffi.from_buffer(arr)) if arr is not None else ffi.NULL


class Mesh:
    """A rest mesh as the library's read-only topology (positions, normals, tangents, UVs, triangles, bone
    influences, morph targets). Build with Mesh.from_arrays or from a loaded asset (Asset.mesh). Shared by
    threads; every evaluation makes its own workspace."""

    def __init__(self, desc, keep, threads=1, skip_gradients=False):
        self._keep = keep  # the arrays (or the asset) desc points into
        self.threads = int(threads)
        self._env = ffi.new("sf_env*", lib.sfpy_env(self.threads))
        opts = ffi.new("sf_topology_opts*")
        opts.skip_gradients = 1 if skip_gradients else 0
        out = ffi.new("sf_topology**")
        err = ffi.new("sf_error*")
        raise_for(lib.sf_topology_create(desc, opts, self._env, out, err), err)
        self._topo = ffi.gc(out[0], lib.sf_topology_destroy)
        self.bone_count = int(desc.bone_count)
        self.target_count = int(desc.target_count)
        self.vertex_count = int(lib.sf_topology_vertex_count(self._topo))
        self.triangle_count = int(lib.sf_topology_triangle_count(self._topo))
        self.tangent_frame = bool(lib.sf_topology_has_tangent_frame(self._topo))

    @classmethod
    def from_arrays(cls, positions, indices, normals=None, tangents=None, uvs=None, joints=None, weights=None,
                    targets=None, bone_count=None, uv_convention="gltf", zero_weights="reject", threads=1,
                    skip_gradients=False):
        """Builds the topology of a mesh given as numpy arrays.

        positions (n, 3) float; indices (t, 3) or (3t,) counter-clockwise triangles; normals (n, 3) and
        tangents (n, 4) optional (rebuilt from the rest triangles when absent); uvs (n, 2) optional (no
        tangent frame without them); joints and weights (n, k) bone influences (bone_count defaults to
        joints.max() + 1); targets a list of morph targets, each an (n, 3) array of position deltas or a dict
        {"positions": ..., "normals": ..., "tangents": ..., "name": ...}; uv_convention "gltf" (v down) or
        "v-up"; zero_weights: a vertex whose weights sum to zero is an error ("reject") or stays where the morph
        puts it ("rest", as Blender's Armature modifier does); threads: the library's loops over this many threads. float32 C-contiguous arrays are used in
        place. Raises a skinframe.Error subclass naming the offending field."""
        keep = []
        desc = ffi.new("sf_mesh_desc*")
        pos = _floats(positions, 3, "mesh.positions")
        n = pos.shape[0]
        idx = _uints(indices, 3, "mesh.indices")
        keep += [pos, idx]
        desc.vertex_count = n
        desc.triangle_count = idx.shape[0]
        desc.indices = ptr("uint32_t*", idx)
        desc.positions.data = ptr("float*", pos)
        for name, value, cols in (("normals", normals, 3), ("tangents", tangents, 4), ("uvs", uvs, 2)):
            if value is not None:
                arr = _floats(value, cols, "mesh." + name, n)
                keep.append(arr)
                getattr(desc, name).data = ptr("float*", arr)
        if (joints is None) != (weights is None):
            raise InvalidArgument("mesh.joints and mesh.weights: give both or neither", "mesh.joints")
        if joints is not None:
            j = _uints(joints, 0, "mesh.joints", n)
            w = _floats(weights, j.shape[1], "mesh.weights", n)
            keep += [j, w]
            desc.influence_count = j.shape[1]
            desc.joints = ptr("uint32_t*", j)
            desc.weights = ptr("float*", w)
            desc.bone_count = int(bone_count) if bone_count is not None else (int(j.max()) + 1 if j.size else 0)
        if uv_convention not in ("gltf", "v-up"):
            raise InvalidArgument("uv_convention: 'gltf' or 'v-up', not '%s'" % uv_convention, "uv_convention")
        desc.uv_convention = lib.SF_UV_GLTF if uv_convention == "gltf" else lib.SF_UV_V_UP
        if zero_weights not in ("reject", "rest"):
            raise InvalidArgument("zero_weights: 'reject' or 'rest', not '%s'" % zero_weights, "zero_weights")
        desc.zero_weight_policy = lib.SF_ZERO_WEIGHTS_REJECT if zero_weights == "reject" else lib.SF_ZERO_WEIGHTS_REST
        targets = list(targets or [])
        if targets:
            tdesc = ffi.new("sf_morph_target_desc[]", len(targets))
            keep.append(tdesc)
            for k, t in enumerate(targets):
                if not isinstance(t, dict):
                    t = {"positions": t}
                what = "mesh.targets[%d]" % k
                if t.get("positions") is None:
                    raise InvalidArgument(what + ".positions: required", what + ".positions")
                for key, field in (("positions", "position_deltas"), ("normals", "normal_deltas"),
                                   ("tangents", "tangent_deltas")):
                    if t.get(key) is not None:
                        arr = _floats(t[key], 3, "%s.%s" % (what, key), n)
                        keep.append(arr)
                        setattr(tdesc[k], field, ptr("float*", arr))
                if t.get("name"):
                    name = ffi.new("char[]", str(t["name"]).encode())
                    keep.append(name)
                    tdesc[k].name = name
            desc.targets = tdesc
            desc.target_count = len(targets)
        return cls(desc, keep, threads=threads, skip_gradients=skip_gradients)

    def stats(self):
        """What topology creation found and fixed (renormalised weights, degenerate triangles, ...), a dict."""
        s = ffi.new("sf_topology_stats*")
        lib.sf_topology_get_stats(self._topo, s)
        names = ("vertex_count", "triangle_count", "target_count", "bone_count", "influence_count",
                 "renormalized_vertices", "zero_weight_vertices", "merged_duplicate_joints", "degenerate_triangles",
                 "degenerate_uv_triangles", "isolated_vertices", "generated_normals", "generated_tangents",
                 "weld_groups")
        return {k: int(getattr(s, k)) for k in names}

    def rest_pose(self):
        """The pose that leaves the mesh at rest: identity bones, morph weights zero."""
        return Pose(np.tile(np.eye(3, 4, dtype=np.float32), (self.bone_count, 1, 1)),
                    np.zeros(self.target_count, np.float32))


class Pose:
    """Bone matrices and morph weights of one frame.

    bones: (B, 3, 4) or (B, 4, 4) affine matrices (rows as written, p' = A p + t, already multiplied by the
    inverse bind matrix), or (B, 12) in the library's layout (A's columns, then t); morph_weights: (T,)."""

    def __init__(self, bones=None, morph_weights=None):
        if bones is None:
            self.bones = np.zeros((0, 12), np.float32)
        else:
            b = np.asarray(bones, dtype=np.float32)
            if b.ndim == 3 and b.shape[1:] in ((3, 4), (4, 4)):
                b = b[:, :3, :].transpose(0, 2, 1).reshape(-1, 12)
            elif b.ndim == 2 and b.shape[1] == 12:
                pass
            else:
                raise InvalidArgument("pose.bone_matrices: expected (B, 3, 4), (B, 4, 4) or (B, 12), got %s"
                                      % (b.shape,), "pose.bone_matrices")
            self.bones = np.ascontiguousarray(b, dtype=np.float32)
        self.morph_weights = None if morph_weights is None else np.ascontiguousarray(morph_weights, np.float32)

    def _c(self, mesh):
        """An sf_pose pointing at this pose's arrays (no copy)."""
        p = ffi.new("sf_pose*")
        if self.bones.shape[0]:
            p.bone_matrices = ptr("float*", self.bones)
        p.bone_count = self.bones.shape[0]
        if self.morph_weights is not None and self.morph_weights.size:
            p.morph_weights = ptr("float*", self.morph_weights)
            p.morph_weight_count = self.morph_weights.size
        return p


def as_pose(mesh, pose):
    """pose as a Pose: None is the rest pose, a (bones, weights) tuple is wrapped."""
    if pose is None:
        return mesh.rest_pose()
    if isinstance(pose, Pose):
        return pose
    if isinstance(pose, tuple):
        return Pose(*pose)
    return Pose(pose)
