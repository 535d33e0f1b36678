"""Names of methods and options as the command spells them, to the library's values and back."""
from ._skinframe import ffi, lib
from .errors import UnknownName

METHODS = tuple(ffi.string(lib.sf_method_name(m)).decode() for m in range(lib.SF_METHOD_COUNT))
DEFAULT_METHODS = METHODS[:lib.SF_METHOD_DEFAULT_COUNT]

MORPH_DIRECTIONS = {"deltas": lib.SF_MORPH_DIRECTIONS_DELTAS, "none": lib.SF_MORPH_DIRECTIONS_NONE,
                    "normals": lib.SF_MORPH_DIRECTIONS_NORMALS}
WEIGHTING = {"area": lib.SF_WEIGHTING_AREA, "angle": lib.SF_WEIGHTING_ANGLE, "uniform": lib.SF_WEIGHTING_UNIFORM}
WELD = {"none": lib.SF_WELD_NONE, "position": lib.SF_WELD_POSITION,
        "position-normal": lib.SF_WELD_POSITION_NORMAL}
TANGENTS = {"uv": lib.SF_TANGENTS_UV, "mikktspace": lib.SF_TANGENTS_MIKKTSPACE}
REFERENCE = {"rebuilt": lib.SF_REFERENCE_REBUILT, "authored": lib.SF_REFERENCE_AUTHORED}


def pick(table, value, what):
    """table[value], or UnknownName naming what and the choices."""
    try:
        return table[value]
    except KeyError:
        raise UnknownName("%s: unknown value '%s' (one of %s)" % (what, value, ", ".join(table)), what) from None


def method_ids(methods):
    """Method names (None: the default set; "all" inside a list: every default method) to sf_method values."""
    if methods is None:
        methods = DEFAULT_METHODS
    elif isinstance(methods, str):
        methods = methods.split(",")
    out = []
    for name in methods:
        for m in (DEFAULT_METHODS if name == "all" else (name,)):
            if m not in METHODS:
                raise UnknownName("method: unknown method '%s' (one of %s)" % (m, ", ".join(METHODS)), "method")
            if METHODS.index(m) not in out:
                out.append(METHODS.index(m))
    return out


def frames_opts(morph_directions="deltas", weighting="area", weld="none", tangents="uv", reference="rebuilt",
                jacobian_cap=0.0):
    """An sf_frames_opts from the command's option names."""
    o = ffi.new("sf_frames_opts*")
    o.morph_directions = pick(MORPH_DIRECTIONS, morph_directions, "morph_directions")
    o.weighting = pick(WEIGHTING, weighting, "weighting")
    o.weld = pick(WELD, weld, "weld")
    o.tangents = pick(TANGENTS, tangents, "tangents")
    o.reference = pick(REFERENCE, reference, "reference")
    o.jacobian_cap = float(jacobian_cap)
    return o
