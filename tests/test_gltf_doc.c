// LABELS: unit
/* The glTF rewriter (skinframe_gltf.h, "rewriting"): every staged asset written back keeps its JSON tree and
 * buffer bytes and is stable when rewritten; slots written in place or as new accessors change only their
 * own bytes; the refusals (an output onto an input, an unknown required extension, a truncated file). */
#define _POSIX_C_SOURCE 200809L
#include "sf_test.h"
#include "skinframe_files.h"
#include "skinframe_gltf.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[256];

static const char* tmp_path(const char* name, char* buf, size_t size)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "%s/sf_doc_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(g_dir)) abort();
    }
    snprintf(buf, size, "%s/%s", g_dir, name);
    return buf;
}

static const char* const staged[] = {
    "gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", "gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
    "gltf/Fox/glTF-Binary/Fox.glb", "gltf/MorphStressTest/glTF-Binary/MorphStressTest.glb",
    "gltf/SimpleMorph/glTF/SimpleMorph.gltf", "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
    "gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
    "gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"};

/* The JSON chunk of a .glb, or the whole text of a .gltf, parsed. */
static cJSON* json_of(const char* path)
{
    size_t size = 0;
    char* data = sft_read_file(path, &size);
    if (!data) return NULL;
    cJSON* root;
    if (size > 20 && memcmp(data, "glTF", 4) == 0) {
        uint32_t len;
        memcpy(&len, data + 12, 4);
        root = cJSON_ParseWithLength(data + 20, len);
    } else {
        root = cJSON_Parse(data);
    }
    free(data);
    return root;
}

static void roundtrip_keeps_everything(void)
{
    char buf[1024], out[512], again[512];
    int found = 0;
    for (size_t i = 0; i < sizeof staged / sizeof staged[0]; ++i) {
        const char* in = sft_asset(staged[i], buf, sizeof buf);
        if (!in) continue;
        found++;
        const char* ext = strrchr(in, '.');
        char name[64];
        snprintf(name, sizeof name, "rt%zu%s", i, ext);
        tmp_path(name, out, sizeof out);
        snprintf(name, sizeof name, "rt%zu_again%s", i, ext);
        tmp_path(name, again, sizeof again);
        sf_gltf_doc* doc = NULL;
        sf_error err;
        CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
        CHECK_OK(sf_gltf_doc_save(doc, out, NULL, 0, &err));
        sf_gltf_doc_destroy(doc);
        cJSON *a = json_of(in), *b = json_of(out);
        CHECK(a && b && cJSON_Compare(a, b, 1)); /* the tree, member by member */
        cJSON_Delete(a);
        cJSON_Delete(b);
        /* every buffer reads back the same bytes */
        sf_gltf_doc *d1 = NULL, *d2 = NULL;
        CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &d1, &err));
        CHECK_OK(sf_gltf_doc_open(out, NULL, NULL, &d2, &err));
        sf_gltf_accessor_info info;
        for (size_t k = 0; sf_gltf_doc_accessor_info(d1, k, &info, NULL) == SF_OK; ++k) {
            if (info.components > 4) continue;
            float* x = calloc(info.count * info.components, sizeof(float));
            float* y = calloc(info.count * info.components, sizeof(float));
            CHECK_OK(sf_gltf_doc_read(d1, k, x, &err));
            CHECK_OK(sf_gltf_doc_read(d2, k, y, &err));
            CHECK(memcmp(x, y, info.count * info.components * sizeof(float)) == 0);
            free(x);
            free(y);
        }
        CHECK_OK(sf_gltf_doc_save(d2, again, NULL, 0, &err));
        sf_gltf_doc_destroy(d1);
        sf_gltf_doc_destroy(d2);
        size_t s1 = 0, s2 = 0;
        char *f1 = sft_read_file(out, &s1), *f2 = sft_read_file(again, &s2);
        CHECK(f1 && f2 && s1 == s2 && memcmp(f1, f2, s1) == 0); /* rewriting a rewritten file: same bytes */
        free(f1);
        free(f2);
    }
    if (!found) sft_skip("SF_ASSETS not set");
}

