internal import CSimdJSON

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

// The only Swift file that imports CSimdJSON: a parser that owns simdjson's handle, and a read-only view of the
// tape it fills (see tether_simdjson.h for the tape's layout).

/// A JSON parser (simdjson's DOM parser) that keeps its buffers between documents.
///
/// `JSONValue.parse(_:maxDepth:)` and `JSONShape.findings(live:strict:)` make a parser per call; code that reads many
/// bodies in a row can keep one and save the allocation and first touch of its buffers (for large bodies about a third
/// of the parse time). The buffers stay as large as the largest document read. Not `Sendable`: one per task, never
/// shared.
public final class JSONParser {
    private let handle: OpaquePointer
    /// How deeply arrays and objects may nest; deeper input is an error.
    public let maxDepth: Int

    /// A parser with no buffers yet.
    /// - Parameter maxDepth: How deeply arrays and objects may nest (at least 1).
    /// - Throws: `JSONParseError` when the parser cannot be allocated.
    public init(maxDepth: Int = 1024) throws(JSONParseError) {
        // simdjson counts the document itself as a level (its limit N allows N - 1 nested containers); `maxDepth`
        // means nested containers, as `JSONReader`'s does, so both refuse exactly the same documents.
        guard let handle = tj_parser_create(max(1, maxDepth) + 1) else {
            throw JSONParseError(reason: .outOfMemory, detail: "out of memory while creating a JSON parser")
        }
        self.handle = handle
        self.maxDepth = max(1, maxDepth)
    }

    /// Parses a document into a value, as `JSONValue.parse(_:maxDepth:)` does.
    /// - Parameter bytes: The document, UTF-8.
    /// - Returns: The document's root value.
    /// - Throws: `JSONParseError` for input that is not JSON.
    public func parse(_ bytes: Data) throws(JSONParseError) -> JSONValue {
        try withDocument(bytes) { tape in JSONValue.build(tape: tape, at: JSONTape.rootIndex) }
    }

    /// Checks that `bytes` are one JSON document without building a value.
    /// - Parameter bytes: The document, UTF-8.
    /// - Throws: `JSONParseError` for input that is not JSON.
    public func validate(_ bytes: Data) throws(JSONParseError) {
        try withDocument(bytes) { _ in () }
    }

    deinit {
        tj_parser_destroy(handle)
    }

    /// Reads a document as `JSONReader.document(_:)` does, the value with the place of each of its values and keys,
    /// at simdjson's speed: the tape gives the values, simdjson's structural index their places (for the spec
    /// loader, whose documents run to tens of megabytes).
    /// - Parameter bytes: The document, UTF-8.
    /// - Returns: The document, or `nil` when simdjson refuses it: `JSONReader` then says where and why.
    @_spi(Testing) public func document(_ bytes: Data) -> JSONDocument? {
        guard bytes.count <= JSONPositions.maxBytes, parseTape(bytes) == TJ_SUCCESS, let words = tj_tape(handle),
            let strings = tj_string_buffer(handle)
        else { return nil }
        var count = 0
        guard let indexes = tj_structural_indexes(handle, &count) else { return nil }
        return JSONDocument.build(
            tape: JSONTape(words: words, strings: strings),
            structurals: UnsafeBufferPointer(start: indexes, count: count),
            bytes: bytes, skipped: bytes.withUnsafeBytes(JSONInputScan.byteOrderMarkLength))
    }

    /// Parses `bytes` and calls `body` with the document's tape, which is valid only during the call.
    /// - Throws: `JSONParseError` for input that is not JSON.
    func withDocument<R>(_ bytes: Data, _ body: (JSONTape) -> R) throws(JSONParseError) -> R {
        let code = parseTape(bytes)
        guard code == TJ_SUCCESS else {
            throw JSONParseError(simdjsonCode: code, input: bytes, maxDepth: maxDepth)
        }
        guard let words = tj_tape(handle), let strings = tj_string_buffer(handle) else {
            throw JSONParseError(reason: .invalid, detail: "not valid JSON: the parser produced no document")
        }
        return body(JSONTape(words: words, strings: strings))
    }

