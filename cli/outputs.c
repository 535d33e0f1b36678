/* The output rules of every command (outputs.h): names, inputs, what an existing file may be, atomic
 * writes. One command runs per process, so the inputs and --force are kept here for it. */
#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PATH_CAP 4096
#define JSON_CHECK_MAX_BYTES ((size_t)512 << 20) /* a larger existing file is not parsed: not ours */

static char** g_inputs; /* resolved paths, kept until the process ends */
static size_t g_input_count, g_input_cap;
static bool g_force;

static const char* const extensions[CLI_OUTPUT_KIND_COUNT] = {".glb", ".png", ".csv", ".json", ".json", ".txt",
                                                                 ".gltf"};
static const char* const kind_names[CLI_OUTPUT_KIND_COUNT] = {
    "a .glb written by skinframe",       "a PNG image",
    "a CSV written by skinframe eval",   "a JSON dump written by skinframe compare",
    "a demo.json written by skinframe demo", "a demo.txt written by skinframe demo",
    "a .gltf written by skinframe"};

void cli_outputs_reset(void)
{
    for (size_t k = 0; k < g_input_count; ++k) free(g_inputs[k]);
    free(g_inputs);
    g_inputs = NULL;
    g_input_count = g_input_cap = 0;
    g_force = false;
}

int cli_outputs_parse_force(char** argv, int i)
{
    int r = cli_flag_switch(argv, i, "--force");
    if (r > 0) g_force = true;
    return r;
}

int cli_outputs_add_inputs(const char* const* paths, size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        if (g_input_count == g_input_cap) {
            size_t cap = g_input_cap ? 2 * g_input_cap : 16;
            char** grown = realloc(g_inputs, cap * sizeof *grown);
            if (!grown) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
            g_inputs = grown;
            g_input_cap = cap;
        }
        char resolved[PATH_CAP];
        if (sf_file_resolve(paths[k], resolved, sizeof resolved, NULL) != SF_OK)
            snprintf(resolved, sizeof resolved, "%s", paths[k]);
        size_t n = strlen(resolved);
        char* copy = malloc(n + 1);
        if (!copy) return cli_fail(CLI_EXIT_FAILURE, "out of memory");
        memcpy(copy, resolved, n + 1);
        g_inputs[g_input_count++] = copy;
    }
    return CLI_EXIT_OK;
}

int cli_output_name(const char* flag, const char* path, cli_output_kind kind)
{
    if (!path || !*path) return cli_fail(CLI_EXIT_USAGE, "%s: the file name is empty", flag);
    const char* ext = extensions[kind];
    if (!cli_ends_with(path, ext) || strlen(path) == strlen(ext) || path[strlen(path) - strlen(ext) - 1] == '/')
        return cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not a %s file name (it must end in %s)", flag, path, ext + 1, ext);
    return CLI_EXIT_OK;
}

/* The input that path is, or NULL. */
static const char* input_match(const char* path)
{
    char resolved[PATH_CAP];
    bool have = sf_file_resolve(path, resolved, sizeof resolved, NULL) == SF_OK;
    for (size_t k = 0; k < g_input_count; ++k)
        if ((have && strcmp(resolved, g_inputs[k]) == 0) || sf_file_same(path, g_inputs[k])) return g_inputs[k];
    return NULL;
}