/* A slot written with other values: in place when the accessor is the slot's own, as a new accessor when it
 * shares its bufferView; a new attribute appended; equal values change nothing. */
static void set_in_place_and_append(void)
{
    char buf[1024], out[512];
    const char* in = sft_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", buf, sizeof buf);
    if (!in) {
        sft_skip("SF_ASSETS not set");
        return;
    }
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    cJSON* before = cJSON_Duplicate(sf_gltf_doc_json(doc), 1);
    sf_gltf_slot normal = {0, 0, 0, "NORMAL"};
    size_t a = sf_gltf_doc_accessor(doc, &normal);
    sf_gltf_accessor_info info;
    CHECK_OK(sf_gltf_doc_accessor_info(doc, a, &info, &err));
    float* v = calloc(info.count * 3, sizeof(float));
    CHECK_OK(sf_gltf_doc_read(doc, a, v, &err));
    int changed = -1;
    sf_gltf_values same = {v, info.count, 3, info.component_type, info.normalized};
    CHECK_OK(sf_gltf_doc_set(doc, &normal, &same, &changed, &err));
    CHECK(changed == 0);
    CHECK(cJSON_Compare(before, sf_gltf_doc_json(doc), 1));
    for (size_t i = 0; i < info.count * 3; ++i) v[i] = (float)(i % 7) * 0.125f;
    CHECK_OK(sf_gltf_doc_set(doc, &normal, &same, &changed, &err));
    CHECK(changed == 1);
    CHECK(sf_gltf_doc_accessor(doc, &normal) == a || sf_gltf_doc_accessor(doc, &normal) > a);
    float* back = calloc(info.count * 3, sizeof(float));
    CHECK_OK(sf_gltf_doc_read(doc, sf_gltf_doc_accessor(doc, &normal), back, &err));
    CHECK(memcmp(back, v, info.count * 3 * sizeof(float)) == 0);
    /* an application-specific attribute: a new accessor after the others, the old ones untouched */
    sf_gltf_slot fan = {0, 0, SF_GLTF_NONE, "_SKINFRAME_FAN_0"};
    CHECK(sf_gltf_doc_accessor(doc, &fan) == SF_GLTF_NONE);
    sf_gltf_values fv = {v, info.count, 3, 5126, 0};
    CHECK_OK(sf_gltf_doc_set(doc, &fan, &fv, &changed, &err));
    size_t added = sf_gltf_doc_accessor(doc, &fan);
    CHECK(changed == 1 && added != SF_GLTF_NONE && added != a);
    tmp_path("set.glb", out, sizeof out);
    CHECK_OK(sf_gltf_doc_save(doc, out, NULL, 0, &err));
    sf_gltf_doc* d2 = NULL;
    CHECK_OK(sf_gltf_doc_open(out, NULL, NULL, &d2, &err));
    CHECK(sf_gltf_doc_accessor(d2, &fan) == added);
    CHECK_OK(sf_gltf_doc_read(d2, added, back, &err));
    CHECK(memcmp(back, v, info.count * 3 * sizeof(float)) == 0);
    /* every accessor the file had still reads as before, but the one rewritten */
    sf_gltf_doc* d0 = NULL;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &d0, &err));
    for (size_t k = 0; sf_gltf_doc_accessor_info(d0, k, &info, NULL) == SF_OK; ++k) {
        if (k == a || info.components > 4) continue;
        float* x = calloc(info.count * info.components, sizeof(float));
        float* y = calloc(info.count * info.components, sizeof(float));
        CHECK_OK(sf_gltf_doc_read(d0, k, x, &err));
        CHECK_OK(sf_gltf_doc_read(d2, k, y, &err));
        CHECK(memcmp(x, y, info.count * info.components * sizeof(float)) == 0);
        free(x);
        free(y);
    }
    sf_gltf_doc_destroy(d0);
    sf_gltf_doc_destroy(d2);
    sf_gltf_doc_destroy(doc);
    cJSON_Delete(before);
    free(v);
    free(back);
}

