// libxml2 loaded when Tether first reads XML, not when it starts (Linux). See libxml2_loader.c.
#ifndef TETHER_LIBXML2_LOADER_H
#define TETHER_LIBXML2_LOADER_H

/// Whether libxml2 is loaded already: always 1 where it is linked as usual (macOS); on Linux, 0 until the first call
/// into it (for tests: a run that reads no XML never loads it).
int tether_libxml2_is_loaded(void);

#endif
