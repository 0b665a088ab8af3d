// simdjson is C++: no Swift file imports this module. The target exists so that SwiftPM finds simdjson through
// pkg-config (its include path, -DSIMDJSON_THREADS_ENABLED and -lsimdjson, on Debian and Homebrew alike) for the C++
// shim in CSimdJSON, which includes <simdjson.h> itself.
#ifndef TETHER_CSIMDJSONLIBRARY_SHIM_H
#define TETHER_CSIMDJSONLIBRARY_SHIM_H
#endif
