// libxml2, libmicrohttpd and libyaml, opened when Tether first uses each, not when it starts (Linux). See loader.c.
#ifndef TETHER_LIBRARY_LOADER_H
#define TETHER_LIBRARY_LOADER_H

/// The libraries opened at their first use.
typedef enum tether_library {
    tether_libxml2 = 0,
    tether_libmicrohttpd = 1,
    tether_libyaml = 2,
} tether_library;

/// Whether `library` has been opened by a call into it: always 1 where it is linked as usual (macOS); on Linux, 0
/// until the first call (for tests: a run that reads no XML never opens libxml2).
int tether_library_is_loaded(tether_library library);

/// Opens `library` now, as its first call would (Linux): a run that will need it later finds a missing one before it
/// sends anything. A library that cannot be opened ends the process with a message naming the package to install
/// (exit status 127). Nothing to do where it is linked as usual (macOS).
void tether_library_open(tether_library library);

#endif