    /// Parses `bytes` (after a byte order mark) into the parser's tape; simdjson's code, as the shim names it.
    private func parseTape(_ bytes: Data) -> Int32 {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return Int32(TJ_EMPTY) }
            // A UTF-8 byte order mark at the start is skipped, as `JSONReader` and Foundation's decoders do.
            let bom = JSONInputScan.byteOrderMarkLength(raw)
            guard raw.count > bom else { return Int32(TJ_EMPTY) }
            let start = base.assumingMemoryBound(to: UInt8.self)
            // A body from `PaddedBytes` has simdjson's padding after it: parsed where it is, without a copy.
            if PaddedBytes.hasPadding(start, count: raw.count) {
                return tj_parse_in_place(handle, start + bom, raw.count - bom)
            }
            return tj_parse(handle, start + bom, raw.count - bom)
        }
    }
}

/// A growing byte buffer with simdjson's padding after its end, for a body as it arrives (libcurl's write callback):
/// it becomes a `Data` without a copy, and `JSONParser` parses that `Data` in place, with no padded copy of its own.
///
/// For a 20 MB body this is one 20 MB buffer first-touched once, instead of a fresh `Data` and a padded copy (two,
/// each page-faulted in). Large buffers are advised to use huge pages (Linux; the shim's `advise_huge`), and a large
/// announced body has its pages faulted in ahead of it on another core (`Prefault`). Not `Sendable`: it belongs to
/// one transfer; the `Data` it hands over is an ordinary value.
final class PaddedBytes {
    private var base: UnsafeMutablePointer<UInt8>?
    /// Bytes written so far.
    private(set) var count = 0
    /// Bytes that fit before the buffer must grow (the padding comes on top).
    private var capacity = 0
    /// The thread faulting in the buffer's pages, if one was started; stopped before the buffer moves or is handed
    /// over.
    private var prefault: Prefault?

    /// A first reservation this large or larger is faulted in ahead of the body (`Prefault`).
    static let prefaultBytes = 4 << 20

    init() {}

    deinit {
        prefault?.stop()
        tj_buffer_free(base)
    }

    /// Makes room for `total` bytes in all (an announced `Content-Length`); returns whether memory was found.
    func reserve(_ total: Int) -> Bool {
        guard total > capacity else { return true }
        prefault?.stop()
        prefault = nil
        let isNew = base == nil
        guard let grown = tj_buffer_resize(base, total) else { return false }
        base = grown
        capacity = total
        #if canImport(Glibc)  // elsewhere `tj_buffer_populate` cannot fault pages in: no thread for nothing
            if isNew, total >= Self.prefaultBytes { prefault = Prefault(grown, count: total) }
        #endif
        return true
    }

    /// Appends `bytes`, growing the buffer in place (doubling) when it is full; returns whether memory was found.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0, let source = bytes.baseAddress else { return true }
        if count + bytes.count > capacity, !reserve(max(count + bytes.count, capacity * 2, 16 << 10)) { return false }
        guard let base else { return false }
        (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
        return true
    }

    /// The bytes written as a `Data` that owns the buffer (no copy); this buffer is empty afterwards.
    func takeData() -> Data {
        prefault?.stop()
        prefault = nil
        guard let taken = base, count > 0 else { return Data() }
        // The padding is zeroed: simdjson may read it (any content would do; zeros keep it deterministic).
        (taken + count).initialize(repeating: 0, count: tj_padding())
        base = nil
        let length = count
        count = 0
        capacity = 0
        PaddedBytes.registry.insert(taken, capacity: length)
        return Data(
            bytesNoCopy: taken, count: length,
            deallocator: .custom { pointer, _ in
                PaddedBytes.registry.remove(pointer)
                tj_buffer_free(pointer.assumingMemoryBound(to: UInt8.self))
            })
    }

