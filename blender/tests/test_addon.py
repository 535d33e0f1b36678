"""The add-on, headless in Blender: `blender -b --factory-startup --python-exit-code 1 --python test_addon.py --
ADDON.zip SKINFRAME_CLI OUT_DIR [STAGED.glb]`.

Builds a strip rigged to two bones with a shape key and a UV map with a seam, animated over 9 frames, installs the
add-on from its zip and runs its operator; then checks (1) the library's skinned positions against Blender's own
evaluated mesh (the data the add-on reads is what Blender deforms), (2) the add-on's table, normals and tangents,
against `skinframe eval` and the Python module's evaluate_asset on the same strip exported by Blender's glTF
exporter (within 1e-3 degrees; the exporter splits the seam's vertices as the add-on measures them), (3) the
colour attributes at the worst vertices (the heatmap's colour of the angle) and the selection operator. With
STAGED.glb it imports that file through Blender's glTF importer, checks that the add-on reads the file's normals
as Blender keeps them (within its 16-bit encoding) and its rest-pose errors against the command's (within 0.01
degree: that encoding moves them)."""
import json
import math
import os
import subprocess
import sys

import bpy
import numpy as np

ARGS = sys.argv[sys.argv.index("--") + 1:]
ZIP, CLI, OUT = ARGS[0], ARGS[1], ARGS[2]
STAGED = ARGS[3] if len(ARGS) > 3 else None
TOL = 1e-3
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def install_addon():
    bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skinframe_normals")
    import skinframe_normals
    return skinframe_normals


def clear_scene():
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)