int cli_output_not_input(const char* flag, const char* path)
{
    const char* input = input_match(path);
    if (input) return cli_fail(CLI_EXIT_USAGE, "%s: %s is an input of this command (%s)", flag, path, input);
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- what an existing file holds */

static uint32_t le32(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Reads up to cap bytes from the start of f (NUL-terminated, *n bytes); NULL when out of memory. */
static char* read_head(FILE* f, size_t cap, size_t* n)
{
    char* buf = malloc(cap + 1);
    if (!buf) return NULL;
    *n = fread(buf, 1, cap, f);
    buf[*n] = '\0';
    return buf;
}

static bool glb_is_ours(FILE* f)
{
    uint8_t h[20];
    if (fread(h, 1, sizeof h, f) != sizeof h) return false;
    if (memcmp(h, "glTF", 4) != 0 || le32(h + 4) != 2 || le32(h + 16) != 0x4E4F534Au) return false;
    size_t len = le32(h + 12);
    if (len > JSON_CHECK_MAX_BYTES) return false;
    size_t n;
    char* text = read_head(f, len, &n);
    if (!text) return false;
    cJSON* root = n == len ? cJSON_ParseWithLength(text, n) : NULL;
    free(text);
    const cJSON* gen = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "asset"), "generator");
    bool ours = cJSON_IsString(gen) && strncmp(gen->valuestring, "skinframe", 9) == 0;
    cJSON_Delete(root);
    return ours;
}

/* A .gltf whose asset.generator starts with "skinframe" (fix writes so). */
static bool gltf_is_ours(FILE* f, off_t size)
{
    if (size < 0 || (uintmax_t)size > JSON_CHECK_MAX_BYTES) return false;
    size_t n;
    char* text = read_head(f, (size_t)size, &n);
    if (!text) return false;
    cJSON* root = cJSON_ParseWithLength(text, n);
    free(text);
    const cJSON* gen = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "asset"), "generator");
    bool ours = cJSON_IsString(gen) && strncmp(gen->valuestring, "skinframe", 9) == 0;
    cJSON_Delete(root);
    return ours;
}

static bool png_is_ours(FILE* f)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    uint8_t h[16];
    return fread(h, 1, sizeof h, f) == sizeof h && memcmp(h, sig, 8) == 0 && memcmp(h + 12, "IHDR", 4) == 0;
}

/* The first line (without \r\n) into line; false when longer than size - 1. */
static bool first_line(FILE* f, char* line, size_t size)
{
    if (!fgets(line, (int)size, f)) return false;
    size_t n = strcspn(line, "\r\n");
    if (line[n] == '\0' && !feof(f)) return false; /* cut */
    line[n] = '\0';
    return true;
}

/* A dump's fixed opening (cli/report.c dump_body): the scene, its counts, then the positions, in the first
 * DUMP_HEAD_BYTES; an old dump of any size is recognised without reading the rest. */
#define DUMP_HEAD_BYTES ((size_t)64 << 10)
static bool dump_is_ours(FILE* f)
{
    size_t n;
    char* text = read_head(f, DUMP_HEAD_BYTES, &n);
    if (!text) return false;
    const char* p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    static const char* const keys[] = {"\"vertex_count\":", "\"triangle_count\":", "\"positions\":["};
    bool ours = strncmp(p, "{\"scene\":", 9) == 0;
    for (size_t k = 0; ours && k < sizeof keys / sizeof keys[0]; ++k) {
        p = strstr(p, keys[k]);
        ours = p != NULL;
    }
    free(text);
    return ours;
}

static bool json_is_ours(FILE* f, cli_output_kind kind, off_t size)
{
    if (size < 0 || (uintmax_t)size > JSON_CHECK_MAX_BYTES) return false;
    size_t n;
    char* text = read_head(f, (size_t)size, &n);
    if (!text) return false;
    const char* p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    bool ours = false;
    if (*p == (kind == CLI_OUTPUT_DUMP_JSON ? '{' : '[')) {
        cJSON* root = cJSON_ParseWithLength(text, n);
        if (kind == CLI_OUTPUT_DUMP_JSON) {
            ours = cJSON_IsObject(root) && cJSON_HasObjectItem(root, "positions") &&
                   cJSON_HasObjectItem(root, "indices") && cJSON_HasObjectItem(root, "methods");
        } else if (cJSON_IsArray(root)) {
            ours = true;
            const cJSON* e;
            cJSON_ArrayForEach(e, root) ours = ours && cJSON_IsObject(e) && cJSON_HasObjectItem(e, "case_id");
        }
        cJSON_Delete(root);
    }
    free(text);
    return ours;
}