    /// Faults in a new buffer's pages, writable, on a thread of its own, 2 MB at a time from its start, while the
    /// body arrives: the kernel zeroes each page there, on the core that the download leaves idle, instead of in
    /// libcurl's write callback (a 20 MB body: about 5 ms of zeroing huge pages on the receiving thread). Nothing is
    /// written to the buffer (`tj_buffer_populate`), so the body may be written meanwhile. Started on Linux only;
    /// where the kernel cannot (before 5.14) the thread ends at its first call.
    private final class Prefault: @unchecked Sendable {
        private let lock = Lock()
        private var isStopped = false  // guarded by `lock`
        private var thread: DeepStack.Background?
        private static let chunk = 2 << 20

        init(_ start: UnsafeMutablePointer<UInt8>, count: Int) {
            let address = UInt(bitPattern: start)  // the buffer outlives the thread: `stop()` waits for it
            thread = DeepStack.Background(name: "tether-prefault") { [self] in
                var offset = 0
                while offset < count {
                    let length = min(Self.chunk, count - offset)
                    guard !lock.withLock({ isStopped }), let start = UnsafePointer<UInt8>(bitPattern: address),
                        tj_buffer_populate(start + offset, length) != 0
                    else { break }
                    offset += length
                }
            }
        }

        /// Waits until the thread has faulted in the whole buffer, stopped, or given up.
        func waitUntilDone() { thread?.wait() }

        /// Stops the thread after the chunk it is on, and waits until it has.
        func stop() {
            lock.withLock { isStopped = true }
            waitUntilDone()
        }
    }

    /// Whether a thread faulted in this buffer's pages; waits until it has finished (tests).
    var wasPrefaulted: Bool {
        prefault?.waitUntilDone()
        return prefault != nil
    }

    /// `bytes` copied into a buffer of this kind, as the transport hands a body over.
    static func copy(of bytes: Data) -> Data {
        let padded = PaddedBytes()
        return bytes.withUnsafeBytes { padded.append($0) } ? padded.takeData() : bytes
    }

    /// Whether the `count` bytes at `start` lie in a buffer handed over by `takeData()` that is still alive, from its
    /// beginning, so that simdjson's padding follows them. (A slice that starts later, or a copy, is not found.)
    static func hasPadding(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        registry.contains(start, count: count)
    }

    private static let registry = Registry()

    /// The live buffers handed over as `Data`, by address: `Data` cannot say where its bytes came from.
    private final class Registry: @unchecked Sendable {
        private let lock = Lock()
        private var lengths: [UInt: Int] = [:]  // guarded by `lock`

        func insert(_ start: UnsafeMutablePointer<UInt8>, capacity: Int) {
            lock.withLock { lengths[UInt(bitPattern: start)] = capacity }
        }

        func remove(_ start: UnsafeMutableRawPointer) {
            _ = lock.withLock { lengths.removeValue(forKey: UInt(bitPattern: start)) }
        }

        func contains(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
            lock.withLock { lengths[UInt(bitPattern: start)].map { count <= $0 } ?? false }
        }
    }
}

extension JSONParser {
    /// For tests, benchmarks and the fuzzer: `bytes` copied into a buffer as the transport's (`PaddedBytes`), which
    /// is parsed in place and, for a large array, element by element.
    /// - Parameter bytes: A body.
    /// - Returns: The same bytes, in such a buffer (`Data` keeps 15 bytes or fewer inline, as a plain copy).
    @_spi(Testing) public static func paddedCopy(of bytes: Data) -> Data { PaddedBytes.copy(of: bytes) }

    /// How reading elements (`withElements`) ended.
    enum ElementsEnd {
        /// At the array's close: every element from the start was read, and the whole body is valid JSON.
        case closed
        /// At `until`, where an element starts: every element before it was read.
        case stopped
        /// Not such an array, not `PaddedBytes`'s, or not valid JSON; `body` was perhaps called for some elements.
        case failed
    }