def build_strip():
    """A 5 x 13 vertex strip along y (0..2), bones y 0..1 and 1..2, weights blended over y 0.6..1.4, a shape key
    bulging the middle; bone 2 bends 70 degrees about x and bone 1 turns 20 degrees about z over frames 0..8."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 0, 8
    scene.render.fps = 24
    nx, ny = 5, 13
    verts = [(0.5 * (i / (nx - 1) - 0.5), 2.0 * j / (ny - 1), 0.0) for j in range(ny) for i in range(nx)]
    faces = [(j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i)
             for j in range(ny - 1) for i in range(nx - 1)]
    me = bpy.data.meshes.new("strip")
    me.from_pydata(verts, [], faces)
    me.polygons.foreach_set("use_smooth", [True] * len(me.polygons))
    me.update()
    # UVs: u across, v along the strip; the faces above row 6 are shifted by 1 in u, so row 6 is a seam
    uv = me.uv_layers.new(name="UVMap")
    for poly in me.polygons:
        shift = 1.0 if poly.index // (nx - 1) >= 6 else 0.0
        for li in poly.loop_indices:
            co = me.vertices[me.loops[li].vertex_index].co
            uv.data[li].uv = (co.x + 0.5 + shift, co.y / 2.0)
    obj = bpy.data.objects.new("strip", me)
    scene.collection.objects.link(obj)
    arm_data = bpy.data.armatures.new("rig")
    arm = bpy.data.objects.new("rig", arm_data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    b1 = arm_data.edit_bones.new("lower")
    b1.head, b1.tail = (0, 0, 0), (0, 1, 0)
    b2 = arm_data.edit_bones.new("upper")
    b2.head, b2.tail = (0, 1, 0), (0, 2, 0)
    b2.parent = b1
    b2.use_connect = True
    bpy.ops.object.mode_set(mode='OBJECT')
    lower, upper = obj.vertex_groups.new(name="lower"), obj.vertex_groups.new(name="upper")
    for v in me.vertices:
        t = min(max((v.co.y - 0.6) / 0.8, 0.0), 1.0)
        w = t * t * (3 - 2 * t)
        if w < 1:
            lower.add([v.index], 1 - w, 'REPLACE')
        if w > 0:
            upper.add([v.index], w, 'REPLACE')
    mod = obj.modifiers.new("Armature", 'ARMATURE')
    mod.object = arm
    obj.shape_key_add(name="Basis")
    bulge = obj.shape_key_add(name="bulge")
    for v in bulge.data:
        v.co.z += 0.15 * math.sin(math.pi * v.co.y / 2.0) * math.cos(math.pi * v.co.x)
    bulge.value = 0.6
    for pb, axis, angle in ((arm.pose.bones["upper"], (1, 0, 0), 70.0), (arm.pose.bones["lower"], (0, 0, 1), 20.0)):
        pb.rotation_mode = 'QUATERNION'
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.keyframe_insert("rotation_quaternion", frame=0)
        half = math.radians(angle) / 2
        pb.rotation_quaternion = (math.cos(half),) + tuple(math.sin(half) * a for a in axis)
        pb.keyframe_insert("rotation_quaternion", frame=8)
    scene.frame_set(0)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    return obj, arm


def blender_positions(obj):
    deps = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(deps)
    me = ev.to_mesh()
    co = np.empty(3 * len(me.vertices), np.float32)
    me.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    return co.reshape(-1, 3)


def check_positions(addon, obj):
    sf = addon.lib.skinframe
    arrays, bones, _ = addon.scene_data.rest_arrays(obj)
    mesh = sf.Mesh.from_arrays(**arrays)
    worst = 0.0
    for f in (3, 8):
        bpy.context.scene.frame_set(f)
        pos, _, _ = sf.frames(mesh, sf.Pose(*addon.scene_data.pose_arrays(obj, bones)), method="skinned")
        worst = max(worst, float(np.abs(pos - blender_positions(obj)).max()))
    bpy.context.scene.frame_set(0)
    check(worst < 1e-5, "library's skinned positions = Blender's evaluated mesh (max difference %.2e)" % worst)


def compare_rows(rows, theirs, what, keys=(("mean", "mean"), ("p95", "p95"), ("max", "max")), part="normal",
                 tol=TOL):
    for name, row in rows.items():
        t = theirs.get(name)
        if t is None:
            check(False, "%s: method %s missing" % (what, name))
            continue
        for ours_key, their_key in keys:
            a, b = row[ours_key], t[part][their_key]
            check(abs(a - b) <= tol, "%s %s %s: add-on %.6f, %.6f" % (what, name, ours_key, a, b))


def check_table_against_command(addon, obj, results):
    sf = addon.lib.skinframe
    glb = os.path.join(OUT, "strip.glb")
    bpy.ops.export_scene.gltf(filepath=glb, export_format='GLB', use_selection=False, export_texcoords=True,
                              export_colors=False, export_morph_normal=True, export_force_sampling=True)
    rows = {r["method"]: r for r in results["rows"]}
    args = [CLI, "eval", glb, "--fps", "24", "--weighting", results["weighting"], "--json"]
    cli = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    anim = cli["animations"]
    check(len(anim) == 1 and anim[0]["frames"] == results["frame_count"],
          "the exported clip has the scene's %d frames" % results["frame_count"])
    compare_rows(rows, {m["method"]: m for m in anim[0]["methods"]}, "command")
    compare_rows(rows, {m["method"]: m for m in anim[0]["methods"]}, "command rest",
                 keys=(("rest_mean", "mean"), ("rest_max", "max")), part="rest_normal")
    tangent_keys = (("tangent_mean", "mean"), ("tangent_p95", "p95"), ("tangent_max", "max"))
    compare_rows(rows, {m["method"]: m for m in anim[0]["methods"]}, "command tangent", keys=tangent_keys,
                 part="tangent")
    check(results["uv_map"] == "UVMap" and results["measured_vertices"] == anim[0]["vertices_per_frame"]
          and results["measured_vertices"] > results["vertices"],
          "the seam's vertices measured once per UV: %d of Blender's %d vertices, %d in the export" % (
              results["measured_vertices"], results["vertices"], anim[0]["vertices_per_frame"]))
    for m in anim[0]["methods"]:
        r = rows[m["method"]]
        check(r["count"] == m["normal"]["count"] and r["tangent_count"] == m["tangent"]["count"],
              "%s: as many normals (%d) and tangents (%d) measured as the command" % (
                  m["method"], r["count"], r["tangent_count"]))
    report = sf.evaluate_asset(glb, fps=24, weighting=results["weighting"])
    module = {m.method: {"normal": m.normal.to_dict(), "tangent": m.tangent.to_dict()}
              for m in report.clips[0].methods}
    compare_rows(rows, module, "module")
    compare_rows(rows, module, "module tangent", keys=tangent_keys, part="tangent")


def check_colours(addon, obj, results):
    sf = addon.lib.skinframe
    me = obj.data
    for r in results["rows"]:
        color_name, deg_name = addon.run.attribute_names(r["method"])
        attr = me.color_attributes.get(color_name)
        check(attr is not None and attr.domain == 'POINT', "colour attribute '%s' on the points" % color_name)
        if attr is None:
            continue
        v = r["worst_vertex"]
        got = np.array(attr.data[v].color[:], np.float32)
        want = sf.heatmap_colors([r["worst_deg"]])[0]
        check(np.allclose(got, want, atol=1e-6), "%s: colour at the worst vertex %d = heatmap(%.3f deg) %s" % (
            r["method"], v, r["worst_deg"], np.round(got, 4)))
        degs = np.empty(len(me.vertices), np.float32)
        me.attributes[deg_name].data.foreach_get("value", degs)
        check(int(np.argmax(degs)) == v or degs.max() == degs[v], "%s: the worst vertex has the largest error"
              % r["method"])
        tcolor, tdeg = addon.run.attribute_names(r["method"], "tangent")
        tattr = me.color_attributes.get(tcolor)
        check(tattr is not None and tattr.domain == 'POINT' and tcolor != color_name,
              "tangent colour attribute '%s' on the points" % tcolor)
        if tattr is None:
            continue
        tv = r["tangent_worst_vertex"]
        got = np.array(tattr.data[tv].color[:], np.float32)
        want = sf.heatmap_colors([r["tangent_worst_deg"]])[0]
        check(np.allclose(got, want, atol=1e-6), "%s: tangent colour at the worst vertex %d = heatmap(%.3f deg)" % (
            r["method"], tv, r["tangent_worst_deg"]))
        me.attributes[tdeg].data.foreach_get("value", degs)
        check(abs(float(degs.max()) - r["tangent_max"]) < 1e-4 and abs(float(degs[tv]) - r["tangent_max"]) < 1e-4,
              "%s: the tangent degrees' largest (%.4f) is the table's max, at the worst vertex" % (
                  r["method"], float(degs.max())))
    skinned = next(r for r in results["rows"] if r["method"] == "skinned")
    check(skinned["tangent_max"] > 1.0, "skinned tangents are off on the bend (%.3f deg max)" % skinned["tangent_max"])
    check(skinned["max"] > 1.0 and skinned["mean"] > 0.01, "skinned normals are off on the bend (%.3f deg max)"
          % skinned["max"])
    bpy.ops.skinframe.select_worst(method="skinned")
    sel = np.zeros(len(me.vertices), bool)
    me.vertices.foreach_get("select", sel)
    check(list(np.flatnonzero(sel)) == [skinned["worst_vertex"]] and
          bpy.context.scene.frame_current == skinned["worst_vertex_frame"],
          "select_worst selects vertex %d at frame %d" % (skinned["worst_vertex"], skinned["worst_vertex_frame"]))


def check_fixed_gltf(addon, obj):
    """The Write Fixed glTF operator: a .glb the module loads, with the strip, the bytes `skinframe fix` writes
    from the same export."""
    out = os.path.join(OUT, "strip_fixed.glb")
    check(bpy.ops.skinframe.write_fixed_gltf(filepath=out) == {'FINISHED'}, "Write Fixed glTF runs")
    asset = addon.lib.skinframe.load(out)
    _, source = addon.scene_data.split_at_uvs(obj, addon.scene_data.rest_arrays(obj)[0])
    check(asset.instance_count == 1 and asset.mesh().vertex_count == len(source) > len(obj.data.vertices),
          "the fixed glTF holds the strip's %d vertices, split at the UV seam (%d)" % (len(obj.data.vertices),
                                                                                     len(source)))
    exported, by_command = os.path.join(OUT, "strip_exported.glb"), os.path.join(OUT, "strip_fixed_command.glb")
    selected = [o for o in bpy.context.view_layer.objects if o.select_get()]
    for o in bpy.context.view_layer.objects:  # as the operator exports: the mesh and its rig
        o.select_set(o == obj or o == addon.scene_data.armature_modifier(obj).object)
    bpy.ops.export_scene.gltf(filepath=exported, use_selection=True, export_format='GLB')
    for o in bpy.context.view_layer.objects:
        o.select_set(o in selected)
    done = subprocess.run([CLI, "fix", exported, "-o", by_command, "--force", "--no-measure"], capture_output=True)
    with open(out, "rb") as a, open(by_command, "rb") as b:
        check(done.returncode == 0 and a.read() == b.read(), "the operator writes what `skinframe fix` writes")


def check_animated_shape_key(addon, obj):
    """A keyed shape-key value is read per frame, and the library deforms as Blender does there."""
    bulge = obj.data.shape_keys.key_blocks["bulge"]
    bulge.value = 0.0
    bulge.keyframe_insert("value", frame=0)
    bulge.value = 1.0
    bulge.keyframe_insert("value", frame=8)
    bpy.context.scene.frame_set(4)
    _, weights = addon.scene_data.pose_arrays(obj, addon.scene_data.deform_bones(obj))
    check(abs(float(weights[0]) - bulge.value) < 1e-6 and 0.0 < bulge.value < 1.0,
          "the shape key's keyed value at frame 4 (%.3f) is the pose's morph weight" % bulge.value)
    check_positions(addon, obj)


class Layout:
    """Stands in for the panel's layout (headless Blender draws no panels): records the texts it is given."""

    def __init__(self, texts=None):
        self.texts = [] if texts is None else texts

    def box(self):
        return self

    def grid_flow(self, **_):
        return self

    def label(self, text=""):
        self.texts.append(text)

    def operator(self, idname, text="", **_):
        self.texts.append(text)
        return type("Props", (), {})()


