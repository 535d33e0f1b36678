"""The add-on's settings, operators and panel (3D View sidebar, tab "skinframe")."""
import os
import tempfile

import bpy

from . import run
from .lib import skinframe

METHOD_ITEMS = [(m, m, m) for m in skinframe.METHODS]


class SkinframeSettings(bpy.types.PropertyGroup):
    methods: bpy.props.EnumProperty(name="Methods", items=METHOD_ITEMS, options={'ENUM_FLAG'},
                                    default=set(skinframe.DEFAULT_METHODS),
                                    description="The methods measured against the reference")
    whole_range: bpy.props.BoolProperty(name="Frame range", default=True,
                                        description="Every frame of the scene's range (off: the current frame)")
    weighting: bpy.props.EnumProperty(
        name="Reference", default="angle", description="How the reference weights the faces around a vertex",
        items=[("angle", "Angle weighted", "As Blender computes vertex normals"),
               ("area", "Area weighted", "As most engines and the glTF importers do"),
               ("uniform", "Uniform", "Unit face normals")])
    morph_directions: bpy.props.EnumProperty(
        name="Shape-key normals", default="deltas",
        items=[("deltas", "Deltas", "Shape-key normal deltas added before skinning (glTF morph NORMAL)"),
               ("none", "None", "Rest normals kept under shape keys"),
               ("normals", "Normals only", "Shape-key normal deltas only; tangents keep their rest directions "
                "under shape keys (the shape keys give no tangent deltas here, so as Deltas)")])
    threads: bpy.props.IntProperty(name="Threads", default=max(1, os.cpu_count() or 1), min=1, max=256)


def _mesh_with_deformation(context):
    obj = context.active_object
    return obj is not None and obj.type == 'MESH' and (
        run.scene_data.armature_modifier(obj) is not None or obj.data.shape_keys is not None)


def _unmeasured(obj, mod):
    """What of obj's deformation the evaluation leaves out (it measures linear blend skinning of vertex groups
    and relative shape keys on the mesh as stored)."""
    out = []
    if mod is not None and mod.use_deform_preserve_volume:
        out.append("Preserve Volume (dual quaternions) is on: measured as linear blend skinning")
    if mod is not None and mod.use_bone_envelopes:
        out.append("bone envelopes are not measured, only vertex groups")
    keys = obj.data.shape_keys
    if keys is not None and not keys.use_relative:
        out.append("absolute shape keys are not measured")
    before = [m.name for m in obj.modifiers if m.show_viewport and m != mod][:1]
    if before:
        out.append("modifier '%s' is not measured (the mesh is taken as stored)" % before[0])
    return out


class SKINFRAME_OT_evaluate(bpy.types.Operator):
    """Measure each method's skinned normals (and, with a UV map, tangents) against the reference over the frames
    and paint the error"""
    bl_idname = "skinframe.evaluate"
    bl_label = "Evaluate Normals"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return _mesh_with_deformation(context)

    def execute(self, context):
        s = context.scene.skinframe
        if context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')
        obj = context.active_object
        mod = run.scene_data.armature_modifier(obj)
        for warning in _unmeasured(obj, mod):
            self.report({'WARNING'}, warning)
        try:
            res = run.evaluate_object(context.scene, obj, sorted(s.methods, key=skinframe.METHODS.index),
                                      s.whole_range, s.weighting, s.morph_directions, s.threads)
        except skinframe.Error as e:
            self.report({'ERROR'}, "skinframe: %s" % e.message)
            return {'CANCELLED'}
        for area in (context.screen.areas if context.screen else []):
            if area.type == 'VIEW_3D':
                area.spaces.active.shading.color_type = 'VERTEX'
        worst = max((r for r in res["rows"] if r["method"] != "recompute"), key=lambda r: r["mean"], default=None)
        if worst:
            self.report({'INFO'}, "%d frames; worst %s: mean %.3f deg, vertex %d at frame %d" % (
                res["frame_count"], worst["method"], worst["mean"], worst["worst_vertex"], worst["worst_vertex_frame"]))
        return {'FINISHED'}


class SKINFRAME_OT_select_worst(bpy.types.Operator):
    """Go to the frame of the method's worst vertex and select that vertex"""
    bl_idname = "skinframe.select_worst"
    bl_label = "Select Worst Vertex"
    bl_options = {'REGISTER', 'UNDO'}
    method: bpy.props.StringProperty()

    def execute(self, context):
        obj = context.active_object
        res = run.results_of(obj)
        row = next((r for r in (res or {}).get("rows", []) if r["method"] == self.method), None)
        if row is None:
            self.report({'ERROR'}, "no results for %s: evaluate first" % self.method)
            return {'CANCELLED'}
        if context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')
        context.scene.frame_set(row["worst_vertex_frame"])
        run.select_vertex(obj, row["worst_vertex"])
        run.show_attribute(obj.data, self.method)
        if context.screen is not None:
            bpy.ops.object.mode_set(mode='EDIT')
            bpy.ops.mesh.select_mode(type='VERT')
        return {'FINISHED'}


