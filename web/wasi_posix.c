/* realpath for the files layer under WASI (web/wasi_posix.h): the page's module has no file system of its own,
 * so a path never resolves. */
#include "wasi_posix.h"

#include <errno.h>
#include <stddef.h>

char* realpath(const char* path, char* resolved)
{
    (void)path;
    (void)resolved;
    errno = ENOSYS;
    return NULL;
}
