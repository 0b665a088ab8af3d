#include "tether_simdjson.h"
#include <simdjson.h>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>

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
    /// The padded copy of the input: simdjson reads up to SIMDJSON_PADDING bytes past the end of what it parses.
    uint8_t *padded = nullptr;
    size_t padded_capacity = 0;
    /// For a top-level array read element by element (tj_elements_begin): stage 1 (UTF-8, strings, the structural
    /// index) over the whole document, and a parser with one level less for each element in turn, so that only the
    /// index is as large as the document; no tape or string buffer is.
    simdjson::dom::parser outer;
    simdjson::dom::parser inner;
    const uint8_t *outer_bytes = nullptr;
    uint32_t outer_next = 0;  // index of the next element's first structural
    ~tj_parser() { std::free(padded); }
};

extern "C" size_t tj_padding(void) { return simdjson::SIMDJSON_PADDING; }

extern "C" tj_parser *tj_parser_create(size_t max_depth) {
    tj_parser *result = new (std::nothrow) tj_parser();
    if (result == nullptr) { return nullptr; }
    result->max_depth = max_depth;
    return result;
}

// Large buffers are asked to be backed by 2 MB pages: a fresh parser first-touches about 3.5 times the document's
// size, and with 4 kB pages the page faults cost about as much as the parse itself (parse + structure check of 20 MB,
// tether-bench: 30-45 ms with the advice, 45-95 ms without). Only whole 2 MB blocks inside a buffer are advised, so
// small documents are untouched. With transparent huge pages off, madvise does nothing.
static void advise_huge(const void *start, size_t bytes) {
    const uintptr_t huge = uintptr_t(2) << 20;
    if (bytes < 2 * huge) { return; }
    uintptr_t begin = (reinterpret_cast<uintptr_t>(start) + huge - 1) & ~(huge - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(start) + bytes) & ~(huge - 1);
#ifdef MADV_HUGEPAGE  // Linux only; elsewhere the kernel decides (macOS has no transparent huge pages)
    if (end > begin) { madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE); }
#else
    (void)begin;
    (void)end;
#endif
}

extern "C" void tj_parser_destroy(tj_parser *parser) { delete parser; }

// Sizes the parser's buffers for a document of len bytes (and advises them before their first touch).
static simdjson::error_code prepare(tj_parser *parser, size_t len) {
    simdjson::dom::parser &p = parser->parser;
    // The depth limit is set by allocate(); parse() keeps it. The document's buffers are allocated here too (parse()
    // would otherwise do it) so that they can be advised before their first touch.
    if (p.max_depth() != parser->max_depth || p.capacity() < len) {
        size_t capacity = len < simdjson::dom::MINIMAL_DOCUMENT_CAPACITY ? simdjson::dom::MINIMAL_DOCUMENT_CAPACITY : len;
        simdjson::error_code error = p.allocate(capacity, parser->max_depth);
        if (error) { return error; }
        error = p.doc.allocate(capacity);
        if (error) { return error; }
        advise_huge(p.doc.tape.get(), (capacity + 3) * sizeof(uint64_t));
        advise_huge(p.doc.string_buf.get(), 5 * capacity / 3);
        advise_huge(p.implementation->structural_indexes.get(), capacity * sizeof(uint32_t));
    }
    return simdjson::SUCCESS;
}

extern "C" int tj_parse(tj_parser *parser, const uint8_t *bytes, size_t len) {
    simdjson::error_code error = prepare(parser, len);
    if (error) { return int(error); }
    if (parser->padded_capacity < len) {
        std::free(parser->padded);
        parser->padded = nullptr;
        parser->padded_capacity = 0;
        size_t size = len + simdjson::SIMDJSON_PADDING;
        void *buffer = nullptr;
        size_t alignment = size >= (size_t(4) << 20) ? (size_t(2) << 20) : 64;
        if (posix_memalign(&buffer, alignment, size) != 0) { return int(simdjson::MEMALLOC); }
        parser->padded = static_cast<uint8_t *>(buffer);
        parser->padded_capacity = len;
        advise_huge(buffer, size);
    }
    std::memcpy(parser->padded, bytes, len);
    std::memset(parser->padded + len, 0, simdjson::SIMDJSON_PADDING);
    simdjson::dom::element root;
    error = parser->parser.parse(parser->padded, len, false).get(root);
    return int(error);
}

