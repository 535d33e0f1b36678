"""fix: `skinframe fix` as a function. The library repairs a glTF's authored data through its rewriter
(skinframe_fix.h: morph NORMAL/TANGENT deltas rebuilt, weights over every set, unit normals, tangent w, an
optional influence cap, jacobian-fan's attributes embedded), writes it atomically and measures `skinned` with
morph deltas before and after, as the command does."""
import os
from dataclasses import dataclass, field
from typing import List, Optional

from ._skinframe import ffi, lib
from .errors import InvalidArgument, raise_for
from .evaluate import AngleStats

COUNTS = ("primitives", "morph_normal_targets", "morph_normal_added", "morph_tangent_targets", "morph_flat_skipped",
          "weights_renormalised", "duplicate_joints_merged", "influences_sorted", "zero_slots_cleared",
          "zero_weight_vertices", "influences_truncated", "normals_made_unit", "normals_rebuilt",
          "tangent_w_snapped", "tangents_generated", "tangent_vertices_added", "tangents_need_splits",
          "accessors_written")
FAN_COUNTS = ("primitives", "slot_groups", "skipped", "accessors_written")


@dataclass
class FixCase:
    """One measured case ("every target at 1", "clip 0 'Walk'", ...): skinned with deltas, before and after."""
    case: str
    normal_before: Optional[AngleStats]
    normal_after: Optional[AngleStats]
    tangent_before: Optional[AngleStats]
    tangent_after: Optional[AngleStats]


@dataclass
class Truncation:
    """What max_influences costs over the animations: positions against the full deformation (mesh units, and
    the largest posed bounding-box diagonal) and skinned's normals against the full reference."""
    max_influences: int
    truncated_vertices: int
    position_mean: float
    position_max: float
    diagonal: float
    normal: Optional[AngleStats]


@dataclass
class FixReport:
    """The repairs counted (the command's `repairs`), the embedded attributes (`embed`, or None), the cost of
    max_influences (or None) and the measured cases (empty when measure=False)."""
    file: str
    output: str
    repairs: dict
    embed: Optional[dict] = None
    max_influences_cost: Optional[Truncation] = None
    cases: List[FixCase] = field(default_factory=list)


def _measure(g, opts, fps, env, err):
    out = ffi.new("sf_fix_measure_result*")
    raise_for(lib.sf_fix_measure(g, ffi.addressof(opts, "reference_opts"), fps, env, out, err), err)
    return out


def fix(input, output, morph_normals=True, weights=True, normals=True, tangents=True, max_influences=0,
        embed=None, embed_float=False, measure=True, fps=30.0, overwrite=False, threads=1):
    """Writes input (a .glb or .gltf) repaired to output (.glb, or .gltf with its buffers and images beside it),
    everything it does not repair kept, as `skinframe fix input -o output` does; each repair can be switched
    off. max_influences=K keeps each vertex's K largest weights and measures what that costs. embed=
    "jacobian-fan" adds jacobian-fan's per-vertex attributes after the repairs (snorm16; embed_float: float).
    measure: skinned with morph deltas before and after, per case, at fps for the animations. The output never
    replaces an input, and replaces an existing file only with overwrite=True. Returns a FixReport; raises a
    skinframe.Error subclass (FileExistsError for an existing output)."""
    input, output = os.fspath(input), os.fspath(output)
    if embed not in (None, "jacobian-fan"):
        raise InvalidArgument("embed: '%s', only jacobian-fan" % embed, "embed")
    if embed_float and embed is None:
        raise InvalidArgument("embed_float without embed='jacobian-fan'", "embed_float")
    if not (output.endswith(".glb") or output.endswith(".gltf")):
        raise InvalidArgument("output: '%s' does not end in .glb or .gltf" % output, "output")
    if not 0 <= int(max_influences) <= 1024:
        raise InvalidArgument("max_influences: %d is not 0..1024" % int(max_influences), "max_influences")
    if not 0.0 < float(fps) <= 10000.0:
        raise InvalidArgument("fps: %r is not in (0, 10000]" % fps, "fps")
    if os.path.lexists(output) and not overwrite:
        raise FileExistsError("output: %s exists (overwrite=True replaces it)" % output)
    opts = ffi.new("sf_fix_opts*")
    lib.sf_fix_opts_init(opts)  # the reference as eval measures assets: area, position-normal weld, MikkTSpace
    opts.morph_normals, opts.weights, opts.normals, opts.tangents = (bool(morph_normals), bool(weights),
                                                                      bool(normals), bool(tangents))
    opts.max_influences = int(max_influences)
    fps = float(fps)
    env = ffi.new("sf_env*", lib.sfpy_env(int(threads)))
    load = ffi.new("sf_gltf_opts*")
    load.generated_tangents = lib.SF_TANGENTS_MIKKTSPACE  # as eval loads assets: the reference's tangents
    err = ffi.new("sf_error*")
    out = ffi.new("sf_gltf_doc**")
    raise_for(lib.sf_gltf_doc_open(input.encode(), load, env, out, err), err)
    doc = ffi.gc(out[0], lib.sf_gltf_doc_destroy)
    report = FixReport(input, output, {})
    before = _measure(lib.sf_gltf_doc_gltf(doc), opts, fps, env, err) if measure else None
    if measure and opts.max_influences:
        t = ffi.new("sf_fix_truncation*")
        raise_for(lib.sf_fix_measure_truncation(lib.sf_gltf_doc_gltf(doc), opts.max_influences,
                                                ffi.addressof(opts, "reference_opts"), fps, env, t, err), err)
        report.max_influences_cost = Truncation(int(max_influences), int(t.truncated), t.position_mean,
                                                t.position_max, t.diagonal, AngleStats.from_c(t.normal))
    counts = ffi.new("sf_fix_counts*")
    raise_for(lib.sf_fix_apply(doc, opts, env, counts, err), err)
    report.repairs = {name: int(getattr(counts, name)) for name in COUNTS}
    if embed:
        fan = ffi.new("sf_gltf_fan_counts*")
        enc = lib.SF_FAN_FLOAT32 if embed_float else lib.SF_FAN_SNORM16
        raise_for(lib.sf_gltf_doc_embed_fan(doc, enc, fan, err), err)
        report.embed = dict(method="jacobian-fan", encoding="float" if embed_float else "snorm16",
                            **{name: int(getattr(fan, name)) for name in FAN_COUNTS})
    n = ffi.new("size_t*")
    inputs = lib.sf_gltf_doc_inputs(doc, n)
    raise_for(lib.sf_gltf_doc_save(doc, output.encode(), inputs, n[0], err), err)
    del doc  # the output is measured as a reader loads it
    if measure:
        g_out = ffi.new("sf_gltf**")
        raise_for(lib.sf_gltf_load_file(output.encode(), load, env, g_out, err), err)
        g = ffi.gc(g_out[0], lib.sf_gltf_destroy)
        after = _measure(g, opts, fps, env, err)
        for k in range(min(before.case_count, after.case_count)):
            b, a = before.cases[k], after.cases[k]
            report.cases.append(FixCase(ffi.string(b.label).decode("utf-8", "replace"),
                                        AngleStats.from_c(b.normal), AngleStats.from_c(a.normal),
                                        AngleStats.from_c(b.tangent), AngleStats.from_c(a.tangent)))
    return report
