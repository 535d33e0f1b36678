"""The skinframe Python module: the copy inside the add-on's zip, else one installed in Blender's Python."""
try:
    from . import skinframe  # noqa: F401  (the zip carries the module built for Blender's Python)
except ImportError:
    import skinframe  # noqa: F401
