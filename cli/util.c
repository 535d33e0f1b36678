/* Small helpers of the command: one-line errors, atomic file writes, number and list parsing. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "skinframe_files.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_fail_context[512]; /* cli_fail_context */
static char g_last_error[1600];  /* cli_last_error: context, ": ", line */

void cli_fail_context(const char* text) { snprintf(g_fail_context, sizeof g_fail_context, "%s", text ? text : ""); }

const char* cli_last_error(void) { return g_last_error; }

int cli_fail(int code, const char* fmt, ...)
{
    char line[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    /* One line, whatever the message held: the tests and scripts read exactly one. */
    for (char* c = line; *c; ++c)
        if (*c == '\n' || *c == '\r') *c = ' ';
    size_t n = strlen(g_fail_context);
    if (n && !(strncmp(line, g_fail_context, n) == 0 && line[n] == ':'))
        snprintf(g_last_error, sizeof g_last_error, "%s: %s", g_fail_context, line);
    else
        snprintf(g_last_error, sizeof g_last_error, "%s", line);
    fprintf(stderr, "skinframe: %s\n", g_last_error);
    return code;
}

int cli_write_file_atomic(const char* path, const void* data, size_t size)
{
    sf_error err;
    if (sf_file_write_atomic(path, data, size, &err) == SF_OK) return CLI_EXIT_OK;
    return cli_fail(CLI_EXIT_FAILURE, "%s", err.message);
}

int cli_make_dir(const char* flag, const char* path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? CLI_EXIT_OK : cli_fail(CLI_EXIT_USAGE, "%s: %s exists and is not a folder", flag, path);
    char buf[4096];
    if (strlen(path) >= sizeof buf) return cli_fail(CLI_EXIT_USAGE, "%s: path too long", flag);
    snprintf(buf, sizeof buf, "%s", path);
    /* mkdir -p: each parent, then the folder itself. */
    for (char* p = buf + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return cli_fail(CLI_EXIT_FAILURE, "%s: cannot create %s: %s", flag, buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return cli_fail(CLI_EXIT_FAILURE, "%s: cannot create %s: %s", flag, buf, strerror(errno));
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_fail(CLI_EXIT_FAILURE, "%s: %s is not a folder", flag, buf);
    return CLI_EXIT_OK;
}


bool cli_parse_double(const char* text, double* out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return false;
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v)) return false;
    *out = v;
    return true;
}

bool cli_parse_size(const char* text, size_t min, size_t max, size_t* out)
{
    if (!text || !*text) return false;
    for (const char* c = text; *c; ++c)
        if (!isdigit((unsigned char)*c)) return false;
    errno = 0;
    char* end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0' || v < min || v > max) return false;
    *out = (size_t)v;
    return true;
}

bool cli_ends_with(const char* text, const char* suffix)
{
    size_t a = strlen(text), b = strlen(suffix);
    return a >= b && strcasecmp(text + a - b, suffix) == 0;
}

int cli_flag_value(int argc, char** argv, int* i, const char* flag, const char** value)
{
    const char* arg = argv[*i];
    size_t n = strlen(flag);
    if (strncmp(arg, flag, n) != 0) return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        if (!**value) {
            cli_fail(CLI_EXIT_USAGE, "%s needs a value", flag);
            return -1;
        }
        return 1;
    }
    if (arg[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        cli_fail(CLI_EXIT_USAGE, "%s needs a value", flag);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

int cli_flag_switch(char** argv, int i, const char* flag) { return strcmp(argv[i], flag) == 0; }

bool cli_is_help(const char* arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int cli_parse_assignments(const char* flag, const char* list, cli_assignment* out, size_t cap, size_t* count)
{
    const char* p = list;
    if (!*p) return cli_fail(CLI_EXIT_USAGE, "%s: empty list, expected NAME=VALUE[,NAME=VALUE...]", flag);
    while (*p) {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[256];
        if (len == 0 || len >= sizeof item)
            return cli_fail(CLI_EXIT_USAGE, "%s: bad item in '%s', expected NAME=VALUE[,NAME=VALUE...]", flag, list);
        memcpy(item, p, len);
        item[len] = '\0';
        char* eq = strchr(item, '=');
        if (!eq || eq == item)
            return cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not NAME=VALUE", flag, item);
        *eq = '\0';
        const char* name = item;
        const char* text = eq + 1;
        if (strlen(name) >= sizeof out[0].name) return cli_fail(CLI_EXIT_USAGE, "%s: name '%s' is too long", flag, name);
        double v;
        if (!cli_parse_double(text, &v))
            return cli_fail(CLI_EXIT_USAGE, "%s: value of '%s' is '%s', not a number", flag, name, text);
        if (*count >= cap) return cli_fail(CLI_EXIT_USAGE, "%s: more than %zu settings", flag, cap);
        memcpy(out[*count].name, name, strlen(name) + 1); /* length checked above */
        out[*count].value = v;
        *count += 1;
        p = comma ? comma + 1 : p + len;
        if (comma && !*p)
            return cli_fail(CLI_EXIT_USAGE, "%s: trailing comma in '%s'", flag, list);
    }
    return CLI_EXIT_OK;
}
