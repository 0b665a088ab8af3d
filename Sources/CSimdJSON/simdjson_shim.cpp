#include "tether_simdjson.h"
#include <simdjson.h>
#include <new>

static_assert(TJ_CAPACITY == simdjson::CAPACITY, "error codes drifted");
static_assert(TJ_MEMALLOC == simdjson::MEMALLOC, "error codes drifted");
static_assert(TJ_TAPE_ERROR == simdjson::TAPE_ERROR, "error codes drifted");
static_assert(TJ_DEPTH_ERROR == simdjson::DEPTH_ERROR, "error codes drifted");
static_assert(TJ_STRING_ERROR == simdjson::STRING_ERROR, "error codes drifted");
static_assert(TJ_T_ATOM_ERROR == simdjson::T_ATOM_ERROR, "error codes drifted");
static_assert(TJ_F_ATOM_ERROR == simdjson::F_ATOM_ERROR, "error codes drifted");
static_assert(TJ_N_ATOM_ERROR == simdjson::N_ATOM_ERROR, "error codes drifted");
static_assert(TJ_NUMBER_ERROR == simdjson::NUMBER_ERROR, "error codes drifted");
static_assert(TJ_UTF8_ERROR == simdjson::UTF8_ERROR, "error codes drifted");
static_assert(TJ_EMPTY == simdjson::EMPTY, "error codes drifted");
static_assert(TJ_UNESCAPED_CHARS == simdjson::UNESCAPED_CHARS, "error codes drifted");
static_assert(TJ_UNCLOSED_STRING == simdjson::UNCLOSED_STRING, "error codes drifted");
static_assert(TJ_NUMBER_OUT_OF_RANGE == simdjson::NUMBER_OUT_OF_RANGE, "error codes drifted");
static_assert(TJ_INCOMPLETE_ARRAY_OR_OBJECT == simdjson::INCOMPLETE_ARRAY_OR_OBJECT, "error codes drifted");
static_assert(TJ_TRAILING_CONTENT == simdjson::TRAILING_CONTENT, "error codes drifted");

struct tj_parser {
    simdjson::dom::parser parser;
    size_t max_depth;
};

extern "C" size_t tj_padding(void) { return simdjson::SIMDJSON_PADDING; }

extern "C" tj_parser *tj_parser_create(size_t max_depth) {
    tj_parser *result = new (std::nothrow) tj_parser();
    if (result == nullptr) { return nullptr; }
    result->max_depth = max_depth;
    return result;
}

extern "C" void tj_parser_destroy(tj_parser *parser) { delete parser; }

extern "C" int tj_parse(tj_parser *parser, const uint8_t *bytes, size_t len) {
    simdjson::dom::parser &p = parser->parser;
    // The depth limit is set by allocate(); parse() keeps it when it grows the buffers.
    if (p.max_depth() != parser->max_depth || p.capacity() < len) {
        size_t capacity = len < simdjson::dom::MINIMAL_DOCUMENT_CAPACITY ? simdjson::dom::MINIMAL_DOCUMENT_CAPACITY : len;
        simdjson::error_code error = p.allocate(capacity, parser->max_depth);
        if (error) { return int(error); }
    }
    // realloc_if_needed = true: simdjson copies the bytes into its own padded buffer before reading them.
    simdjson::dom::element root;
    simdjson::error_code error = p.parse(bytes, len, true).get(root);
    return int(error);
}

extern "C" const uint64_t *tj_tape(const tj_parser *parser) { return parser->parser.doc.tape.get(); }

extern "C" const uint8_t *tj_string_buffer(const tj_parser *parser) { return parser->parser.doc.string_buf.get(); }

extern "C" const char *tj_error_message(int code) { return simdjson::error_message(simdjson::error_code(code)); }