class SKINFRAME_OT_show(bpy.types.Operator):
    """Show this method's error colours (normals or tangents) in the viewport"""
    bl_idname = "skinframe.show"
    bl_label = "Show Colours"
    method: bpy.props.StringProperty()
    part: bpy.props.EnumProperty(items=[("normal", "Normal", "The normal error"),
                                        ("tangent", "Tangent", "The tangent error (meshes with a UV map)")],
                                 default="normal")

    def execute(self, context):
        run.show_attribute(context.active_object.data, self.method, self.part)
        return {'FINISHED'}


class SKINFRAME_OT_write_fixed_gltf(bpy.types.Operator):
    """Export the object with Blender's glTF exporter, then write it repaired (skinframe.fix, as `skinframe fix`)"""
    bl_idname = "skinframe.write_fixed_gltf"
    bl_label = "Write Fixed glTF"
    filepath: bpy.props.StringProperty(subtype='FILE_PATH')
    filter_glob: bpy.props.StringProperty(default="*.glb", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        return _mesh_with_deformation(context)

    def invoke(self, context, event):
        self.filepath = bpy.path.ensure_ext(os.path.splitext(bpy.data.filepath or "untitled")[0] + "_fixed", ".glb")
        context.window_manager.fileselect_add(self)
        return {'RUNNING_MODAL'}

    def execute(self, context):
        out = bpy.path.ensure_ext(bpy.path.abspath(self.filepath), ".glb")
        obj = context.active_object
        mod = run.scene_data.armature_modifier(obj)
        chosen = [obj] + ([mod.object] if mod is not None else [])  # the mesh and the rig that skins it
        selected = [o for o in context.view_layer.objects if o.select_get()]
        for o in selected:
            o.select_set(False)
        for o in chosen:
            o.select_set(True)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                exported = os.path.join(tmp, "exported.glb")
                bpy.ops.export_scene.gltf(filepath=exported, use_selection=True, export_format='GLB')
                report = skinframe.fix(exported, out, measure=False, overwrite=True,
                                       threads=context.scene.skinframe.threads)
        except skinframe.Error as e:
            self.report({'ERROR'}, "skinframe fix: %s" % e.message)
            return {'CANCELLED'}
        finally:
            for o in chosen:
                o.select_set(False)
            for o in selected:
                o.select_set(True)
        self.report({'INFO'}, "wrote %s (%d accessors repaired)" % (out, report.repairs["accessors_written"]))
        return {'FINISHED'}


class SKINFRAME_PT_panel(bpy.types.Panel):
    bl_label = "skinframe normals"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "skinframe"

    def draw(self, context):
        layout = self.layout
        s = context.scene.skinframe
        col = layout.column()
        col.prop(s, "methods")
        col.prop(s, "whole_range")
        col.prop(s, "weighting")
        col.prop(s, "morph_directions")
        col.prop(s, "threads")
        col.operator(SKINFRAME_OT_evaluate.bl_idname, icon='MOD_NORMALEDIT')
        res = run.results_of(context.active_object)
        if res:
            self.draw_table(layout, res)
        box = layout.box()
        box.operator(SKINFRAME_OT_write_fixed_gltf.bl_idname, icon='EXPORT')

    @staticmethod
    def draw_table(layout, res):
        box = layout.box()
        tangents = res.get("uv_map") is not None
        box.label(text="Normal error, deg: frames %d-%d (%d), %d vertices" % (
            res["frames"][0], res["frames"][1], res["frame_count"], res["vertices"]))
        if tangents:
            box.label(text="Tangent error, deg: UV map '%s' (MikkTSpace reference)" % res["uv_map"])
        else:
            box.label(text="No tangents measured: the mesh has no UV map")
        heads = ["method", "mean", "p95", "max"] + (["tan mean", "tan max"] if tangents else [])
        heads += ["worst frame", "worst vertex", ""]
        grid = box.grid_flow(row_major=True, columns=len(heads), even_columns=False, align=True)
        for head in heads:
            grid.label(text=head)
        for r in res["rows"]:
            grid.operator(SKINFRAME_OT_show.bl_idname, text=r["method"], emboss=False).method = r["method"]
            for key in ("mean", "p95", "max"):
                grid.label(text="%.3f" % r[key])
            if tangents:
                for key in ("tangent_mean", "tangent_max"):
                    if key in r:
                        op = grid.operator(SKINFRAME_OT_show.bl_idname, text="%.3f" % r[key], emboss=False)
                        op.method, op.part = r["method"], "tangent"
                    else:
                        grid.label(text="-")
            grid.label(text="%d" % r["worst_frame"])
            grid.label(text="%d @ %d" % (r["worst_vertex"], r["worst_vertex_frame"]))
            grid.operator(SKINFRAME_OT_select_worst.bl_idname, text="", icon='RESTRICT_SELECT_OFF').method = r["method"]


CLASSES = (SkinframeSettings, SKINFRAME_OT_evaluate, SKINFRAME_OT_select_worst, SKINFRAME_OT_show,
           SKINFRAME_OT_write_fixed_gltf, SKINFRAME_PT_panel)
