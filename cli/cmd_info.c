/* skinframe info FILE: what a glTF holds (meshes, primitives, counts, attributes, influences, morph
 * targets, skins, animations), its UV seams and hard edges, how tangents are obtained, data problems. */
#include "gltf_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* f)
{
    fprintf(f, "Usage: skinframe info FILE [--texcoord N] [--max-influences N] [--tangents mikktspace|uv]\n"
               "                      [--max-vertices N] [--max-morph-elements N] [--max-decoded-bytes N]\n"
               "  Prints the meshes, primitives (vertex and triangle counts, attributes, influences, morph targets),\n"
               "  skins, animations (durations, interpolations), scene instances, UV seams and hard edges, how\n"
               "  normals and tangents are obtained, and data problems. --texcoord picks the TEXCOORD_n set used for\n"
               "  tangents (default 0); --max-influences is the engine limit the problems are checked against (4);\n"
               "  --tangents says how missing tangents are generated (default mikktspace, as glTF recommends).\n"
               "  --max-vertices N, --max-morph-elements N and --max-decoded-bytes N raise the loader's limits on what\n"
               "  the file may cost, checked before anything is decoded (defaults: 16777216 vertices per primitive,\n"
               "  67108864 morph target x vertex elements per primitive, 64 MiB + 64 x the input's size decoded, of\n"
               "  which the parsed JSON at most 64 MiB + 16 x its text).\n");
}

static const char* mode_name(uint32_t mode)
{
    return mode == 5 ? "TRIANGLE_STRIP (converted)" : mode == 6 ? "TRIANGLE_FAN (converted)" : "TRIANGLES";
}