static bool is_ours(FILE* f, cli_output_kind kind, off_t size)
{
    char line[512];
    switch (kind) {
    case CLI_OUTPUT_GLB: return glb_is_ours(f);
    case CLI_OUTPUT_GLTF: return gltf_is_ours(f, size);
    case CLI_OUTPUT_PNG: return png_is_ours(f);
    case CLI_OUTPUT_EVAL_CSV: /* one asset, or a batch (a first column naming the file) */
        return first_line(f, line, sizeof line) &&
               (strcmp(line, CLI_EVAL_CSV_HEADER) == 0 || strcmp(line, "file," CLI_EVAL_CSV_HEADER) == 0);
    case CLI_OUTPUT_DUMP_JSON: return dump_is_ours(f);
    case CLI_OUTPUT_DEMO_JSON: return json_is_ours(f, kind, size);
    case CLI_OUTPUT_DEMO_TEXT:
        return first_line(f, line, sizeof line) && strncmp(line, "case ", 5) == 0 && strstr(line, " morph ") &&
               strstr(line, " method ");
    default: return false;
    }
}

static const char* type_name(mode_t mode)
{
    return S_ISDIR(mode) ? "a folder" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "not a regular file";
}

int cli_output_check(const char* flag, const char* path, cli_output_kind kind)
{
    int code = cli_output_name(flag, path, kind);
    if (code != CLI_EXIT_OK) return code;
    const char* input = input_match(path);
    if (input) return cli_fail(CLI_EXIT_USAGE, "%s: %s is an input of this command (%s)", flag, path, input);
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return CLI_EXIT_OK; /* a new file (a missing folder fails at the write) */
        return cli_fail(CLI_EXIT_USAGE, "%s: %s: %s", flag, path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) return cli_fail(CLI_EXIT_USAGE, "%s: %s exists and is %s", flag, path, type_name(st.st_mode));
    if (g_force || st.st_size == 0) return CLI_EXIT_OK;
    FILE* f = fopen(path, "rb");
    if (!f) return cli_fail(CLI_EXIT_USAGE, "%s: cannot read %s to see what it is: %s", flag, path, strerror(errno));
    bool ours = is_ours(f, kind, st.st_size);
    fclose(f);
    if (!ours)
        return cli_fail(CLI_EXIT_USAGE, "%s: refusing to replace %s: it is not %s (--force replaces it)", flag, path,
                        kind_names[kind]);
    return CLI_EXIT_OK;
}

int cli_output_open(const char* flag, const char* path, cli_output_kind kind, sf_file_writer** out)
{
    *out = NULL;
    int code = cli_output_check(flag, path, kind);
    if (code != CLI_EXIT_OK) return code;
    sf_error err;
    if (sf_file_writer_open(path, out, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", flag, err.message);
    return CLI_EXIT_OK;
}

int cli_output_commit(const char* flag, sf_file_writer* writer)
{
    sf_error err;
    if (sf_file_writer_commit(writer, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s: %s", flag, err.message);
    return CLI_EXIT_OK;
}

int cli_output_write(const char* flag, const char* path, cli_output_kind kind, const void* data, size_t size)
{
    int code = cli_output_check(flag, path, kind);
    if (code != CLI_EXIT_OK) return code;
    sf_error err;
    if (sf_file_write_atomic(path, data, size, &err) != SF_OK) return cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
    return CLI_EXIT_OK;
}

int cli_output_folder(const char* flag, const char* path)
{
    if (!path || !*path) return cli_fail(CLI_EXIT_USAGE, "%s: the folder name is empty", flag);
    for (int k = 0; k < CLI_OUTPUT_KIND_COUNT; ++k)
        if (cli_ends_with(path, extensions[k]))
            return cli_fail(CLI_EXIT_USAGE, "%s: '%s' names a %s file, but several files need a folder", flag, path,
                            extensions[k] + 1);
    const char* input = input_match(path);
    if (input) return cli_fail(CLI_EXIT_USAGE, "%s: %s is an input of this command (%s)", flag, path, input);
    return cli_make_dir(flag, path);
}
