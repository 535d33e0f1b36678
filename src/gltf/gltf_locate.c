/* An error of the core on a glTF primitive's mesh, renamed to the glTF attribute or accessor it came from. */
#include "gltf_loader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The detail of err: its message without the "field[index]: " prefix sf_error_set puts there. */
static const char* error_detail_of(const sf_error* err)
{
    const char* m = err->message;
    size_t n = strlen(err->field);
    if (n && strncmp(m, err->field, n) == 0) {
        const char* p = m + n;
        if (*p == '[') {
            const char* q = p + 1;
            while (*q >= '0' && *q <= '9') ++q;
            if (*q == ']') p = q + 1;
        }
        if (p[0] == ':' && p[1] == ' ') return p + 2;
    }
    return m;
}

/* snprintf that may cut the text (messages are one line of at most sizeof sf_error.message). */
static void put_text(char* dst, size_t size, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void put_text(char* dst, size_t size, const char* fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(dst, size, fmt, args);
    va_end(args);
}

void sf_gltf_primitive_locate_error(const sf_gltf* gltf, size_t primitive, sf_error* err)
{
    if (!gltf || !err || primitive >= gltf->primitive_count) return;
    const sf_gltf_primitive* p = &gltf->primitives[primitive];
    char base[64], field[sizeof err->field], detail[sizeof err->message];
    put_text(base, sizeof base, "meshes[%zu].primitives[%zu]", p->mesh_index, p->primitive_index);
    put_text(detail, sizeof detail, "%s", error_detail_of(err));
    const char* f = err->field;
    const char* attr = NULL;      /* the attribute the core's stream came from */
    const char* generated = NULL; /* or what the glTF layer or the core generated in its place */
    char texcoord[32], target[64];
    size_t k = 0;
    const sf_morph_target_desc* td = NULL;
    int per_vertex = 1;
    if (strcmp(f, "mesh.positions") == 0) {
        attr = "attributes.POSITION";
    } else if (strcmp(f, "mesh.normals") == 0) {
        if (p->flat_normals) generated = "normals";
        else attr = "attributes.NORMAL";
    } else if (strcmp(f, "mesh.tangents") == 0) {
        if (p->tangents == SF_GLTF_TANGENTS_SUPPLIED) attr = "attributes.TANGENT";
        else generated = "tangents";
    } else if (strcmp(f, "mesh.uvs") == 0) {
        put_text(texcoord, sizeof texcoord, "attributes.TEXCOORD_%u", p->texcoord);
        attr = texcoord;
    } else if (sscanf(f, "mesh.targets[%zu].", &k) == 1 && k < p->mesh.target_count) {
        const char* dot = strchr(f + strlen("mesh.targets["), '.');
        static const char* const names[3][2] = {
            {"position_deltas", "POSITION"}, {"normal_deltas", "NORMAL"}, {"tangent_deltas", "TANGENT"}};
        for (int s = 0; dot && s < 3; ++s)
            if (strcmp(dot + 1, names[s][0]) == 0) {
                put_text(target, sizeof target, "targets[%zu].%s", k, names[s][1]);
                attr = target;
            }
        td = &p->mesh.targets[k];
        per_vertex = td->sparse_indices == NULL; /* sparse: the index is the accessor's sparse entry */
    }
    size_t index = err->index;
    if ((attr || generated) && per_vertex && index < p->mesh.vertex_count && p->source_vertex)
        index = p->source_vertex[index];
    if (attr) {
        put_text(field, sizeof field, "%s.%s", base, attr);
        put_text(err->field, sizeof err->field, "%s", field);
        err->index = index;
        if (index == SFI_NO_INDEX)
            put_text(err->message, sizeof err->message, "%s: %s", field, detail);
        else
            put_text(err->message, sizeof err->message, "%s[%zu]: %s", field, index, detail);
    } else if (generated) {
        /* the core's detail starts "generated normals: ..." when it generated them itself */
        char prefix[32];
        put_text(prefix, sizeof prefix, "generated %s: ", generated);
        const char* d = strncmp(detail, prefix, strlen(prefix)) == 0 ? detail + strlen(prefix) : detail;
        char where[96] = "";
        if (err->index != SFI_NO_INDEX && p->flat_normals)
            put_text(where, sizeof where, " (triangle %zu, POSITION element %zu)", err->index / 3, index);
        else if (err->index != SFI_NO_INDEX)
            put_text(where, sizeof where, " (POSITION element %zu)", index);
        put_text(err->field, sizeof err->field, "%s", base);
        err->index = index;
        put_text(err->message, sizeof err->message, "generated %s of %s%s: %s", generated, base, where, d);
    } else {
        char message[sizeof err->message];
        put_text(message, sizeof message, "%s: %s", base, err->message);
        put_text(err->message, sizeof err->message, "%s", message);
    }
}
