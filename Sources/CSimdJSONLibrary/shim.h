// simdjson is C++: no Swift file imports this module. The target exists so that SwiftPM finds simdjson through
// pkg-config (its include path and -lsimdjson, on Debian and Homebrew alike) for the C++ shim in CSimdJSON, which
// includes <simdjson.h> itself. SwiftPM drops pkg-config's other flags, -DSIMDJSON_THREADS_ENABLED among them, so the
// shim's dom::parser lacks the library's `threaded` member. That is harmless: dom::parser's functions are inline and
// compiled into the shim, the library's take a dom::document (whose layout the flag does not change), and the shim
// uses no document_stream, the only threaded part.
#ifndef TETHER_CSIMDJSONLIBRARY_SHIM_H
#define TETHER_CSIMDJSONLIBRARY_SHIM_H
#endif