    /// Reads a body that is one JSON array element by element, each element's tape handed to `body` in turn and
    /// valid only during that call. When it fails, the caller reads the body whole (`withDocument`), which says why.
    ///
    /// This is for large bodies: nothing else is as large as the body. The whole document's tape and string buffer
    /// would be about 1.5 times the body, its structural index 4 bytes per token, each page first-touched; here
    /// simdjson's stage 1 indexes a window of about `windowBytes` at a time, and each element is parsed on its own
    /// into buffers as large as the largest element. Closing means the whole body is valid JSON, with the same
    /// depth limit.
    ///
    /// A body can be read in parts, each by a parser of its own (on a thread of its own): a part from `from` (the
    /// byte offset of an element's first byte, a `{`, as a part before it found by stopping there) stops at `until`
    /// when an element starts exactly there. An `until` that lies inside an element or a string is passed over: the
    /// part then reads on to the array's close.
    /// - Parameters:
    ///   - bytes: The body.
    ///   - windowBytes: How much stage 1 indexes at a time (tests make it small).
    ///   - from: `nil` to start at the array's `[`, else an element's first byte.
    ///   - until: Where to stop if an element starts there, or `nil`.
    ///   - body: Called with each element's tape.
    func withElements(
        _ bytes: Data, windowBytes: Int = 1 << 20, from: Int? = nil, until: Int? = nil, _ body: (JSONTape) -> Void
    ) -> ElementsEnd {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return .failed }
            let start = base.assumingMemoryBound(to: UInt8.self)
            guard PaddedBytes.hasPadding(start, count: raw.count) else { return .failed }
            let bom = JSONInputScan.byteOrderMarkLength(raw)
            if let from {
                guard from > bom else { return .failed }  // (the shim checks that an element starts there)
            } else {
                // Not an array at all (a drifted root): no index is built only to be dropped.
                guard let first = raw[bom...].first(where: { !JSONParser.isWhitespace($0) }),
                    first == UInt8(ascii: "[")
                else { return .failed }
            }
            let begun = tj_elements_begin(
                handle, start + bom, raw.count - bom, max(1, windowBytes), from.map { $0 - bom } ?? 0,
                until.map { $0 > bom ? $0 - bom : 0 } ?? Int.max)
            guard begun == TJ_SUCCESS else { return .failed }
            while true {
                let code = tj_elements_next(handle)
                if code == -1 { return .closed }
                if code == -2 { return .stopped }
                guard code == TJ_SUCCESS, let words = tj_element_tape(handle),
                    let strings = tj_element_string_buffer(handle)
                else { return .failed }
                body(JSONTape(words: words, strings: strings))
            }
        }
    }

    /// Where a body that is one large array of objects may be cut into `parts` parts read in parallel: for each cut
    /// after the first part, the first `{` at or after its share of the bytes that follows a `,` (whitespace
    /// between). A guess: it may lie in a string or a nested object; reading the part before it tells (see
    /// `withElements`). Fewer cuts when the body runs out of such places.
    static func cuts(_ bytes: Data, parts: Int) -> [Int] {
        guard parts > 1 else { return [] }
        return bytes.withUnsafeBytes { raw in
            var cuts: [Int] = []
            var from = 0
            for part in 1..<parts {
                var at = max(from + 1, raw.count / parts * part)
                while at < raw.count {
                    guard let brace = raw[at...].firstIndex(of: UInt8(ascii: "{")) else { return cuts }
                    var before = brace - 1
                    while before > 0, JSONParser.isWhitespace(raw[before]) { before -= 1 }
                    if before > 0, raw[before] == UInt8(ascii: ",") {
                        cuts.append(brace)
                        break
                    }
                    at = brace + 1
                }
                guard let last = cuts.last, cuts.count == part else { return cuts }
                from = last
            }
            return cuts
        }
    }

    /// Whether `byte` is JSON's whitespace (space, line feed, carriage return, tab): the one test for it in this module.
    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