def check_panel_table(addon, results):
    """The panel's table: the tangent columns beside the normals' with a UV map, each row's numbers in it."""
    layout = Layout()
    addon.ui.SKINFRAME_PT_panel.draw_table(layout, results)
    texts = layout.texts
    tangents = results["uv_map"] is not None
    check(("tan mean" in texts and "tan max" in texts) == tangents,
          "the panel's table %s tangent columns" % ("has" if tangents else "has no"))
    for r in results["rows"]:
        i = texts.index(r["method"])
        want = ["%.3f" % r[k] for k in ("mean", "p95", "max")]
        if tangents:
            want += ["%.3f" % r["tangent_mean"], "%.3f" % r["tangent_max"]]
        check(texts[i + 1:i + 1 + len(want)] == want, "panel row %s: %s" % (r["method"], texts[i + 1:i + 1 + len(want)]))


def check_without_uvs(addon, obj):
    """Without a UV map no tangents are measured: the table has none and the tangent colours of the evaluation
    before are removed; the normals' table is kept."""
    me = obj.data
    before = {r["method"]: r for r in addon.run.results_of(obj)["rows"]}
    me.uv_layers.remove(me.uv_layers["UVMap"])
    bpy.context.scene.frame_set(0)
    check(bpy.ops.skinframe.evaluate() == {'FINISHED'}, "the evaluate operator runs without a UV map")
    res = addon.run.results_of(obj)
    check(res["uv_map"] is None and res["measured_vertices"] == res["vertices"] == len(me.vertices),
          "without a UV map the %d vertices are measured unsplit" % len(me.vertices))
    check(all("tangent_mean" not in r for r in res["rows"]), "without a UV map the table has no tangents")
    stale = [n for r in res["rows"] for n in addon.run.attribute_names(r["method"], "tangent")
             if me.attributes.get(n) is not None]
    check(not stale, "the earlier tangent attributes are removed (%s)" % stale)
    check_panel_table(addon, res)
    check(all(me.color_attributes.get(addon.run.attribute_names(r["method"])[0]) is not None for r in res["rows"])
          and set(before) == {r["method"] for r in res["rows"]}, "the normals' colour attributes stay")


