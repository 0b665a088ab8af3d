#include "tether_simdjson.h"
#include <simdjson.h>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

// Besides the API, the shim uses simdjson's public members that are not documented API: dom::parser's
// `implementation` and `doc`; dom::document's `tape`, `string_buf`, `allocate()` and `capacity()`;
// internal::dom_parser_implementation's `stage1()`, `stage2_next()`, `structural_indexes`, `n_structural_indexes` and
// `next_structural_index`; stage1_mode::regular; dom::MINIMAL_DOCUMENT_CAPACITY. All are in 3.0.1 (Debian 12) and in
// 4.0.2 to 4.6.7 (Homebrew ships 4.x) alike; `scripts/check-simdjson FOLDER` builds the shim against another release.

// simdjson's error codes are renumbered between releases (3.7.1 added BIGINT_ERROR before UTF8_ERROR, so 4.x's
// UTF8_ERROR is 11, not 10): every code is mapped to the shim's own (tether_simdjson.h) by name, never by number.
// Every name below exists in simdjson 3.0 and 4.x alike; a code added later maps to TJ_OTHER_ERROR.

// BIGINT_ERROR exists from simdjson 3.7.1 on (Debian 12 has 3.0.1): named through a template, so that this file
// compiles with both. It is the error 3.0 reported as NUMBER_ERROR for the same input (an integer beyond 64 bits).
template <typename Code, typename = void> struct BigIntError {
    static bool matches(Code) { return false; }
};
template <typename Code> struct BigIntError<Code, decltype(void(Code::BIGINT_ERROR))> {
    static bool matches(Code code) { return code == Code::BIGINT_ERROR; }
};

static int tj_code(simdjson::error_code error) {
    switch (error) {
    case simdjson::SUCCESS: return TJ_SUCCESS;
    case simdjson::CAPACITY: return TJ_CAPACITY;
    case simdjson::MEMALLOC: return TJ_MEMALLOC;
    case simdjson::TAPE_ERROR: return TJ_TAPE_ERROR;
    case simdjson::DEPTH_ERROR: return TJ_DEPTH_ERROR;
    case simdjson::STRING_ERROR: return TJ_STRING_ERROR;
    case simdjson::T_ATOM_ERROR: return TJ_T_ATOM_ERROR;
    case simdjson::F_ATOM_ERROR: return TJ_F_ATOM_ERROR;
    case simdjson::N_ATOM_ERROR: return TJ_N_ATOM_ERROR;
    case simdjson::NUMBER_ERROR: return TJ_NUMBER_ERROR;
    case simdjson::UTF8_ERROR: return TJ_UTF8_ERROR;
    case simdjson::UNINITIALIZED: return TJ_UNINITIALIZED;
    case simdjson::EMPTY: return TJ_EMPTY;
    case simdjson::UNESCAPED_CHARS: return TJ_UNESCAPED_CHARS;
    case simdjson::UNCLOSED_STRING: return TJ_UNCLOSED_STRING;
    case simdjson::UNSUPPORTED_ARCHITECTURE: return TJ_UNSUPPORTED_ARCHITECTURE;
    case simdjson::INCORRECT_TYPE: return TJ_INCORRECT_TYPE;
    case simdjson::NUMBER_OUT_OF_RANGE: return TJ_NUMBER_OUT_OF_RANGE;
    case simdjson::INDEX_OUT_OF_BOUNDS: return TJ_INDEX_OUT_OF_BOUNDS;
    case simdjson::NO_SUCH_FIELD: return TJ_NO_SUCH_FIELD;
    case simdjson::IO_ERROR: return TJ_IO_ERROR;
    case simdjson::INVALID_JSON_POINTER: return TJ_INVALID_JSON_POINTER;
    case simdjson::INVALID_URI_FRAGMENT: return TJ_INVALID_URI_FRAGMENT;
    case simdjson::UNEXPECTED_ERROR: return TJ_UNEXPECTED_ERROR;
    case simdjson::PARSER_IN_USE: return TJ_PARSER_IN_USE;
    case simdjson::OUT_OF_ORDER_ITERATION: return TJ_OUT_OF_ORDER_ITERATION;
    case simdjson::INSUFFICIENT_PADDING: return TJ_INSUFFICIENT_PADDING;
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return TJ_INCOMPLETE_ARRAY_OR_OBJECT;
    case simdjson::SCALAR_DOCUMENT_AS_VALUE: return TJ_SCALAR_DOCUMENT_AS_VALUE;
    case simdjson::OUT_OF_BOUNDS: return TJ_OUT_OF_BOUNDS;
    case simdjson::TRAILING_CONTENT: return TJ_TRAILING_CONTENT;
    default: return BigIntError<simdjson::error_code>::matches(error) ? TJ_NUMBER_ERROR : TJ_OTHER_ERROR;
    }
}