extern "C" int tj_parse_in_place(tj_parser *parser, const uint8_t *bytes, size_t len) {
    simdjson::error_code error = prepare(parser, len);
    if (error) { return int(error); }
    simdjson::dom::element root;
    error = parser->parser.parse(bytes, len, false).get(root);
    return int(error);
}

extern "C" int tj_elements_begin(tj_parser *parser, const uint8_t *bytes, size_t len) {
    if (parser->max_depth < 2) { return int(simdjson::DEPTH_ERROR); }
    simdjson::dom::parser &outer = parser->outer;
    if (outer.capacity() < len) {
        size_t capacity = len < simdjson::dom::MINIMAL_DOCUMENT_CAPACITY ? simdjson::dom::MINIMAL_DOCUMENT_CAPACITY : len;
        simdjson::error_code error = outer.allocate(capacity, 2);
        if (error) { return int(error); }
        advise_huge(outer.implementation->structural_indexes.get(), capacity * sizeof(uint32_t));
    }
    simdjson::internal::dom_parser_implementation &index = *outer.implementation;
    simdjson::error_code error = index.stage1(bytes, len, simdjson::stage1_mode::regular);
    if (error) { return int(error); }
    const uint32_t count = index.n_structural_indexes;
    const uint32_t *at = index.structural_indexes.get();
    // One array with at least one element, closed by the last structural: '[' x ... ']'.
    if (count < 3 || bytes[at[0]] != '[' || bytes[at[count - 1]] != ']' || bytes[at[1]] == ']') {
        return int(simdjson::TAPE_ERROR);
    }
    if (parser->inner.max_depth() != parser->max_depth - 1) {
        error = parser->inner.allocate(simdjson::dom::MINIMAL_DOCUMENT_CAPACITY, parser->max_depth - 1);
        if (error) { return int(error); }
    }
    parser->outer_bytes = bytes;
    parser->outer_next = 1;
    return int(simdjson::SUCCESS);
}

extern "C" int tj_elements_next(tj_parser *parser) {
    simdjson::internal::dom_parser_implementation &index = *parser->outer.implementation;
    const uint32_t count = index.n_structural_indexes;
    const uint32_t *at = index.structural_indexes.get();
    const uint8_t *bytes = parser->outer_bytes;
    uint32_t i = parser->outer_next;
    if (i >= count - 1) { return -1; }
    // The element runs to the first ',' or the closing ']' at the array's own level; brackets inside it are only
    // counted here (its own parse below checks that they match, and everything else about it).
    const uint32_t first = i;
    size_t depth = 0;
    for (; i < count - 1; i++) {
        const uint8_t c = bytes[at[i]];
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) { return int(simdjson::TAPE_ERROR); }
            depth--;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    if (i == first || depth != 0) { return int(simdjson::TAPE_ERROR); }  // ",," or "[," or unclosed
    if (i < count - 1) {
        if (i + 1 == count - 1) { return int(simdjson::TAPE_ERROR); }  // ",]"
        parser->outer_next = i + 1;  // past the ','
    } else {
        parser->outer_next = count - 1;  // at the closing ']'
    }
    // The bytes from the element's first structural to its ',' or ']': the document's own bytes, padded by the rest
    // of the document and its padding.
    simdjson::dom::element element;
    simdjson::error_code error = parser->inner.parse(bytes + at[first], at[i] - at[first], false).get(element);
    return int(error);
}

extern "C" const uint64_t *tj_element_tape(const tj_parser *parser) { return parser->inner.doc.tape.get(); }

extern "C" const uint8_t *tj_element_string_buffer(const tj_parser *parser) {
    return parser->inner.doc.string_buf.get();
}

extern "C" uint8_t *tj_buffer_resize(uint8_t *buffer, size_t capacity) {
    size_t size = capacity + simdjson::SIMDJSON_PADDING;
    void *result = std::realloc(buffer, size);
    if (result == nullptr) { return nullptr; }
    // malloc serves blocks this large from mmap (and realloc grows them with mremap, in place or by moving pages, not
    // bytes); only the whole 2 MB blocks inside are advised, whatever the block's own alignment.
    advise_huge(result, size);
    return static_cast<uint8_t *>(result);
}

extern "C" void tj_buffer_free(uint8_t *buffer) { std::free(buffer); }

extern "C" const uint64_t *tj_tape(const tj_parser *parser) { return parser->parser.doc.tape.get(); }

extern "C" const uint8_t *tj_string_buffer(const tj_parser *parser) { return parser->parser.doc.string_buf.get(); }

extern "C" const char *tj_error_message(int code) { return simdjson::error_message(simdjson::error_code(code)); }