ENCODING_DEG = 0.03


def normal_shift(addon, obj):
    """(max, mean, matched): the angle in degrees between each Blender vertex's rest normal as the add-on reads it
    and the nearest of the file's normals at the vertex's position (the importer's Y-up to Z-up turn undone)."""
    ours, _, _ = addon.scene_data.rest_arrays(obj)
    theirs = addon.lib.skinframe.load(STAGED).arrays(0)
    p = np.asarray(theirs["positions"], np.float64).reshape(-1, 3)
    n = np.asarray(theirs["normals"], np.float64).reshape(-1, 3)
    p, n = p[:, [0, 2, 1]] * (1, -1, 1), n[:, [0, 2, 1]] * (1, -1, 1)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    at = {}
    for i, q in enumerate(np.round(p, 4)):
        at.setdefault(tuple(q), []).append(i)
    angles = []
    for q, m in zip(np.round(np.asarray(ours["positions"], np.float64).reshape(-1, 3), 4),
                    np.asarray(ours["normals"], np.float64).reshape(-1, 3)):
        near = at.get(tuple(q))
        if near:
            m = m / np.linalg.norm(m)
            angles.append(min(np.degrees(np.arccos(np.clip(n[near] @ m, -1.0, 1.0)))))
    angles = np.asarray(angles)
    return float(angles.max()), float(angles.mean()), len(angles)


