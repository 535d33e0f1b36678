"""What the evaluation needs, read from Blender's own data: the rest mesh (vertices, loop triangles, vertex
normals), the vertex groups of the Armature modifier's deform bones as joints and weights, the shape keys as
morph targets, and per frame the bone matrices and shape-key values, and the active UV map for the tangents.
The library takes one UV per vertex, so a vertex on a seam of the UV map is measured once per UV it has
(split_at_uvs, as a glTF exporter splits it); every per-vertex answer is folded back onto Blender's vertex
numbers (the largest of its copies)."""
import numpy as np


def armature_modifier(obj):
    """The first Armature modifier with an armature object that is shown in the viewport, or None."""
    for mod in obj.modifiers:
        if mod.type == 'ARMATURE' and mod.object is not None and mod.show_viewport:
            return mod
    return None


def _vector_prop(collection, name, count, width):
    out = np.empty(count * width, np.float32)
    collection.foreach_get(name, out)
    return out.reshape(count, width)


def deform_bones(obj):
    """Names of the armature's deform bones that have a vertex group on obj, in a fixed order (joint indices)."""
    mod = armature_modifier(obj)
    if mod is None or not mod.use_vertex_groups:
        return []
    groups = {g.name for g in obj.vertex_groups}
    return [b.name for b in mod.object.data.bones if b.use_deform and b.name in groups]


def _influences(obj, bones):
    """joints, weights (n, k) from the vertex groups named after deform bones (others ignored)."""
    me = obj.data
    index = {obj.vertex_groups[name].index: j for j, name in enumerate(bones)}
    per_vertex = [[(index[g.group], g.weight) for g in v.groups if g.group in index and g.weight > 0.0]
                  for v in me.vertices]
    k = max([len(p) for p in per_vertex] + [1])
    joints = np.zeros((len(per_vertex), k), np.uint32)
    weights = np.zeros((len(per_vertex), k), np.float32)
    for v, pairs in enumerate(per_vertex):
        for s, (j, w) in enumerate(pairs):
            joints[v, s] = j
            weights[v, s] = w
    return joints, weights


def _group_weights(obj, name, n):
    """Per-vertex weights of vertex group `name` (0 where a vertex is not in it)."""
    g = obj.vertex_groups.get(name)
    out = np.zeros(n, np.float32)
    if g is None:
        return out
    for v in obj.data.vertices:
        for e in v.groups:
            if e.group == g.index:
                out[v.index] = e.weight
    return out


def _custom_normals(me, n):
    me.calc_normals_split()
    loops = len(me.loops)
    corner = _vector_prop(me.loops, "normal", loops, 3)
    vertex = np.empty(loops, np.int64)
    me.loops.foreach_get("vertex_index", vertex)
    out = np.zeros((n, 3), np.float64)
    np.add.at(out, vertex, corner)
    length = np.linalg.norm(out, axis=1, keepdims=True)
    return np.where(length > 0, out / np.maximum(length, 1e-30), 0).astype(np.float32)


def shape_keys(obj):
    """The shape keys other than the reference (basis) key, as Blender evaluates relative keys."""
    keys = obj.data.shape_keys
    if keys is None or not keys.use_relative:
        return []
    return [kb for kb in keys.key_blocks if kb != keys.reference_key]


def rest_arrays(obj):
    """The keywords of skinframe.Mesh.from_arrays for obj (object space, Blender's vertex order), and the
    names of the bones and shape keys behind its joints and targets."""
    me = obj.data
    n = len(me.vertices)
    me.calc_loop_triangles()
    tris = np.empty(3 * len(me.loop_triangles), np.int64)
    me.loop_triangles.foreach_get("vertices", tris)
    keys = me.shape_keys
    if keys is not None:
        basis = keys.reference_key
        positions = _vector_prop(basis.data, "co", n, 3)
        normals = np.asarray(basis.normals_vertex_get(), np.float32).reshape(n, 3)
    else:
        positions = _vector_prop(me.vertices, "co", n, 3)
        normals = _vector_prop(me.vertices, "normal", n, 3)
    if me.has_custom_normals:  # authored normals (an imported glTF's): each vertex's corners averaged
        normals = _custom_normals(me, n)
    arrays = {"positions": positions, "indices": tris.astype(np.uint32).reshape(-1, 3), "normals": normals,
              "zero_weights": "rest"}
    bones = deform_bones(obj)
    if bones:
        arrays["joints"], arrays["weights"] = _influences(obj, bones)
        arrays["bone_count"] = len(bones)
    targets = []
    for kb in shape_keys(obj):
        rel = kb.relative_key
        co = _vector_prop(kb.data, "co", n, 3) - _vector_prop(rel.data, "co", n, 3)
        nrm = (np.asarray(kb.normals_vertex_get(), np.float32).reshape(n, 3)
               - np.asarray(rel.normals_vertex_get(), np.float32).reshape(n, 3))
        if kb.vertex_group:
            mask = _group_weights(obj, kb.vertex_group, n)[:, None]
            co, nrm = co * mask, nrm * mask
        targets.append({"name": kb.name, "positions": co, "normals": nrm})
    if targets:
        arrays["targets"] = targets
    return arrays, bones, [t["name"] for t in targets]


