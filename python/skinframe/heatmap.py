"""The error heatmap's colours (the library's sf_heatmap_color: green at 0, yellow at 22.5, red from 45
degrees), as the pictures and baked error colours use them."""
import numpy as np

from ._skinframe import ffi, lib


def heatmap_colors(angles_deg):
    """(n, 4) float32 RGBA (alpha 1) for n angles in degrees."""
    a = np.ascontiguousarray(angles_deg, dtype=np.float32).reshape(-1)
    out = np.empty((a.size, 4), np.float32)
    lib.sfpy_heatmap(ffi.cast("float*", ffi.from_buffer(a)), a.size, ffi.cast("float*", ffi.from_buffer(out)))
    return out
