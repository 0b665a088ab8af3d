#include "tether_simdjson.h"
#include <simdjson.h>

extern "C" size_t tj_padding(void) { return simdjson::SIMDJSON_PADDING; }