struct tj_parser {
    simdjson::dom::parser parser;
    size_t max_depth;
    /// The padded copy of the input: simdjson reads up to SIMDJSON_PADDING bytes past the end of what it parses.
    uint8_t *padded = nullptr;
    size_t padded_capacity = 0;
    /// For a top-level array read element by element (tj_elements_begin): stage 1 (UTF-8, strings, the structural
    /// index) over one window of the document at a time, and a parser with one level less for each element in turn,
    /// so that no index, tape or string buffer is as large as the document.
    simdjson::dom::parser outer;
    simdjson::dom::parser inner;
    const uint8_t *outer_bytes = nullptr;
    size_t outer_len = 0;
    size_t window_bytes = 0;  // the nominal size of a window
    size_t window_start = 0;  // where the indexed window begins (outside any string: an element's start or after a ',')
    size_t window_end = 0;
    uint32_t outer_next = 0;  // index (in the window) of the next element's first structural
    bool is_closed = false;  // the array's ']' was read
    // Where the reading stops if an element starts exactly there (tj_elements_begin's `until`), SIZE_MAX for none;
    // set to SIZE_MAX as soon as an element is seen to start past it or to run across it.
    size_t until = SIZE_MAX;
    bool is_stopped = false;  // an element started at `until`: the elements before it are all read
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
    if (error) { return tj_code(error); }
    if (parser->padded == nullptr || parser->padded_capacity < len) {  // (an empty document too: its padding)
        std::free(parser->padded);
        parser->padded = nullptr;
        parser->padded_capacity = 0;
        size_t size = len + simdjson::SIMDJSON_PADDING;
        void *buffer = nullptr;
        size_t alignment = size >= (size_t(4) << 20) ? (size_t(2) << 20) : 64;
        if (posix_memalign(&buffer, alignment, size) != 0) { return TJ_MEMALLOC; }
        parser->padded = static_cast<uint8_t *>(buffer);
        parser->padded_capacity = len;
        advise_huge(buffer, size);
    }
    std::memcpy(parser->padded, bytes, len);
    std::memset(parser->padded + len, 0, simdjson::SIMDJSON_PADDING);
    simdjson::dom::element root;
    error = parser->parser.parse(parser->padded, len, false).get(root);
    return tj_code(error);
}

extern "C" int tj_parse_in_place(tj_parser *parser, const uint8_t *bytes, size_t len) {
    simdjson::error_code error = prepare(parser, len);
    if (error) { return tj_code(error); }
    simdjson::dom::element root;
    error = parser->parser.parse(bytes, len, false).get(root);
    return tj_code(error);
}

// The structural index covers a window of the document at a time, not all of it (1 MB from Swift), so that the index stays
// small and warm instead of 4 bytes per token of the whole body first-touched. A window starts outside any string (at
// an element's start, or just after a ','); it ends before a '{' past its nominal size. If that '{' is inside a string
// (stage 1 then ends in a string and fails), the next '{' is tried; past a few tries, or at the document's end, the
// window runs to the end and an error is the document's own.
static simdjson::error_code index_window(tj_parser *parser, size_t start, size_t size) {
    const uint8_t *bytes = parser->outer_bytes;
    const size_t len = parser->outer_len;
    simdjson::dom::parser &outer = parser->outer;
    size_t end = start + size < len ? start + size : len;
    // A window that would run across `until` ends there (a '{'), so that no byte past it is indexed for nothing.
    if (parser->until > start && parser->until < end) { end = parser->until; }
    for (int attempt = 0;; attempt++) {
        if (end < len) {
            const void *brace = attempt < 16 ? std::memchr(bytes + end, '{', len - end) : nullptr;
            end = brace ? size_t(static_cast<const uint8_t *>(brace) - bytes) : len;
        }
        // The window's index also drives each element's stage 2 (tj_elements_next): its depth limit is an element's.
        if (outer.capacity() < end - start || outer.max_depth() != parser->max_depth - 1) {
            size_t capacity = end - start < parser->window_bytes ? parser->window_bytes : end - start;
            if (capacity < outer.capacity()) { capacity = outer.capacity(); }
            simdjson::error_code error = outer.allocate(capacity, parser->max_depth - 1);
            if (error) { return error; }
        }
        simdjson::error_code error = outer.implementation->stage1(bytes + start, end - start, simdjson::stage1_mode::regular);
        if (!error) {
            parser->window_start = start;
            parser->window_end = end;
            parser->outer_next = 0;
            return simdjson::SUCCESS;
        }
        if (end >= len) { return error; }
        // A window cut at `until` that ends in a string: `until` is inside one (the window starts outside any), so
        // no element starts there; windows are no longer cut there (else the same cut could come back for ever).
        if (end == parser->until) { parser->until = SIZE_MAX; }
        end++;  // past the '{' that was inside a string
    }
}