static void write_text(const char* path, const char* text)
{
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A small .gltf with an external buffer and an image, and the rules of its outputs. */
static void gltf_outputs_and_refusals(void)
{
    char in[512], bin[512], png[512], out[600], sub[300], path[512];
    tmp_path("tri.gltf", in, sizeof in);
    tmp_path("tri.bin", bin, sizeof bin);
    tmp_path("tex.png", png, sizeof png);
    float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    FILE* f = fopen(bin, "wb");
    CHECK(f && fwrite(tri, sizeof tri, 1, f) == 1);
    if (f) fclose(f);
    write_text(png, "not really a png, copied byte for byte");
    write_text(in, "{\"asset\":{\"version\":\"2.0\",\"extras\":{\"kept\":[1,2]}},\"extensionsUsed\":[\"EXT_someone_else\"],"
                   "\"buffers\":[{\"uri\":\"tri.bin\",\"byteLength\":36}],"
                   "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"images\":[{\"uri\":\"tex.png\"}],"
                   "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
                   "\"min\":[0,0,0],\"max\":[1,1,0]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
                   "\"extensions\":{\"EXT_someone_else\":{\"x\":1}}}]}],\"nodes\":[{\"mesh\":0}]}");
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err));
    CHECK_RESULT(sf_gltf_doc_save(doc, in, NULL, 0, &err), SF_ERROR_IO);  /* onto the input */
    CHECK_RESULT(sf_gltf_doc_save(doc, bin, NULL, 0, &err), SF_ERROR_INVALID_ARGUMENT); /* not .gltf/.glb */
    tmp_path("tri_out.gltf", path, sizeof path);
    CHECK_RESULT(sf_gltf_doc_save(doc, path, (const char* const[]){path}, 1, &err), SF_ERROR_IO); /* protected */
    snprintf(sub, sizeof sub, "%s/sub", g_dir);
    CHECK(mkdir(sub, 0777) == 0);
    snprintf(out, sizeof out, "%s/fixed.gltf", sub);
    float moved[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0};
    sf_gltf_slot pos = {0, 0, SF_GLTF_NONE, "POSITION"};
    sf_gltf_values mv = {moved, 3, 3, 5126, 0};
    int changed = 0;
    CHECK_OK(sf_gltf_doc_set(doc, &pos, &mv, &changed, &err));
    CHECK(changed == 1);
    CHECK_OK(sf_gltf_doc_save(doc, out, NULL, 0, &err));
    sf_gltf_doc_destroy(doc);
    char copy[600];
    snprintf(copy, sizeof copy, "%s/tex.png", sub);
    size_t s1 = 0, s2 = 0;
    char *a = sft_read_file(png, &s1), *b = sft_read_file(copy, &s2);
    CHECK(a && b && s1 == s2 && memcmp(a, b, s1) == 0); /* the image beside the new .gltf, byte for byte */
    free(a);
    free(b);
    snprintf(copy, sizeof copy, "%s/fixed.bin", sub); /* the changed buffer under the output's name */
    b = sft_read_file(copy, &s2);
    CHECK(b && s2 == 36 && memcmp(b, moved, 36) == 0);
    free(b);
    cJSON* root = json_of(out);
    const cJSON* acc = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "accessors"), 0);
    CHECK(cJSON_GetArrayItem(cJSON_GetObjectItem(acc, "max"), 0)->valuedouble == 2.0); /* bounds updated */
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "asset"), "extras") != NULL);
    char* text = cJSON_PrintUnformatted(root);
    CHECK(text && strstr(text, "EXT_someone_else\":{\"x\":1}") != NULL); /* an unknown extension kept */
    cJSON_free(text);
    cJSON_Delete(root);
}

