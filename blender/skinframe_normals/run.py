"""The evaluation of the active object over frames: its data read from Blender (scene_data), every chosen method
measured against the reference by the skinframe module, each method's per-vertex normal error written as a
colour attribute in the heatmap's colours, and the table kept on the object for the panel."""
import json

import numpy as np

from . import scene_data
from .lib import skinframe

RESULTS_KEY = "skinframe_results"
ATTRIBUTE_PREFIX = "skinframe "


def attribute_names(method):
    """The colour attribute (heatmap of the largest normal error over the frames) and the float attribute (the
    same in degrees) of a method."""
    return ATTRIBUTE_PREFIX + method, ATTRIBUTE_PREFIX + method + " deg"


def frames_of(scene, whole_range):
    return list(range(scene.frame_start, scene.frame_end + 1)) if whole_range else [scene.frame_current]


def evaluate_object(scene, obj, methods, whole_range=True, weighting="angle", morph_directions="deltas",
                    threads=1):
    """Runs the evaluation and returns the results dict (also stored as JSON on obj[RESULTS_KEY])."""
    arrays, bones, keys = scene_data.rest_arrays(obj)
    mesh = skinframe.Mesh.from_arrays(threads=threads, **arrays)
    frames = frames_of(scene, whole_range)
    current = scene.frame_current
    poses = []
    try:
        for f in frames:
            scene.frame_set(f)
            poses.append(skinframe.Pose(*scene_data.pose_arrays(obj, bones)))
    finally:
        scene.frame_set(current)
    # weld position-normal: vertices a glTF import split at UV seams share the reference's normal there (as in
    # `skinframe eval`); a mesh made in Blender has no such duplicates, and no difference.
    stats = skinframe.evaluate_frames(mesh, poses, methods=methods, vertex_max=True, weighting=weighting,
                                      weld="position-normal", morph_directions=morph_directions)
    rows = []
    for name, st in stats.items():
        write_attributes(obj.data, name, st.vertex_max_normal_deg)
        rows.append({"method": name, "mean": st.normal.mean, "p95": st.normal.p95, "max": st.normal.max,
                     "rms": st.normal.rms, "count": st.normal.count,
                     "rest_mean": st.rest_normal.mean, "rest_max": st.rest_normal.max,
                     "worst_frame": frames[st.worst_frame], "worst_frame_mean": st.worst_frame_mean,
                     "worst_vertex": st.worst_normal.vertex, "worst_vertex_frame": frames[st.worst_normal.frame],
                     "worst_deg": st.worst_normal.angle_deg})
    results = {"object": obj.name, "frames": [frames[0], frames[-1]], "frame_count": len(frames),
               "vertices": mesh.vertex_count, "bones": bones, "shape_keys": keys, "weighting": weighting,
               "morph_directions": morph_directions, "rows": rows}
    obj[RESULTS_KEY] = json.dumps(results)
    shown = next((r["method"] for r in rows if r["method"] != "recompute"), rows[0]["method"] if rows else None)
    if shown:
        show_attribute(obj.data, shown)
    return results


def write_attributes(me, method, degrees):
    """The heatmap colours of `degrees` (per vertex) as a POINT colour attribute, and the degrees themselves."""
    color_name, deg_name = attribute_names(method)
    for name, kind in ((color_name, 'FLOAT_COLOR'), (deg_name, 'FLOAT')):
        old = me.attributes.get(name)
        if old is not None:
            me.attributes.remove(old)
        me.attributes.new(name, kind, 'POINT')
    me.attributes[color_name].data.foreach_set("color", skinframe.heatmap_colors(degrees).ravel())
    me.attributes[deg_name].data.foreach_set("value", np.ascontiguousarray(degrees, np.float32))


def show_attribute(me, method):
    """Makes the method's colour attribute the active and rendered one."""
    attr = me.color_attributes.get(attribute_names(method)[0])
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
