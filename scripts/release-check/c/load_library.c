/*
 * load_library: loads the library at a path with dlopen, as the Python package's ctypes does with
 * the library it carries, and validates a summary through it: scripts/release --check runs it,
 * linked against musl, on the musllinux wheels' libraries (whose file name in the wheel is
 * libloopcompact.so, not the SONAME a linked program would ask for).
 *
 * Usage: load_library LIBRARY FILE
 * Output and exit status: those of examples/validate_summary.c (STATUS_NAME REASON MESSAGE; 0 when
 * valid, 1 when rejected, 2 for a usage, I/O or loading error).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "loopcompact.h"
#include "read_input.h"

typedef lc_status (*validate_fn)(const uint8_t *, size_t);
typedef const char *(*text_fn)(lc_status);
typedef const char *(*version_fn)(void);

int main(int argc, char **argv)
{
    void *library;
    validate_fn validate;
    text_fn name, reason, message;
    version_fn version;
    uint8_t *data = NULL;
    size_t len = 0;
    lc_status status;
    const char *why;

    if (argc != 3) {
        fprintf(stderr, "usage: load_library LIBRARY FILE\n");
        return 2;
    }
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "load_library: %s\n", dlerror());
        return 2;
    }
    /* POSIX: a function pointer converts through the object pointer dlsym returns. */
    *(void **)&validate = dlsym(library, "lc_summary_xml_validate");
    *(void **)&name = dlsym(library, "lc_status_name");
    *(void **)&reason = dlsym(library, "lc_status_reason");
    *(void **)&message = dlsym(library, "lc_status_message");
    *(void **)&version = dlsym(library, "lc_version");
    if (validate == NULL || name == NULL || reason == NULL || message == NULL || version == NULL) {
        fprintf(stderr, "load_library: a function is missing from %s\n", argv[1]);
        return 2;
    }
    fprintf(stderr, "load_library: loopcompact %s from %s\n", version(), argv[1]);
    if (read_input("load_library", argv[2], &data, &len) != 0) {
        return 2;
    }
    status = validate(data, len);
    free(data);
    why = reason(status);
    printf("%s %s %s\n", name(status), why[0] != '\0' ? why : "-", message(status));
    return status == LC_OK ? 0 : 1;
}