extension JSONParseError {
    /// The error for simdjson's `code`, in words; looks at `input` again (only on this error path) for a location.
    init(simdjsonCode code: Int32, input: Data, maxDepth: Int) {
        let simdjsonText = tj_error_message(code).map { String(cString: $0) } ?? "unknown error \(code)"
        switch Int(code) {
        case Int(TJ_EMPTY):
            self.init(reason: .empty, detail: "not valid JSON: the input is empty")
        case Int(TJ_UTF8_ERROR):
            if let offset = JSONInputScan.firstInvalidUTF8Offset(in: input) {
                let (line, column) = JSONInputScan.lineAndColumn(ofByte: offset, in: input)
                self.init(
                    reason: .invalidUTF8,
                    detail: JSONParseError.invalidUTF8(input[input.startIndex + offset], at: offset),
                    line: line, column: column,
                    byteOffset: offset)
            } else {
                self.init(reason: .invalidUTF8, detail: "not valid UTF-8")
            }
        case Int(TJ_CAPACITY):
            self.init(reason: .tooLarge, detail: "document too large for the JSON parser (\(input.count) bytes)")
        case Int(TJ_MEMALLOC):
            self.init(reason: .outOfMemory, detail: "out of memory while parsing \(input.count) bytes of JSON")
        default:
            // simdjson says neither where nor, for numbers, which problem: the reader for files says both, in the
            // same words as for manifests. (Should it accept what simdjson refused, simdjson's word stands.)
            do {
                _ = try JSONReader(maxDepth: maxDepth).value(input)
                self.init(
                    reason: .invalid,
                    detail: "not valid JSON: " + simdjsonText.prefix(1).lowercased() + simdjsonText.dropFirst())
            } catch {
                self = error
            }
        }
    }
}

/// A read-only view of a parsed document's tape and string buffer; valid only while its parser is untouched.
/// Positions are word indexes; the root value starts at `JSONTape.rootIndex`.
struct JSONTape {
    let words: UnsafePointer<UInt64>
    let strings: UnsafePointer<UInt8>

    static let rootIndex = 1

    // Tape type characters.
    static let objectStart = UInt8(ascii: "{")
    static let objectEnd = UInt8(ascii: "}")
    static let arrayStart = UInt8(ascii: "[")
    static let arrayEnd = UInt8(ascii: "]")
    static let string = UInt8(ascii: "\"")
    static let int64 = UInt8(ascii: "l")
    static let uint64 = UInt8(ascii: "u")
    static let double = UInt8(ascii: "d")
    static let null = UInt8(ascii: "n")
    static let `true` = UInt8(ascii: "t")
    static let `false` = UInt8(ascii: "f")
    static let root = UInt8(ascii: "r")

    /// The type character of the word at `index`.
    @inline(__always) func tag(_ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: words[index] &>> 56)
    }

    /// For a `{` or `[` word: the index just past its matching close.
    @inline(__always) func containerEnd(_ index: Int) -> Int {
        Int(UInt32(truncatingIfNeeded: words[index]))
    }

    /// For a `{` or `[` word: how many members or elements it has (saturated at 0xFFFFFF).
    @inline(__always) func containerCount(_ index: Int) -> Int {
        Int((words[index] &>> 32) & 0xFF_FFFF)
    }

    /// The index of the value after the one at `index`.
    @inline(__always) func next(_ index: Int) -> Int {
        switch tag(index) {
        case JSONTape.objectStart, JSONTape.arrayStart: containerEnd(index)
        case JSONTape.int64, JSONTape.uint64, JSONTape.double: index + 2
        default: index + 1
        }
    }

    /// The bytes of the string (or key) at `index`, without copying.
    @inline(__always) func stringBytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let offset = Int(words[index] & 0x00FF_FFFF_FFFF_FFFF)
        let lengthBytes = UnsafeRawPointer(strings + offset)
        let length = Int(UInt32(littleEndian: lengthBytes.loadUnaligned(as: UInt32.self)))
        return UnsafeBufferPointer(start: strings + offset + 4, count: length)
    }

    @inline(__always) func string(_ index: Int) -> String {
        String(decoding: stringBytes(index), as: UTF8.self)
    }

    @inline(__always) func int64Value(_ index: Int) -> Int64 { Int64(bitPattern: words[index + 1]) }
    @inline(__always) func uint64Value(_ index: Int) -> UInt64 { words[index + 1] }
    @inline(__always) func doubleValue(_ index: Int) -> Double { Double(bitPattern: words[index + 1]) }
}