def check_staged(addon):
    """A staged glTF through Blender's importer: the add-on reads the file's normals as Blender keeps them, and its
    rest-pose errors agree with the command's within 0.01 degree."""
    clear_scene()
    if not hasattr(np, "bool"):  # Debian's Blender 3.4 importer still says np.bool, which numpy 1.24 removed
        np.bool = bool
    bpy.ops.import_scene.gltf(filepath=STAGED)
    obj = next(o for o in bpy.context.scene.objects if o.type == 'MESH')
    bpy.context.view_layer.objects.active = obj
    bpy.context.scene.skinframe.whole_range = False
    bpy.ops.skinframe.evaluate()
    results = addon.run.results_of(obj)
    check(results is not None and results["vertices"] == len(obj.data.vertices) and results["rows"][0]["rest_max"] > 0,
          "imported %s evaluated on Blender's %d vertices" % (os.path.basename(STAGED), len(obj.data.vertices)))
    args = [CLI, "eval", STAGED, "--weighting", results["weighting"], "--json"]
    cli = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    theirs = {m["method"]: m for m in cli["animations"][0]["methods"]}
    # The add-on's input: the file's normals as Blender keeps them. Blender stores an import's custom normals per
    # corner in its own 16-bit encoding, up to 0.028 degree off the file's on CesiumMan; the add-on averages a
    # vertex's corners (0.0082 degree at most, mean 0.0007), which no corner's shift can exceed: ENCODING_DEG.
    # A misread normal would be degrees off.
    shift = normal_shift(addon, obj)
    print("staged: the add-on's rest normals against the file's: max %.4f, mean %.5f deg over %d vertices" % shift)
    check(shift[2] > 0.9 * len(obj.data.vertices) and shift[0] <= ENCODING_DEG,
          "the add-on's rest normals are the file's within Blender's encoding (%.4f deg > %g, %d vertices matched)"
          % (shift[0], ENCODING_DEG, shift[2]))
    # That shift is the rest-pose error's largest (0.0083 degree, the command's 0.0024 on the file itself), so the
    # 1e-3 of the add-on's other checks cannot hold here; and the command measures the file's vertices split for
    # MikkTSpace (3,572 against Blender's 3,273): the rows agree within 0.01 degree.
    compare_rows({r["method"]: r for r in results["rows"]}, theirs, "staged rest",
                 keys=(("rest_mean", "mean"), ("rest_max", "max")), part="rest_normal", tol=0.01)


def main():
    os.makedirs(OUT, exist_ok=True)
    addon = install_addon()
    clear_scene()
    obj, _ = build_strip()
    check_positions(addon, obj)
    check(bpy.ops.skinframe.evaluate() == {'FINISHED'}, "the evaluate operator runs")
    results = addon.run.results_of(obj)
    print(json.dumps(results, indent=1))
    check_table_against_command(addon, obj, results)
    check_panel_table(addon, results)
    check_colours(addon, obj, results)
    check(bpy.context.mode == 'EDIT_MESH', "select_worst leaves the mesh in edit mode, the vertex shown")
    bpy.ops.object.mode_set(mode='OBJECT')  # the mesh as stored again (edit mode holds its own copy)
    check_fixed_gltf(addon, obj)
    check_animated_shape_key(addon, obj)
    check_without_uvs(addon, obj)
    if STAGED:
        check_staged(addon)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


main()
