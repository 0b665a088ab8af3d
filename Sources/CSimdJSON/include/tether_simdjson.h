// Plain C API over simdjson's DOM parser (implemented in simdjson_shim.cpp).
//
// A parsed document is simdjson's "tape": an array of 64-bit words, one per value (two for numbers), in document
// order. The top byte of a word is its type character; the low 56 bits its payload:
//   'r' root (first and last word; the first one's low 32 bits are the index of the last one)
//   '{' / '[' start of an object / array: low 32 bits = index just past the matching '}' / ']',
//             bits 32-55 = number of members / elements (saturated at 0xFFFFFF)
//   '}' / ']' end of an object / array: low 32 bits = index of the matching start
//   '"' string: payload = offset into the string buffer, where a 32-bit little-endian length, the UTF-8 bytes and
//             a NUL follow (object keys are strings too: an object's words alternate key, value)
//   'l' int64, 'u' uint64, 'd' double: the next word holds the value's bits
//   'n' null, 't' true, 'f' false
// Tape and string buffer belong to the parser and die at its next parse or when it is destroyed.
#ifndef TETHER_SIMDJSON_H
#define TETHER_SIMDJSON_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/// The shim's own error codes, stable whatever simdjson's version: the shim maps each simdjson::error_code to one of
/// these by name (simdjson renumbers its codes between releases: 3.7.1 added BIGINT_ERROR before UTF8_ERROR). The
/// values are those simdjson 3.0 gave the same errors, so that they read the same in a debugger either way.
enum {
    TJ_SUCCESS = 0,
    TJ_CAPACITY = 1,
    TJ_MEMALLOC = 2,
    TJ_TAPE_ERROR = 3,
    TJ_DEPTH_ERROR = 4,
    TJ_STRING_ERROR = 5,
    TJ_T_ATOM_ERROR = 6,
    TJ_F_ATOM_ERROR = 7,
    TJ_N_ATOM_ERROR = 8,
    TJ_NUMBER_ERROR = 9,  // simdjson's NUMBER_ERROR, and its BIGINT_ERROR (an integer beyond 64 bits) since 3.7.1
    TJ_UTF8_ERROR = 10,
    TJ_UNINITIALIZED = 11,
    TJ_EMPTY = 12,
    TJ_UNESCAPED_CHARS = 13,
    TJ_UNCLOSED_STRING = 14,
    TJ_UNSUPPORTED_ARCHITECTURE = 15,
    TJ_INCORRECT_TYPE = 16,
    TJ_NUMBER_OUT_OF_RANGE = 17,
    TJ_INDEX_OUT_OF_BOUNDS = 18,
    TJ_NO_SUCH_FIELD = 19,
    TJ_IO_ERROR = 20,
    TJ_INVALID_JSON_POINTER = 21,
    TJ_INVALID_URI_FRAGMENT = 22,
    TJ_UNEXPECTED_ERROR = 23,
    TJ_PARSER_IN_USE = 24,
    TJ_OUT_OF_ORDER_ITERATION = 25,
    TJ_INSUFFICIENT_PADDING = 26,
    TJ_INCOMPLETE_ARRAY_OR_OBJECT = 27,
    TJ_SCALAR_DOCUMENT_AS_VALUE = 28,
    TJ_OUT_OF_BOUNDS = 29,
    TJ_TRAILING_CONTENT = 30,
    /// A simdjson error this shim does not name (one added after it was written): an error, never a wrong one.
    TJ_OTHER_ERROR = 1000
};

/// An opaque simdjson DOM parser with its buffers; reusable, not thread-safe.
typedef struct tj_parser tj_parser;

/// simdjson reads up to this many bytes past the end of its input (tj_parse copies into a padded buffer of its own).
size_t tj_padding(void);

/// A new parser that refuses documents nested deeper than max_depth, or NULL when out of memory.
tj_parser *tj_parser_create(size_t max_depth);

/// Frees the parser, its tape and its buffers.
void tj_parser_destroy(tj_parser *parser);

