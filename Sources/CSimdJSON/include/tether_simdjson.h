// Plain C API over simdjson's DOM parser (implemented in simdjson_shim.cpp).
#ifndef TETHER_SIMDJSON_H
#define TETHER_SIMDJSON_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/// simdjson reads up to this many bytes past the end of the input: buffers handed to tj_parse must have them.
size_t tj_padding(void);

#ifdef __cplusplus
}
#endif
#endif
