#include "tether_arguments.h"

#include <stdlib.h>  // __GLIBC__

#if defined(__linux__) && defined(__GLIBC__)

static int captured_count;
static char **captured;

/// glibc calls an executable's (and a library's) constructors with argc, argv and envp.
__attribute__((constructor)) static void capture(int argc, char **argv, char **envp) {
    (void)envp;
    captured_count = argc;
    captured = argv;
}

char *const *tether_captured_arguments(int *count) {
    *count = captured ? captured_count : 0;
    return captured;
}

/// What `CommandLine` calls for argv and argc (the Swift calling convention, as the runtime declares it). Linked in
/// place of the runtime's, which an archive gives only for a name nothing else defines; with the runtime as a shared
/// library its own is used, and this one is never called. Before the constructor ran, no arguments.
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    static char *none[] = {0};
    if (!captured) {
        *count = 0;
        return none;
    }
    *count = captured_count;
    return captured;
}

#else

char *const *tether_captured_arguments(int *count) {
    *count = 0;
    return 0;
}

#endif
