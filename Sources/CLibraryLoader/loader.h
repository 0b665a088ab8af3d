// What the libraries' files share (loader.c says why and how).
#ifndef TETHER_LOADER_INTERNAL_H
#define TETHER_LOADER_INTERNAL_H
#include "tether_library_loader.h"

/// `name`'s function in `library`, which is opened at the first call. A library or a function that cannot be found
/// ends the process with a message saying what to install (exit status 127, as the dynamic loader's own).
void *tether_library_function(tether_library library, const char *name);

// `name`'s own function in the library, found once (a race only finds it twice), as `name##_found`.
#define REAL(library, name)                                                                                           \
    static __typeof__(&name) real_##name;                                                                             \
    __typeof__(&name) name##_found = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);                                 \
    if (name##_found == NULL) {                                                                                        \
        name##_found = (__typeof__(&name))tether_library_function(library, #name);                                    \
        __atomic_store_n(&real_##name, name##_found, __ATOMIC_RELEASE);                                               \
    }

// Hidden: only this executable's own calls come here; a library's calls among its own functions stay inside it.
#define FORWARD __attribute__((visibility("hidden")))

// `name` of the file's LIBRARY, declared as its header declares it (`parameters`), handing `arguments` (the
// parameters' names) to the library's own and returning what it returns, or nothing (FORWARD_VOID).
#define FORWARD_FUNCTION(type, name, parameters, arguments)                                                           \
    FORWARD type name parameters {                                                                                    \
        REAL(LIBRARY, name)                                                                                           \
        return name##_found arguments;                                                                                \
    }
#define FORWARD_VOID(name, parameters, arguments)                                                                     \
    FORWARD void name parameters {                                                                                    \
        REAL(LIBRARY, name)                                                                                           \
        name##_found arguments;                                                                                       \
    }

#endif