extern "C" int tj_elements_begin(
    tj_parser *parser, const uint8_t *bytes, size_t len, size_t window, size_t from, size_t until) {
    if (parser->max_depth < 2) { return TJ_DEPTH_ERROR; }
    size_t open = 0;
    if (from == 0) {
        while (open < len && (bytes[open] == ' ' || bytes[open] == '\n' || bytes[open] == '\r' || bytes[open] == '\t')) {
            open++;
        }
        if (open == len || bytes[open] != '[') { return TJ_TAPE_ERROR; }
    } else if (from >= len || bytes[from] != '{') {
        return TJ_TAPE_ERROR;
    }
    if (parser->inner.max_depth() != parser->max_depth - 1) {
        simdjson::error_code error =
            parser->inner.allocate(simdjson::dom::MINIMAL_DOCUMENT_CAPACITY, parser->max_depth - 1);
        if (error) { return tj_code(error); }
    }
    parser->outer_bytes = bytes;
    parser->outer_len = len;
    parser->window_bytes = window < 1 ? 1 : window;
    parser->is_closed = false;
    parser->is_stopped = false;
    parser->until = until > (from == 0 ? open : from) && until < len ? until : SIZE_MAX;
    simdjson::error_code error = index_window(parser, from == 0 ? open + 1 : from, parser->window_bytes);
    if (error) { return tj_code(error); }
    // At least one element: "[]" is read whole.
    const simdjson::internal::dom_parser_implementation &index = *parser->outer.implementation;
    if (index.n_structural_indexes == 0 || bytes[parser->window_start + index.structural_indexes[0]] == ']') {
        return TJ_TAPE_ERROR;
    }
    return TJ_SUCCESS;
}

// What a structural character means to the element scan: 1 opens a container, 2 closes one, 3 is a ',', 0 is
// anything else (a quote, a ':', the start of a scalar).
static constexpr struct StructuralKinds {
    uint8_t table[256];
    constexpr StructuralKinds() : table() {
        table[uint8_t('{')] = 1;
        table[uint8_t('[')] = 1;
        table[uint8_t('}')] = 2;
        table[uint8_t(']')] = 2;
        table[uint8_t(',')] = 3;
    }
    constexpr uint8_t operator[](uint8_t c) const { return table[c]; }
} structural_kind;

