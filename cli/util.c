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

/* ---------------------------------------------------------------- flags given once */

/* Flags that add up when repeated; every other flag may be given once. */
static const char* const repeatable_flags[] = {"--set", "--morph"};
/* Spellings of one flag: {alias, name}. */
static const char* const flag_aliases[][2] = {{"--out", "-o"}, {"--output", "-o"}, {"--stage", "--all-methods"}};

/* Where each flag was seen (argv index): one command runs per process, and a command's parser may test
 * one argument for the same flag more than once, so the index, not the count, tells a repetition. */
static struct {
    const char* flag;
    int index;
    const char* spelled;
} g_seen[128];
static size_t g_seen_count;

/* 0, or -1 after a one-line error when flag was already given at another position. */
static int note_flag(const char* flag, int index)
{
    for (size_t k = 0; k < sizeof repeatable_flags / sizeof repeatable_flags[0]; ++k)
        if (strcmp(flag, repeatable_flags[k]) == 0) return 0;
    const char* name = flag;
    for (size_t k = 0; k < sizeof flag_aliases / sizeof flag_aliases[0]; ++k)
        if (strcmp(flag, flag_aliases[k][0]) == 0) name = flag_aliases[k][1];
    for (size_t k = 0; k < g_seen_count; ++k) {
        if (strcmp(g_seen[k].flag, name) != 0) continue;
        if (g_seen[k].index == index) return 0;
        if (strcmp(g_seen[k].spelled, flag) == 0)
            cli_fail(CLI_EXIT_USAGE, "%s is given twice (each flag once; only --set and --morph add up)", flag);
        else
            cli_fail(CLI_EXIT_USAGE, "%s and %s are the same flag, given twice (each flag once)", g_seen[k].spelled,
                     flag);
        return -1;
    }
    if (g_seen_count < sizeof g_seen / sizeof g_seen[0]) {
        g_seen[g_seen_count].flag = name;
        g_seen[g_seen_count].index = index;
        g_seen[g_seen_count].spelled = flag;
        g_seen_count++;
    }
    return 0;
}

void cli_flags_reset(void)
{
    g_seen_count = 0;
    g_fail_context[0] = '\0';
    g_last_error[0] = '\0';
}

int cli_flag_value(int argc, char** argv, int* i, const char* flag, const char** value)
{
    const char* arg = argv[*i];
    size_t n = strlen(flag);
    if (strncmp(arg, flag, n) != 0) return 0;
    if (arg[n] != '=' && arg[n] != '\0') return 0;
    if (note_flag(flag, *i) != 0) return -1;
    if (arg[n] == '=') {
        *value = arg + n + 1;
    } else {
        if (*i + 1 >= argc) {
            cli_fail(CLI_EXIT_USAGE, "%s needs a value", flag);
            return -1;
        }
        *i += 1;
        *value = argv[*i];
    }
    if (!**value) {
        cli_fail(CLI_EXIT_USAGE, "%s needs a value (got an empty one)", flag);
        return -1;
    }
    return 1;
}

int cli_flag_switch(char** argv, int i, const char* flag)
{
    if (strcmp(argv[i], flag) != 0) return 0;
    return note_flag(flag, i) != 0 ? -1 : 1;
}

int cli_parse_time(const char* flag, const char* text, double* out)
{
    double t;
    if (!cli_parse_double(text, &t) || t < 0.0 || t > CLI_MAX_TIME_S)
        return cli_fail(CLI_EXIT_USAGE, "%s: '%s' is not a time in seconds from 0 to %g", flag, text, CLI_MAX_TIME_S);
    *out = t;
    return CLI_EXIT_OK;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one (overlong forms, surrogates and
 * code points past U+10FFFF are not). */
static size_t utf8_sequence(const unsigned char* s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((s[k] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
    if (c == 0xED && s[1] > 0x9F) return 0; /* surrogate */
    if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
    if (c == 0xF4 && s[1] > 0x8F) return 0; /* past U+10FFFF */
    return n;
}

void cli_write_utf8(FILE* f, const char* text)
{
    const unsigned char* s = (const unsigned char*)text;
    while (*s) {
        size_t n = utf8_sequence(s);
        if (n) {
            fwrite(s, 1, n, f);
            s += n;
        } else {
            fputs("\xEF\xBF\xBD", f); /* U+FFFD, the replacement character, for one byte */
            s += 1;
        }
    }
}

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