/* Files the rewriter refuses to open: an unknown required extension (named), a truncated .glb. */
static void refusals(void)
{
    char in[512], buf[1024];
    tmp_path("req.gltf", in, sizeof in);
    write_text(in, "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_made_up\"],"
                   "\"extensionsRequired\":[\"EXT_made_up\"]}");
    sf_gltf_doc* doc = NULL;
    sf_error err;
    CHECK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err) != SF_OK && doc == NULL);
    CHECK(strstr(err.message, "EXT_made_up") != NULL);
    const char* fox = sft_asset("gltf/Fox/glTF-Binary/Fox.glb", buf, sizeof buf);
    if (!fox) return;
    size_t size = 0;
    char* data = sft_read_file(fox, &size);
    tmp_path("cut.glb", in, sizeof in);
    FILE* f = fopen(in, "wb");
    CHECK(f && data && fwrite(data, size / 2, 1, f) == 1);
    if (f) fclose(f);
    free(data);
    CHECK(sf_gltf_doc_open(in, NULL, NULL, &doc, &err) != SF_OK && doc == NULL);
}

/* A .glb saved as .gltf: its BIN chunk becomes the buffer "<name>.bin" beside it (buffers[0] had no uri: the
 * sanitizer build also checks that naming it leaks nothing), and every accessor reads back the same. */
static void glb_saved_as_gltf(void)
{
    char buf[1024], out[512], bin[512];
    const char* in = sft_asset("gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", buf, sizeof buf);
    CHECK(in != NULL); /* SF_ASSETS */
    if (!in) return;
    tmp_path("from_glb.gltf", out, sizeof out);
    tmp_path("from_glb.bin", bin, sizeof bin);
    sf_gltf_doc *d0 = NULL, *d1 = NULL;
    sf_error err;
    CHECK_OK(sf_gltf_doc_open(in, NULL, NULL, &d0, &err));
    CHECK_OK(sf_gltf_doc_save(d0, out, NULL, 0, &err));
    cJSON* root = json_of(out);
    const cJSON* b0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "buffers"), 0);
    const cJSON* uri = cJSON_GetObjectItemCaseSensitive(b0, "uri");
    CHECK(cJSON_IsString(uri) && strcmp(uri->valuestring, "from_glb.bin") == 0);
    cJSON_Delete(root);
    struct stat st;
    CHECK(stat(bin, &st) == 0 && st.st_size > 0);
    CHECK_OK(sf_gltf_doc_open(out, NULL, NULL, &d1, &err));
    sf_gltf_accessor_info info;
    size_t read = 0;
    for (size_t k = 0; d1 && sf_gltf_doc_accessor_info(d0, k, &info, NULL) == SF_OK; ++k) {
        if (info.components > 4) continue;
        float* x = calloc(info.count * info.components + 1, sizeof(float));
        float* y = calloc(info.count * info.components + 1, sizeof(float));
        CHECK_OK(sf_gltf_doc_read(d0, k, x, &err));
        CHECK_OK(sf_gltf_doc_read(d1, k, y, &err));
        CHECK(memcmp(x, y, info.count * info.components * sizeof(float)) == 0);
        free(x);
        free(y);
        ++read;
    }
    CHECK(read > 0);
    sf_gltf_doc_destroy(d0);
    sf_gltf_doc_destroy(d1);
}

int main(int argc, char** argv)
{
    static const sft_case cases[] = {
        {"roundtrip_keeps_everything", roundtrip_keeps_everything},
        {"set_in_place_and_append", set_in_place_and_append},
        {"gltf_outputs_and_refusals", gltf_outputs_and_refusals},
        {"refusals", refusals},
        {"glb_saved_as_gltf", glb_saved_as_gltf},
    };
    return SFT_RUN(cases, argc, argv);
}