extern "C" int tj_elements_next(tj_parser *parser) {
    const uint8_t *bytes = parser->outer_bytes;
    if (parser->is_closed) { return -1; }
    if (parser->is_stopped) { return -2; }
    for (;;) {
        const simdjson::internal::dom_parser_implementation &index = *parser->outer.implementation;
        const uint32_t count = index.n_structural_indexes;
        const uint32_t *at = index.structural_indexes.get();
        const uint8_t *base = bytes + parser->window_start;
        const bool is_last_window = parser->window_end == parser->outer_len;
        uint32_t i = parser->outer_next;
        if (i >= count) {
            // The window ended just after a ',': the next element starts in the next window.
            if (is_last_window) { return TJ_TAPE_ERROR; }  // "[1," and nothing more
            if (parser->window_end == parser->until) {
                // The window was cut at `until`, and nothing but whitespace lies between that ',' and it.
                parser->is_stopped = true;
                return -2;
            }
            simdjson::error_code error = index_window(parser, parser->window_end, parser->window_bytes);
            if (error) { return tj_code(error); }
            continue;
        }
        // The element runs to the first ',' or ']' at the array's own level; brackets inside it are only counted here
        // (its own parse below checks that they match, and everything else about it).
        const uint32_t first = i;
        if (base[at[first]] == ',' || base[at[first]] == ']') { return TJ_TAPE_ERROR; }  // ",," or ",]"
        if (parser->until != SIZE_MAX && parser->window_start + at[first] >= parser->until) {
            if (parser->window_start + at[first] == parser->until) {
                parser->is_stopped = true;
                return -2;
            }
            // `until` was inside an element: read on to the array's close. (Windows are cut at `until`, so this is
            // found earlier, where an element runs across the cut; this keeps the promise whatever the windows.)
            parser->until = SIZE_MAX;
        }
        // One table look per structural: most of them (quotes, colons, scalars, inner commas) need no branch.
        size_t depth = 0;
        for (; i < count; i++) {
            const uint8_t kind = structural_kind[base[at[i]]];
            if (kind == 0) { continue; }
            if (kind == 1) {
                depth++;
            } else if (kind == 2) {
                if (depth == 0) { break; }
                depth--;
            } else if (depth == 0) {
                break;  // a ',' at the array's own level
            }
        }
        if (i == count) {
            // The element goes on past the window: index again from its start (a larger window if it is the first).
            if (is_last_window) { return TJ_TAPE_ERROR; }
            // An element that runs across `until` (where its window was cut) means no element starts there.
            if (parser->window_end == parser->until) { parser->until = SIZE_MAX; }
            size_t start = parser->window_start + at[first];
            size_t size = first == 0 ? 2 * (parser->window_end - parser->window_start) : parser->window_bytes;
            simdjson::error_code error = index_window(parser, start, size);
            if (error) { return tj_code(error); }
            continue;
        }
        if (base[at[i]] == ',') {
            parser->outer_next = i + 1;
        } else {
            if (base[at[i]] != ']') { return TJ_TAPE_ERROR; }  // "[1}"
            // The array's close: only whitespace may follow, up to the document's end.
            if (i + 1 != count) { return TJ_TAPE_ERROR; }
            for (size_t k = parser->window_start + at[i] + 1; k < parser->outer_len; k++) {
                const uint8_t c = bytes[k];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') { return TJ_TAPE_ERROR; }
            }
            parser->is_closed = true;
        }
        const size_t element_len = at[i] - at[first];
        if (base[at[first]] == '{' || base[at[first]] == '[') {
            // An object or array: simdjson's stage 2 builds its tape straight from the window's index (stage 1 does
            // not run again over its bytes), as simdjson's own document streams do, one document after another.
            // The scan above found where it ends, so stage 2 stays inside the index; it must end exactly there.
            simdjson::dom::document &doc = parser->inner.doc;
            if (doc.capacity() < element_len) {
                simdjson::error_code error = doc.allocate(element_len);
                if (error) { return tj_code(error); }
            }
            simdjson::internal::dom_parser_implementation &stage2 = *parser->outer.implementation;
            stage2.next_structural_index = first;
            simdjson::error_code error = stage2.stage2_next(doc);
            if (!error && stage2.next_structural_index != i) { error = simdjson::TAPE_ERROR; }
            return tj_code(error);
        }
        // A scalar: parsed as a document of its own (the bytes from its first structural to the ',' or ']': the
        // document's own bytes, padded by the rest of the document and its padding).
        simdjson::dom::element element;
        simdjson::error_code error = parser->inner.parse(base + at[first], element_len, false).get(element);
        return tj_code(error);
    }
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

extern "C" int tj_buffer_populate(const uint8_t *start, size_t len) {
#ifdef MADV_POPULATE_WRITE  // Linux 5.14 and later; elsewhere (macOS) a page is zeroed where it is first written
    if (len == 0) { return 1; }
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    uintptr_t begin = reinterpret_cast<uintptr_t>(start) & ~(page - 1);
    uintptr_t end = (reinterpret_cast<uintptr_t>(start) + len + page - 1) & ~(page - 1);
    return madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
#else
    (void)start;
    (void)len;
    return 0;
#endif
}

extern "C" const uint64_t *tj_tape(const tj_parser *parser) { return parser->parser.doc.tape.get(); }

extern "C" const uint8_t *tj_string_buffer(const tj_parser *parser) { return parser->parser.doc.string_buf.get(); }

extern "C" const uint32_t *tj_structural_indexes(const tj_parser *parser, size_t *count) {
    const simdjson::internal::dom_parser_implementation *implementation = parser->parser.implementation.get();
    if (implementation == nullptr) {
        *count = 0;
        return nullptr;
    }
    *count = implementation->n_structural_indexes;
    return implementation->structural_indexes.get();
}

// simdjson 3.0's texts (src/internal/error_tables.cpp): 4.x words them alike behind the code's name
// ("NUMBER_ERROR: Problem while parsing a number"), and Tether's messages do not change with the library.
extern "C" const char *tj_error_message(int code) {
    switch (code) {
    case TJ_SUCCESS: return "No error";
    case TJ_CAPACITY: return "This parser can't support a document that big";
    case TJ_MEMALLOC: return "Error allocating memory, we're most likely out of memory";
    case TJ_TAPE_ERROR:
        return "The JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc.";
    case TJ_DEPTH_ERROR: return "The JSON document was too deep (too many nested objects and arrays)";
    case TJ_STRING_ERROR: return "Problem while parsing a string";
    case TJ_T_ATOM_ERROR: return "Problem while parsing an atom starting with the letter 't'";
    case TJ_F_ATOM_ERROR: return "Problem while parsing an atom starting with the letter 'f'";
    case TJ_N_ATOM_ERROR: return "Problem while parsing an atom starting with the letter 'n'";
    case TJ_NUMBER_ERROR: return "Problem while parsing a number";
    case TJ_UTF8_ERROR: return "The input is not valid UTF-8";
    case TJ_UNINITIALIZED: return "Uninitialized";
    case TJ_EMPTY: return "Empty: no JSON found";
    case TJ_UNESCAPED_CHARS: return "Within strings, some characters must be escaped, we found unescaped characters";
    case TJ_UNCLOSED_STRING: return "A string is opened, but never closed.";
    case TJ_UNSUPPORTED_ARCHITECTURE:
        return "simdjson does not have an implementation supported by this CPU architecture (perhaps it's a non-SIMD "
               "CPU?).";
    case TJ_INCORRECT_TYPE: return "The JSON element does not have the requested type.";
    case TJ_NUMBER_OUT_OF_RANGE:
        return "The JSON number is too large or too small to fit within the requested type.";
    case TJ_INDEX_OUT_OF_BOUNDS: return "Attempted to access an element of a JSON array that is beyond its length.";
    case TJ_NO_SUCH_FIELD: return "The JSON field referenced does not exist in this object.";
    case TJ_IO_ERROR: return "Error reading the file.";
    case TJ_INVALID_JSON_POINTER: return "Invalid JSON pointer syntax.";
    case TJ_INVALID_URI_FRAGMENT: return "Invalid URI fragment syntax.";
    case TJ_UNEXPECTED_ERROR:
        return "Unexpected error, consider reporting this problem as you may have found a bug in simdjson";
    case TJ_PARSER_IN_USE: return "Cannot parse a new document while a document is still in use.";
    case TJ_OUT_OF_ORDER_ITERATION: return "Objects and arrays can only be iterated when they are first encountered.";
    case TJ_INSUFFICIENT_PADDING:
        return "simdjson requires the input JSON string to have at least SIMDJSON_PADDING extra bytes allocated, "
               "beyond the string's length. Consider using the simdjson::padded_string class if needed.";
    case TJ_INCOMPLETE_ARRAY_OR_OBJECT: return "JSON document ended early in the middle of an object or array.";
    case TJ_SCALAR_DOCUMENT_AS_VALUE:
        return "A JSON document made of a scalar (number, Boolean, null or string) is treated as a value. Use "
               "get_bool(), get_double(), etc. on the document instead. ";
    case TJ_OUT_OF_BOUNDS: return "Attempted to access location outside of document.";
    case TJ_TRAILING_CONTENT: return "Unexpected trailing content in the JSON input.";
    default: return "Unexpected simdjson error (one this version of Tether does not know)";
    }
}
