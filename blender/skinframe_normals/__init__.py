"""skinframe normals: where a rigged, shape-keyed mesh's skinned normals go wrong over its animation.

On the active mesh (an Armature modifier and/or shape keys), over the scene's frame range or at the current
frame, every chosen method's normals are measured against the reference rebuilt from the deformed triangles;
each method's largest per-vertex error over the frames is painted as a colour attribute ("skinframe METHOD",
the heatmap's colours: green 0, yellow 22.5, red from 45 degrees), and the panel lists the table, the worst
frame and the worst vertex (Blender's own vertex numbers, selectable)."""
bl_info = {
    "name": "skinframe normals",
    "description": "Measures skinned and shape-keyed normals against the reference and paints the error",
    "author": "skinframe",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "3D View > Sidebar > skinframe",
    "category": "Mesh",
}

import bpy  # noqa: E402

from . import ui  # noqa: E402


def register():
    for cls in ui.CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.skinframe = bpy.props.PointerProperty(type=ui.SkinframeSettings)


def unregister():
    del bpy.types.Scene.skinframe
    for cls in reversed(ui.CLASSES):
        bpy.utils.unregister_class(cls)
