"""The evaluation of the active object over frames: its data read from Blender (scene_data), every chosen method
measured against the reference by the skinframe module, each method's per-vertex normal error (and, with a UV
map, tangent error) written as a colour attribute in the heatmap's colours, and the table kept on the object for
the panel."""
import json

import numpy as np

from . import scene_data
from .lib import skinframe

RESULTS_KEY = "skinframe_results"
ATTRIBUTE_PREFIX = "skinframe "


def attribute_names(method, part="normal"):
    """The colour attribute (heatmap of the largest normal, or with part="tangent" tangent, error over the
    frames) and the float attribute (the same in degrees) of a method."""
    base = ATTRIBUTE_PREFIX + method + ("" if part == "normal" else " " + part)
    return base, base + " deg"


def frames_of(scene, whole_range):
    return list(range(scene.frame_start, scene.frame_end + 1)) if whole_range else [scene.frame_current]


def evaluate_object(scene, obj, methods, whole_range=True, weighting="angle", morph_directions="deltas",
                    threads=1):
    """Runs the evaluation and returns the results dict (also stored as JSON on obj[RESULTS_KEY])."""
    arrays, bones, keys = scene_data.rest_arrays(obj)
    blender_vertices = len(arrays["positions"])
    arrays, source = scene_data.split_at_uvs(obj, arrays)
    mesh = skinframe.Mesh.from_arrays(threads=threads, **arrays)
    blender_vertex = (lambda v: int(source[v])) if source is not None else int
    frames = frames_of(scene, whole_range)
    current = scene.frame_current
    poses = []
    try:
        for f in frames:
            scene.frame_set(f)
            poses.append(skinframe.Pose(*scene_data.pose_arrays(obj, bones)))
    finally:
        scene.frame_set(current)
    # weld position-normal: the copies of a vertex at a UV seam (and the vertices a glTF import split there)
    # share the reference's normal, as in `skinframe eval`. The reference's tangents are MikkTSpace's, as there.
    stats = skinframe.evaluate_frames(mesh, poses, methods=methods, vertex_max=True, weighting=weighting,
                                      weld="position-normal", tangents="mikktspace",
                                      morph_directions=morph_directions)
    rows = []
    tangents = mesh.tangent_frame
    for name, st in stats.items():
        write_attributes(obj.data, name, scene_data.fold(st.vertex_max_normal_deg, source, blender_vertices))
        row = {"method": name, "mean": st.normal.mean, "p95": st.normal.p95, "max": st.normal.max,
               "rms": st.normal.rms, "count": st.normal.count,
               "rest_mean": st.rest_normal.mean, "rest_max": st.rest_normal.max,
               "worst_frame": frames[st.worst_frame], "worst_frame_mean": st.worst_frame_mean,
               "worst_vertex": blender_vertex(st.worst_normal.vertex),
               "worst_vertex_frame": frames[st.worst_normal.frame], "worst_deg": st.worst_normal.angle_deg}
        if tangents and st.tangent is not None:
            write_attributes(obj.data, name, scene_data.fold(st.vertex_max_tangent_deg, source, blender_vertices),
                             "tangent")
            row.update({"tangent_mean": st.tangent.mean, "tangent_p95": st.tangent.p95,
                        "tangent_max": st.tangent.max, "tangent_count": st.tangent.count,
                        "handedness": st.handedness,
                        "tangent_worst_vertex": blender_vertex(st.worst_tangent.vertex),
                        "tangent_worst_frame": frames[st.worst_tangent.frame],
                        "tangent_worst_deg": st.worst_tangent.angle_deg})
        else:
            remove_attributes(obj.data, name, "tangent")
        rows.append(row)
    uv_layer = obj.data.uv_layers.active
    results = {"object": obj.name, "frames": [frames[0], frames[-1]], "frame_count": len(frames),
               "vertices": blender_vertices, "measured_vertices": mesh.vertex_count, "bones": bones,
               "shape_keys": keys, "weighting": weighting, "morph_directions": morph_directions,
               "uv_map": uv_layer.name if (uv_layer is not None and tangents) else None, "rows": rows}
    obj[RESULTS_KEY] = json.dumps(results)
    shown = next((r["method"] for r in rows if r["method"] != "recompute"), rows[0]["method"] if rows else None)
    if shown:
        show_attribute(obj.data, shown)
    return results


def write_attributes(me, method, degrees, part="normal"):
    """The heatmap colours of `degrees` (per vertex) as a POINT colour attribute, and the degrees themselves."""
    color_name, deg_name = attribute_names(method, part)
    for name, kind in ((color_name, 'FLOAT_COLOR'), (deg_name, 'FLOAT')):
        old = me.attributes.get(name)
        if old is not None:
            me.attributes.remove(old)
        me.attributes.new(name, kind, 'POINT')
    me.attributes[color_name].data.foreach_set("color", skinframe.heatmap_colors(degrees).ravel())
    me.attributes[deg_name].data.foreach_set("value", np.ascontiguousarray(degrees, np.float32))


def remove_attributes(me, method, part):
    """Removes a method's attributes of `part` (those of an earlier evaluation that measured it)."""
    for name in attribute_names(method, part):
        old = me.attributes.get(name)
        if old is not None:
            me.attributes.remove(old)


def show_attribute(me, method, part="normal"):
    """Makes the method's normal (or tangent) colour attribute the active and rendered one."""
    attr = me.color_attributes.get(attribute_names(method, part)[0])
    if attr is not None:
        me.color_attributes.active_color = attr
        me.color_attributes.render_color_index = me.color_attributes.active_color_index


def results_of(obj):
    """The stored results dict of obj, or None."""
    text = obj.get(RESULTS_KEY) if obj is not None else None
    return json.loads(text) if text else None


def select_vertex(obj, vertex):
    """Selects vertex (Blender's index) alone, in object mode (edit mode shows it as selected)."""
    me = obj.data
    sel = np.zeros(len(me.vertices), bool)
    sel[vertex] = True
    me.vertices.foreach_set("select", sel)
    for attr in ("edges", "polygons"):
        items = getattr(me, attr)
        items.foreach_set("select", np.zeros(len(items), bool))
    me.update()
