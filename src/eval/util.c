/* The eval layer's error messages (the asset's name before them) and its clock. */
#define _POSIX_C_SOURCE 200809L
#include "eval_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

sf_result sfi_eval_fail(sf_error* err, sf_result code, const char* fmt, ...)
{
    if (!err) return code;
    char text[sizeof err->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    sf_error_clear(err);
    err->result = code;
    snprintf(err->message, sizeof err->message, "%s", text);
    return code;
}

sf_result sfi_eval_prefix(sf_error* err, const char* name)
{
    if (!err) return SF_ERROR_INVALID_ARGUMENT;
    if (name) {
        char text[2 * sizeof err->message + 4];
        snprintf(text, sizeof text, "%.255s: %.255s", name, err->message);
        snprintf(err->message, sizeof err->message, "%.255s", text);
    }
    return err->result;
}

double sfi_eval_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