def pose_arrays(obj, bones):
    """Bone matrices (B, 3, 4) in obj's space and shape-key values at the scene's current frame.

    Blender's Armature modifier moves a vertex by premat^-1 * (pose_bone.matrix * bone.matrix_local^-1) * premat
    with premat = armature.matrix_world^-1 * object.matrix_world; the library takes that matrix per bone."""
    mod = armature_modifier(obj)
    mats = np.zeros((len(bones), 3, 4), np.float32)
    if bones:
        arm = mod.object
        premat = arm.matrix_world.inverted() @ obj.matrix_world
        postmat = premat.inverted()
        for j, name in enumerate(bones):
            m = postmat @ arm.pose.bones[name].matrix @ arm.data.bones[name].matrix_local.inverted() @ premat
            mats[j] = np.array([m[r][:] for r in range(3)], np.float32)
    weights = np.array([0.0 if kb.mute else kb.value for kb in shape_keys(obj)], np.float32)
    return mats, weights


def split_at_uvs(obj, arrays):
    """arrays (rest_arrays') with the active UV map's coordinates as "uvs" (Blender's v up), a vertex copied for
    each distinct UV its corners have, and the triangles taken through the copies; returns (arrays, source),
    source[i] the Blender vertex of copy i. Without a UV map: (arrays, None), unchanged."""
    me = obj.data
    uv_layer = me.uv_layers.active
    if uv_layer is None or len(me.loops) == 0:
        return arrays, None
    loops = len(me.loops)
    uv = _vector_prop(uv_layer.data, "uv", loops, 2)
    vertex = np.empty(loops, np.int64)
    me.loops.foreach_get("vertex_index", vertex)
    # one copy per distinct (vertex, u, v), numbered in Blender's vertex order
    keys = np.empty(loops, dtype=[("v", np.int64), ("u", np.float32), ("w", np.float32)])
    keys["v"], keys["u"], keys["w"] = vertex, uv[:, 0], uv[:, 1]
    unique, first, copy_of_loop = np.unique(keys, return_index=True, return_inverse=True)
    source = unique["v"].astype(np.int64)
    n = len(me.vertices)
    # vertices no face uses keep a copy of their own (their UV is unused)
    unused = np.setdiff1d(np.arange(n), source)
    if len(unused):
        source = np.concatenate([source, unused])
        uv_out = np.concatenate([uv[first], np.zeros((len(unused), 2), np.float32)])
    else:
        uv_out = uv[first]
    tri_loops = np.empty(3 * len(me.loop_triangles), np.int64)
    me.loop_triangles.foreach_get("loops", tri_loops)
    out = dict(arrays)
    out["indices"] = copy_of_loop.reshape(-1)[tri_loops].astype(np.uint32).reshape(-1, 3)
    for name in ("positions", "normals", "joints", "weights"):
        if name in arrays:
            out[name] = np.ascontiguousarray(arrays[name][source])
    if "targets" in arrays:
        out["targets"] = [{k: (np.ascontiguousarray(v[source]) if k != "name" else v) for k, v in t.items()}
                          for t in arrays["targets"]]
    out["uvs"] = np.ascontiguousarray(uv_out, np.float32)
    out["uv_convention"] = "v-up"
    return out, source


def fold(values, source, n):
    """Per-copy values onto Blender's n vertices: the largest of each vertex's copies (source None: as they are)."""
    if source is None:
        return values
    out = np.zeros(n, values.dtype)
    np.maximum.at(out, source, values)
    return out