/// Parses len bytes at bytes (no padding needed: they are copied into the parser's padded buffer first).
/// Returns TJ_SUCCESS or one of the TJ_ error codes above; on success the tape and string buffer below hold the document.
int tj_parse(tj_parser *parser, const uint8_t *bytes, size_t len);

/// Parses len bytes at bytes where they are, without a copy: bytes[len ..< len + tj_padding()] must be allocated
/// (simdjson may read them; their content does not matter). Returns as tj_parse does.
int tj_parse_in_place(tj_parser *parser, const uint8_t *bytes, size_t len);

/// Resizes (or, with buffer NULL, allocates) a buffer for capacity bytes plus tj_padding() more, as realloc does
/// (the content up to the smaller size is kept); large buffers are advised to use huge pages. NULL when out of
/// memory (buffer is then untouched). Free with tj_buffer_free.
uint8_t *tj_buffer_resize(uint8_t *buffer, size_t capacity);

/// Frees a buffer from tj_buffer_resize (NULL does nothing).
void tj_buffer_free(uint8_t *buffer);

/// Faults in, writable, the pages of len bytes at start (whole pages: those the range touches), without writing to
/// them (Linux's MADV_POPULATE_WRITE), so that another thread may write the bytes meanwhile. 1 when done, 0 when the
/// system cannot (before Linux 5.14, and on other systems).
int tj_buffer_populate(const uint8_t *start, size_t len);

/// Starts reading a document that is one JSON array element by element, in place (padded as for
/// tj_parse_in_place): simdjson's stage 1 (UTF-8, strings, the structural index) runs over a window of about
/// window bytes at a time (larger for an element that does not fit), and the array's own brackets and commas are
/// checked. TJ_SUCCESS, a TJ_ error code, or TJ_TAPE_ERROR when the document is not an array
/// with at least one element. Elements then come from tj_elements_next; the bytes must stay untouched meanwhile.
///
/// For reading one array in parts, each with a parser of its own: from is 0 to start at the array's '[', or the
/// offset of an element's first byte, a '{' (which the caller knows to be one: the part before it stopped there);
/// until is the offset where the reading stops (tj_elements_next returns -2) if an element starts exactly there,
/// or SIZE_MAX. An until that turns out to lie inside an element (or a string) is dropped: the reading then goes on
/// to the array's close.
int tj_elements_begin(tj_parser *parser, const uint8_t *bytes, size_t len, size_t window, size_t from, size_t until);

/// Parses the next element as a document of its own (one level of nesting less than the parser's limit): TJ_SUCCESS
/// (its tape is tj_element_tape), -1 after the last one (the array's ']' and only whitespace after it), -2 when the
/// next element starts at tj_elements_begin's until, or an error code (TJ_TAPE_ERROR when the commas and brackets
/// between elements are wrong). Succeeding over all elements means the whole document is valid JSON.
int tj_elements_next(tj_parser *parser);

/// The tape of the element tj_elements_next parsed last.
const uint64_t *tj_element_tape(const tj_parser *parser);

/// The string buffer of the element tj_elements_next parsed last.
const uint8_t *tj_element_string_buffer(const tj_parser *parser);

/// The tape of the last successful parse.
const uint64_t *tj_tape(const tj_parser *parser);

/// The string buffer of the last successful parse.
const uint8_t *tj_string_buffer(const tj_parser *parser);

/// The structural index of the last successful tj_parse or tj_parse_in_place: the byte offset (from the start of
/// what was parsed) of every '{', '}', '[', ']', ':' and ',' and of the first byte of every string (its opening
/// quote), number, true, false and null, in document order; *count is set to how many. The tape's values come in the
/// same order, so that each one's place in the bytes is found beside it. Owned by the parser, as the tape.
const uint32_t *tj_structural_indexes(const tj_parser *parser, size_t *count);

/// The text for one of the TJ_ error codes above (static storage): simdjson 3.0's wording, whichever simdjson is
/// linked (4.0 prefixes its texts with the code's name), so that messages do not change with the library.
const char *tj_error_message(int code);

#ifdef __cplusplus
}
#endif
#endif
