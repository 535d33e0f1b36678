"""The text `skinframe eval` prints for an asset: the header lines and each clip's table and worst vertices,
from an AssetReport (the same formats, so that a script's output can be compared with the command's)."""


def _deg(stats, value, have=True):
    return "%.3f" % value(stats) if have and stats is not None else "-"


def _where(w):
    return "node %d mesh %d primitive %d vertex %d%s" % (w.node, w.mesh, w.primitive, w.vertex,
                                                         " (flat-split)" if w.flat_split else "")


def clip_title(clip):
    if clip.index is None:
        return "rest pose (no animation): 1 frame, %d vertices; %.3f s" % (clip.vertices, clip.seconds)
    label = clip.name or "#%d" % clip.index
    return ("animation %d '%s': %.3f s, %d frames at %g fps, %d vertices per frame; evaluated in %.3f s"
            % (clip.index, label, clip.duration_s, clip.frames, clip.fps, clip.vertices, clip.seconds))


def clip_table(clip):
    """The per-method table (mean, p95, max of the normal and tangent error, the rest pose's, the worst
    frame), then each method's worst frame and vertices."""
    lines = [clip_title(clip),
             "  %-20s%24s |%24s |%32s | %s" % ("", "normal error, deg", "tangent error, deg", "rest-pose error, deg",
                                               "worst"),
             "  %-20s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %s" % ("method", "mean", "p95", "max", "mean", "p95", "max",
                                                                 "N mean", "N max", "T mean", "T max", "frame @ t")]
    tan = clip.tangent_vertices > 0
    for m in clip.methods:
        if m.skipped is not None:
            lines.append("  %-20s skipped: %s" % (m.method, m.skipped))
            continue
        cells = [_deg(m.normal, lambda s: s.mean), _deg(m.normal, lambda s: s.p95), _deg(m.normal, lambda s: s.max),
                 _deg(m.tangent, lambda s: s.mean, tan), _deg(m.tangent, lambda s: s.p95, tan),
                 _deg(m.tangent, lambda s: s.max, tan),
                 _deg(m.rest_normal, lambda s: s.mean), _deg(m.rest_normal, lambda s: s.max),
                 _deg(m.rest_tangent, lambda s: s.mean, tan), _deg(m.rest_tangent, lambda s: s.max, tan)]
        lines.append("  %-20s%8s%8s%8s |%8s%8s%8s |%8s%8s%8s%8s | %d @ %.3fs"
                     % tuple([m.method] + cells + [m.worst_frame, m.worst_frame_time]))
    for m in clip.methods:
        if m.skipped is not None or m.normal is None:
            continue
        if m.normal.max == 0.0 and (m.tangent is None or m.tangent.max == 0.0):
            continue
        line = "  worst %s: frame %d @ %.3fs (normal mean %.3f)" % (m.method, m.worst_frame, m.worst_frame_time,
                                                                    m.worst_frame_mean)
        if m.handedness:
            line += ", handedness mismatches %d (vertex-frames)" % m.handedness
        lines.append(line)
        w = m.worst_normal
        lines.append("    normal %.3f deg at frame %d (t %.3f s), %s" % (w.angle_deg, w.frame, clip.frame_times[w.frame],
                                                                       _where(m.worst_normal_where)))
        if m.tangent is not None:
            w = m.worst_tangent
            lines.append("    tangent %.3f deg at frame %d (t %.3f s), %s"
                         % (w.angle_deg, w.frame, clip.frame_times[w.frame], _where(m.worst_tangent_where)))
    return "\n".join(lines)


def report_text(report):
    """The header and every clip's table, as `skinframe eval FILE` prints them (without the influence
    variants, the data problems and the timings)."""
    r = report.reference
    inf = report.influences
    lines = ["file: %s" % report.path,
             "reference: recompute (weighting %s, weld %s, tangents %s, directions %s)" % (
                 r["weighting"], r["weld"], r["tangents"], r["directions"]),
             "morph directions: %s" % report.morph_directions,
             "instances: %d, primitives evaluated: %d, vertices per frame: %d (%d with a tangent frame)" % (
                 report.instances, report.units, report.vertices, report.tangent_vertices)]
    if report.tangent_vertices == 0:
        lines.append("tangents not measured: no TEXCOORD")
    elif report.tangent_vertices < report.vertices:
        lines.append("tangents not measured on %d of %d vertices per frame: no TEXCOORD in their primitives"
                     % (report.vertices - report.tangent_vertices, report.vertices))
    lines.append("influences: %d of %d vertices per frame have more than 4, %d more than 8 (%d slots per vertex "
                 "in the file)" % (inf["over4"], inf["vertices"], inf["over8"], inf["max_slots"]))
    lines.append("errors in degrees against the reference over all frames and vertices; rest = identity bones, "
                 "no morph")
    lines.append("")
    for k, clip in enumerate(report.clips):
        if k:
            lines.append("")
        lines.append(clip_table(clip))
    return "\n".join(lines)