static void print_primitive(const sf_gltf* g, size_t p, uint32_t limit)
{
    const sf_gltf_primitive* pr = &g->primitives[p];
    const sf_mesh_desc* m = &pr->mesh;
    printf("  primitive %zu: %zu vertices, %zu triangles, %s\n", pr->primitive_index, pr->source_vertex_count,
           m->triangle_count, mode_name(pr->mode));
    printf("    attributes: %s\n", pr->attributes);
    if (pr->compression && pr->compression[0]) printf("    compression: %s\n", pr->compression);
    if (pr->flat_normals)
        printf("    normals: none in the file; flat normals generated (glTF rule), %zu vertices after splitting per face\n",
               m->vertex_count);
    else
        printf("    normals: authored\n");
    const char* tangents = pr->tangents == SF_GLTF_TANGENTS_SUPPLIED               ? "supplied (TANGENT)"
                           : pr->tangents == SF_GLTF_TANGENTS_GENERATED_UV          ? "generated (uv)"
                           : pr->tangents == SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE ? "generated (mikktspace)"
                                                                                    : "none (no TEXCOORD set)";
    printf("    tangents: %s", tangents);
    if (pr->tangents != SF_GLTF_TANGENTS_NONE && pr->texcoord_sets > pr->texcoord)
        printf(", from TEXCOORD_%u", pr->texcoord);
    else if (pr->tangents == SF_GLTF_TANGENTS_SUPPLIED)
        printf(", unused: no TEXCOORD_%u (a tangent frame needs UVs; bake leaves them out)", pr->texcoord);
    if (pr->tangents == SF_GLTF_TANGENTS_GENERATED_MIKKTSPACE)
        printf("; %zu vertices split where their corners got different tangents (%zu vertices after splitting)",
               pr->mikktspace_split_vertices, m->vertex_count);
    printf("\n");
    sf_gltf_inspection in;
    sf_error err;
    if (sf_gltf_primitive_inspect(g, p, limit, NULL, &in, &err) != SF_OK) {
        printf("    inspection failed: %s\n", err.message);
        return;
    }
    if (m->influence_count) {
        printf("    influences: %u per vertex (%u JOINTS/WEIGHTS set%s), at most %u non-zero; vertices by count:",
               m->influence_count, pr->joint_sets, pr->joint_sets == 1 ? "" : "s", in.max_influences);
        for (int k = 0; k <= 16; ++k)
            if (in.influence_histogram[k]) printf(" %d:%zu", k, in.influence_histogram[k]);
        printf("\n");
    } else {
        printf("    influences: none (not skinned)\n");
    }
    if (m->target_count) {
        printf("    morph targets: %zu with %s deltas", m->target_count, pr->target_attributes);
        if (in.sparse_targets) printf(" (%zu kept sparse)", in.sparse_targets);
        printf("\n");
        /* Counts of the file's vertices: a primitive split per corner (flat normals, or corners that got different
         * MikkTSpace tangents) holds some of them several times. */
        bool split = pr->flat_normals || pr->mikktspace_split_vertices;
        uint32_t* seen = split ? calloc(pr->source_vertex_count + 1, sizeof(uint32_t)) : NULL;
        for (size_t k = 0; k < m->target_count; ++k) {
            const sf_morph_target_desc* t = &m->targets[k];
            size_t count = t->sparse_indices ? t->sparse_count : m->vertex_count, moved = 0, turned = 0, tang = 0;
            for (size_t i = 0; i < count; ++i) {
                size_t v = t->sparse_indices ? t->sparse_indices[i] : i;
                size_t sv = seen && v < m->vertex_count ? pr->source_vertex[v] : SIZE_MAX;
                if (sv < pr->source_vertex_count && seen[sv] == k + 1) continue; /* a copy: counted */
                if (sv < pr->source_vertex_count) seen[sv] = (uint32_t)k + 1;
                const float* d = t->position_deltas + 3 * i;
                moved += d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f;
                if (t->normal_deltas) {
                    d = t->normal_deltas + 3 * i;
                    turned += d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f;
                }
                if (t->tangent_deltas) {
                    d = t->tangent_deltas + 3 * i;
                    tang += d[0] != 0.0f || d[1] != 0.0f || d[2] != 0.0f;
                }
            }
            printf("      target %zu '%s': moves %zu vertices, %zu normal deltas%s, %zu tangent deltas%s\n", k,
                   g->meshes[pr->mesh_index].target_names[k], moved, turned, t->normal_deltas ? "" : " (no NORMAL)",
                   tang, t->tangent_deltas ? "" : " (no TANGENT)");
        }
        free(seen);
    }
    printf("    UV seams: %zu of %zu positions; hard edges: %zu positions%s\n", in.uv_seam_positions,
           in.unique_positions, in.hard_edge_positions, pr->flat_normals ? " (normals generated flat)" : "");
    int any = 0;
    for (int k = 0; k < SF_GLTF_PROBLEM_COUNT; ++k) {
        const sf_gltf_problem_stat* s = &in.problems[k];
        if (!s->count) continue;
        if (!any) printf("    data problems:\n");
        any = 1;
        printf("      %-28s %zu (worst: #%zu, %g)\n        %s\n", sf_gltf_problem_name((sf_gltf_problem)k), s->count,
               s->worst_index, s->worst_value, sf_gltf_problem_description((sf_gltf_problem)k));
    }
    if (!any) printf("    data problems: none\n");
}

