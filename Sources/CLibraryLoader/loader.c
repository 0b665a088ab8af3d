// libxml2, libmicrohttpd and libyaml, opened when Tether first uses each instead of when it starts (Linux only).
//
// Why: most runs read no XML, serve no mock and read no YAML (a JSON verify, a tiny contract's start-up, `--help`),
// yet the dynamic loader mapped and bound all three at every start, and libxml2 brings ICU (libicuuc, its 30 MB
// libicudata) and liblzma. One tiny contract, whole process: 16.4 -> 15.2 ms without libxml2, then 16.5 -> 15.4 ms
// without libmicrohttpd and libyaml too (medians of 100 and 150 interleaved runs; bench/HISTORY.md).
//
// How: every function of theirs that Tether calls (XML/XMLElementNode.swift, Mock/MockServer.swift with
// CMicroHTTPD/shim.h, Spec/YAMLReader.swift) is defined in this target under its own name (libxml2.c,
// libmicrohttpd.c, libyaml.c). The first call opens the library with dlopen(3), and each function finds the
// library's own with dlsym(3) on that handle (which searches the library and its dependencies, never this
// executable), once. The package still links the libraries as pkg-config says, so `swift build` and `swift test`
// work as before (the libraries are then loaded already, and dlopen only finds them); scripts/build removes them
// from the release executable's needed libraries (scripts/order-needed --drop), which it refuses for a library a
// symbol version of the executable names, and then checks with `ldd -r` that every symbol the executable binds
// still resolves. So a function called from Swift that is missing here cannot go unnoticed: the release build fails.
//
// Not on macOS: the libraries are linked as usual there.
#include "loader.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
#include <libxml/xmlversion.h>

// Each library: its soname, what needs it, and the Debian package that installs it (in `tether_library`'s order).
static const struct {
    const char *soname, *need, *package;
} libraries[] = {
// libxml2 2.14 changed its ABI and its soname; the one the headers describe is the one to load.
#if LIBXML_VERSION >= 21400
    {"libxml2.so.16", "reading XML", "libxml2"},
#else
    {"libxml2.so.2", "reading XML", "libxml2"},
#endif
    {"libmicrohttpd.so.12", "serving a mock (--mock, tether mock, tether serve)", "libmicrohttpd12"},
    {"libyaml-0.so.2", "reading YAML (an OpenAPI document in YAML)", "libyaml-0-2"},
};

// Read and written atomically: two threads may both open a library; dlopen counts, both get the one handle.
static void *handles[sizeof libraries / sizeof libraries[0]];

int tether_library_is_loaded(tether_library library) {
    return __atomic_load_n(&handles[library], __ATOMIC_ACQUIRE) != NULL;
}

// Where the executable was linked with the library, it is loaded already and dlopen only finds it. Where it was not,
// and the library is missing now, the run cannot do what needs it: it says so and exits as the dynamic loader does
// for a missing library (127), rather than go on without what the user asked for.
__attribute__((noreturn, cold)) static void unavailable(tether_library library, const char *what) {
    fprintf(stderr,
            "tether: cannot load %s, which %s needs: %s\n"
            "  install it (Debian, Ubuntu: apt-get install %s)\n",
            libraries[library].soname, libraries[library].need, what, libraries[library].package);
    _exit(127);
}

// The library's handle, opened at the first call.
static void *opened(tether_library library) {
    void *handle = __atomic_load_n(&handles[library], __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen(libraries[library].soname, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *error = dlerror();
            unavailable(library, error ? error : "dlopen failed");
        }
        __atomic_store_n(&handles[library], handle, __ATOMIC_RELEASE);
    }
    return handle;
}

void tether_library_open(tether_library library) { (void)opened(library); }

void *tether_library_function(tether_library library, const char *name) {
    void *function = dlsym(opened(library), name);
    if (function == NULL) unavailable(library, name);
    return function;
}

#else

int tether_library_is_loaded(tether_library library) {
    (void)library;
    return 1;
}

void tether_library_open(tether_library library) { (void)library; }

#endif