int cmd_info(int argc, char** argv)
{
    const char* path = NULL;
    size_t texcoord = 0, limit = 4;
    sf_tangent_mode generated = SF_TANGENTS_MIKKTSPACE;
    for (int i = 1; i < argc; ++i) {
        const char* v;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_gltf_parse_counts(argc, argv, &i, &texcoord, &limit)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            continue;
        }
        if ((r = cli_flag_value(argc, argv, &i, "--tangents", &v)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
            if (strcmp(v, "uv") == 0)
                generated = SF_TANGENTS_UV;
            else if (strcmp(v, "mikktspace") == 0)
                generated = SF_TANGENTS_MIKKTSPACE;
            else
                return cli_fail(CLI_EXIT_USAGE, "--tangents: '%s' is not uv or mikktspace", v);
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) return cli_fail(CLI_EXIT_USAGE, "info: unknown flag %s", argv[i]);
        if (path) return cli_fail(CLI_EXIT_USAGE, "info: one FILE only (got %s and %s)", path, argv[i]);
        path = argv[i];
    }
    if (!path) return cli_fail(CLI_EXIT_USAGE, "info: missing FILE (see skinframe info --help)");
    sf_gltf* g;
    int code = cli_gltf_load(path, NULL, (uint32_t)texcoord, generated, &g);
    if (code != CLI_EXIT_OK) return code;

    printf("file: %s\n", path);
    printf("generator: %s\n", g->generator[0] ? g->generator : "(none)");
    printf("extensions required: %s\n", g->extensions_required[0] ? g->extensions_required : "(none)");
    printf("nodes: %zu, meshes: %zu, primitives: %zu, skins: %zu, animations: %zu, scenes: %zu\n", g->node_count,
           g->mesh_count, g->primitive_count, g->skin_count, g->animation_count, g->scene_count);
    size_t total_v = 0, total_t = 0;
    for (size_t p = 0; p < g->primitive_count; ++p) {
        total_v += g->primitives[p].source_vertex_count;
        total_t += g->primitives[p].mesh.triangle_count;
    }
    printf("totals: %zu vertices, %zu triangles\n", total_v, total_t);
    if (g->skipped_primitives)
        printf("warning: %zu POINTS/LINES primitive(s) skipped (only triangles are evaluated)\n", g->skipped_primitives);
    for (size_t mi = 0; mi < g->mesh_count; ++mi) {
        const sf_gltf_mesh* m = &g->meshes[mi];
        printf("mesh %zu '%s': %zu primitive(s), %zu morph target(s)", mi, m->name, m->primitive_count, m->target_count);
        if (m->target_count) {
            printf(", default weights [");
            for (size_t k = 0; k < m->target_count; ++k) printf("%s%g", k ? ", " : "", (double)m->weights[k]);
            printf("]");
        }
        printf("\n");
        for (size_t p = m->first_primitive; p < m->first_primitive + m->primitive_count; ++p)
            print_primitive(g, p, (uint32_t)limit);
    }
    for (size_t s = 0; s < g->skin_count; ++s) {
        const sf_gltf_skin* sk = &g->skins[s];
        printf("skin %zu '%s': %zu joints", s, sk->name, sk->joint_count);
        if (sk->skeleton != SF_GLTF_NONE) printf(", skeleton node %zu", sk->skeleton);
        printf(", used by nodes [");
        int first = 1;
        for (size_t n = 0; n < g->node_count; ++n)
            if (g->nodes[n].skin == s && g->nodes[n].mesh != SF_GLTF_NONE) {
                printf("%s%zu", first ? "" : ", ", n);
                first = 0;
            }
        printf("]\n");
    }
    for (size_t a = 0; a < g->animation_count; ++a) {
        const sf_gltf_animation* an = &g->animations[a];
        size_t by_interp[3] = {0, 0, 0}, by_path[4] = {0, 0, 0, 0};
        for (size_t c = 0; c < an->channel_count; ++c) {
            by_interp[an->channels[c].interpolation]++;
            by_path[an->channels[c].path]++;
        }
        char label[64];
        printf("animation %zu '%s': %.3f s (keys %.3f..%.3f), %zu channels:", a,
               cli_gltf_animation_label(g, a, label, sizeof label), an->end_s, an->start_s, an->end_s,
               an->channel_count);
        for (int k = 0; k < 3; ++k)
            if (by_interp[k]) printf(" %s %zu", cli_gltf_interpolation_name((sf_gltf_interpolation)k), by_interp[k]);
        printf(";");
        for (int k = 0; k < 4; ++k)
            if (by_path[k]) printf(" %s %zu", cli_gltf_path_name((sf_gltf_path)k), by_path[k]);
        printf("\n");
    }
    for (size_t i = 0; i < g->instance_count; ++i) {
        const sf_gltf_instance* in = &g->instances[i];
        printf("instance %zu: node %zu '%s' draws mesh %zu", i, in->node, g->nodes[in->node].name, in->mesh);
        if (in->skin != SF_GLTF_NONE)
            printf(", skinned by skin %zu (%zu bones)\n", in->skin, in->bone_count);
        else
            printf(", rigid (moved by its node transform)\n");
    }
    sf_gltf_destroy(g);
    return CLI_EXIT_OK;
}
