#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The JSON reader for everything a person writes: manifests, sample files and HAR files. Pure Swift (no C, so it can
/// live where an iOS test target links), strict RFC 8259 (no trailing commas, no comments, no `NaN`), integers kept
/// apart from fractions, object members in document order, and every error with the line and column where the bytes
/// go wrong. simdjson stays the parser for live bodies and OpenAPI documents (`JSONParser`, in TetherKit, which gives
/// the same values and places); its errors are located by this reader.
///
/// A UTF-8 byte order mark at the very start is skipped (RFC 8259 §8.1 lets a parser ignore it, and editors on
/// Windows write it); anywhere else it is an ordinary character.
public struct JSONReader: Sendable {
    /// How deeply arrays and objects may nest; deeper input is an error, never a crash.
    public var maxDepth: Int
    /// From how many bytes after the first element of a deferred path's first-level array (a manifest's `targets`)
    /// the array's second half is read on a thread of its own while this one reads the first (`JSONScanner.Tail`).
    package var tailBytes = 128 << 10

    /// - Parameter maxDepth: How deeply arrays and objects may nest (at least 1).
    public init(maxDepth: Int = 1024) {
        self.maxDepth = max(1, maxDepth)
    }

    /// Reads one JSON document.
    /// - Parameter bytes: The document, UTF-8.
    /// - Returns: Its root value.
    /// - Throws: `JSONParseError` with the line and column of the first problem.
    public func value(_ bytes: Data) throws(JSONParseError) -> JSONValue {
        var positions: JSONPositions?
        var deferred = Deferred()
        return try read(bytes, positions: &positions, deferred: &deferred)
    }

    /// Checks one JSON document as `value(_:)` reads it, the same errors at the same places, without building it: a
    /// stub kept as its text (`JSONStub`) is checked once and read where a response is compared with it.
    /// - Parameter bytes: The document, UTF-8.
    /// - Throws: `JSONParseError` with the line and column of the first problem.
    package func check(_ bytes: Data) throws(JSONParseError) {
        var positions: JSONPositions?
        var deferred = Deferred()
        _ = try read(bytes, positions: &positions, building: false, deferred: &deferred)
    }

    /// Reads one JSON document and where each of its values and keys starts, for messages that point into the file.
    /// - Parameter bytes: The document, UTF-8.
    /// - Returns: The document.
    /// - Throws: `JSONParseError` with the line and column of the first problem.
    public func document(_ bytes: Data) throws(JSONParseError) -> JSONDocument {
        try document(bytes, deferring: [])
    }

    /// As `document(_:)`, with every value at `deferred` (a path of keys and `.any`, `targets[*].sampleData.json`)
    /// checked as strictly as the rest but not built: the tree holds `null` there, the document its text
    /// (`JSONDocument.deferredText(of:)`), and nothing inside it is numbered. A manifest's stubs are most of its
    /// values and are read again only when a response is checked against them.
    /// `checkpoints`: the line checkpoints of `bytes`, when another thread counts them already.
    /// `earlier`: a document read before with the same `deferred` path by a reader of the same `maxDepth` (another
    /// version of the same manifest): a deferred value here whose bytes are those of the deferred value at the same
    /// place in the order there, an object, array or string, is that same valid value, and is passed over with one
    /// comparison instead of checked byte by byte (the same document, the same errors).
    func document(
        _ bytes: Data, deferring deferred: [JSONPathPattern.Step],
        checkpoints: JSONLineCheckpoints = JSONLineCheckpoints(), like earlier: JSONDocument? = nil
    ) throws(JSONParseError) -> JSONDocument {
        guard bytes.count <= JSONPositions.maxBytes else {
            throw JSONParseError(
                reason: .tooLarge, detail: "\(bytes.count) bytes is more than the 4 GiB a manifest may have; split it")
        }
        var positions: JSONPositions? = JSONPositions()
        var read = Deferred()
        let root = try self.read(bytes, positions: &positions, deferring: deferred, like: earlier, deferred: &read)
        return JSONDocument(
            root: root, positions: positions ?? JSONPositions(), bytes: bytes, deferredValues: read.values,
            checkpoints: checkpoints, valuesLikeEarlier: read.likeEarlier, tailOffset: read.tailOffset)
    }

    /// One value of `whole` read on its own (a value `whole` deferred): a document whose root is that value, its
    /// places those in `whole` (the same bytes, lines and columns), with the values at `deferred` (a path from the
    /// value) deferred in turn. `whole`'s bytes were checked when it was read, so the value is read as it is.
    func document(of index: Int, in whole: JSONDocument, deferring deferred: [JSONPathPattern.Step])
        throws(JSONParseError) -> JSONDocument
    {
        let span = whole.positions.span(of: index)
        var positions: JSONPositions? = JSONPositions()
        var deferredValues: [Int] = []
        let result: Result<JSONValue, JSONParseError> = whole.bytes.withUnsafeBytes { raw in
            // The bytes up to the value's end: the scanner's end of input is the value's.
            let bytes = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[..<span.upperBound])
            var scanner = JSONScanner(bytes: bytes, maxDepth: maxDepth, deferred: deferred)
            do throws(JSONParseError) {
                let root = try scanner.document(positions: &positions, from: span.lowerBound)
                deferredValues = scanner.deferredValues
                return .success(root)
            } catch {
                return .failure(error)
            }
        }
        return JSONDocument(
            root: try result.get(), positions: positions ?? JSONPositions(), bytes: whole.bytes,
            deferredValues: deferredValues, checkpoints: whole.checkpoints)
    }

    /// What a reading deferred: the numbers of the values read but not built, and how many of them had the bytes
    /// of the earlier document's (`document(_:deferring:checkpoints:like:)`).
    private struct Deferred {
        var values: [Int] = []
        var likeEarlier = 0
        var tailOffset: Int?
    }

    private func read(
        _ bytes: Data, positions: inout JSONPositions?, deferring deferredPath: [JSONPathPattern.Step] = [],
        like earlier: JSONDocument? = nil, building: Bool = true, deferred: inout Deferred
    ) throws(JSONParseError) -> JSONValue {
        let earlierValues = earlier?.deferredSpans() ?? []
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            (earlier?.bytes ?? Data()).withUnsafeBytes { earlierBytes in
                var scanner = JSONScanner(
                    bytes: raw.bindMemory(to: UInt8.self), maxDepth: maxDepth, deferred: deferredPath)
                scanner.earlier = (earlierBytes, earlierValues)
                if earlierValues.isEmpty && positions != nil && JSONScanner.Tail.canRead(deferredPath) {
                    scanner.tailBytes = tailBytes
                }
                // The tail's thread reads these bytes: it must be done before they may go.
                defer { _ = scanner.tail?.wait() }
                do throws(JSONParseError) {
                    guard building else {
                        try scanner.check()
                        return .success(.null)
                    }
                    let root = try scanner.document(positions: &positions)
                    deferred = Deferred(
                        values: scanner.deferredValues, likeEarlier: scanner.valuesLikeEarlier,
                        tailOffset: scanner.tailTaken)
                    return .success(root)
                } catch {
                    return .failure(error)
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            guard let offset = failure.byteOffset else { throw failure }
            let (line, column) = JSONInputScan.lineAndColumn(ofByte: offset, in: bytes)
            var located = failure
            located.line = line
            located.column = column
            throw located
        }
    }
}

extension JSONReader {
    /// Reads `bytes` on one thread and with the second half of the deferred path's first-level array on another at
    /// any length (`tailBytes` 0, where a manifest waits for 128 KB): what differs between the two readings, `nil`
    /// when they give the same document (its tree, places and deferred texts) or the same error (its detail, line
    /// and column); and the second reading. For the tests and the manifest fuzzer, whose inputs are far shorter than
    /// a manifest read in two halves.
    @_spi(Testing) public func halvesDiffer(_ bytes: Data, deferring deferred: [JSONPathPattern.Step]) -> (
        difference: String?, twoHalves: JSONDocument?
    ) {
        var oneThread = self
        oneThread.tailBytes = .max
        var twoThreads = self
        twoThreads.tailBytes = 0
        let one = Result { () throws(JSONParseError) in try oneThread.document(bytes, deferring: deferred) }
        let two = Result { () throws(JSONParseError) in try twoThreads.document(bytes, deferring: deferred) }
        switch (one, two) {
        case (.failure(let first), .failure(let second)):
            let same = second.detail == first.detail && second.line == first.line && second.column == first.column
            return (same ? nil : "errors \(first) and \(second)", nil)
        case (.success(let first), .success(let second)):
            if first.tailOffset != nil { return ("the one thread's reading has a tail", second) }
            if second.root != first.root { return ("roots \(first.root) and \(second.root)", second) }
            if second.positions != first.positions { return ("the values' places", second) }
            for value in 0..<first.positions.count
            where second.deferredText(of: value) != first.deferredText(of: value) {
                return ("value \(value)'s deferred text", second)
            }
            return (nil, second)
        case (.failure(let error), .success): return ("only the one thread's reading failed: \(error)", nil)
        case (.success, .failure(let error)): return ("only the reading in two halves failed: \(error)", nil)
        }
    }
}

extension JSONValue {
    /// Parses a JSON document with `JSONReader` (pure Swift; simdjson's `JSONParser` is for live bodies).
    ///
    /// Object members keep their document order (and repeated keys); numbers written without fraction or exponent
    /// become `.integer` (or `.unsignedInteger` above `Int64.max`), all others `.double`.
    /// - Parameters:
    ///   - bytes: The document, UTF-8; a byte order mark at the start is skipped.
    ///   - maxDepth: How deeply arrays and objects may nest; deeper input is an error, never a crash.
    /// - Returns: The document's root value.
    /// - Throws: `JSONParseError` for empty input, invalid JSON or UTF-8, too deep nesting, numbers out of range,
    ///   with the line and column.
    public static func parse(_ bytes: Data, maxDepth: Int = 1024) throws(JSONParseError) -> JSONValue {
        try JSONReader(maxDepth: maxDepth).value(bytes)
    }
}

/// A document read by `JSONReader.document(_:)`: the value, and where in the bytes each part of it starts.
///
/// A class: every `ManifestNode` of a manifest holds its document, and a struct of six buffers would be retained and
/// released six times for each node copied (millions of times for a large manifest).
public final class JSONDocument: Sendable {
    /// The root value.
    public let root: JSONValue
    let positions: JSONPositions
    let bytes: Data
    /// The line and column at every `checkpointStride`-th byte, so that a place is found by scanning at most that
    /// many bytes (a manifest of thousands of targets, even on one line, asks for thousands of places). Counted on
    /// the first place asked for: a document whose places are never needed (a spec that a clean run checks against)
    /// does not pay for the pass over its bytes.
    let checkpoints: JSONLineCheckpoints
    /// A line and column in 32 bits each (a manifest is under 4 GiB): half the size of two `Int`s, for a checkpoint
    /// per 256 bytes (3.7 MB less for a 120 MB manifest).
    fileprivate struct Checkpoint {
        var line: UInt32
        var column: UInt32
    }
    fileprivate static let checkpointStride = 256

    /// The numbers of the values read but not built (`JSONReader.document(_:deferring:)`), ascending.
    private let deferredValues: [Int]
    /// How many of them had the bytes of the same value of an earlier document, and were not checked again
    /// (`JSONReader.document(_:deferring:checkpoints:like:)`).
    package let valuesLikeEarlier: Int
    /// Where the second half of its first-level array began, when it was read on another thread
    /// (`JSONReader.tailBytes`).
    package let tailOffset: Int?

    /// - Parameters:
    ///   - root: The value.
    ///   - positions: Where each of its values starts and ends.
    ///   - bytes: The document's bytes.
    ///   - deferredValues: The numbers of the values read but not built.
    ///   - checkpoints: The line checkpoints of `bytes`, if they are being counted already (else counted when a
    ///     place is first asked for).
    ///   - valuesLikeEarlier: How many deferred values an earlier document had alike.
    package init(
        root: JSONValue, positions: JSONPositions, bytes: Data, deferredValues: [Int] = [],
        checkpoints: JSONLineCheckpoints = JSONLineCheckpoints(), valuesLikeEarlier: Int = 0, tailOffset: Int? = nil
    ) {
        self.root = root
        self.positions = positions
        self.bytes = bytes
        self.deferredValues = deferredValues
        self.checkpoints = checkpoints
        self.valuesLikeEarlier = valuesLikeEarlier
        self.tailOffset = tailOffset
    }

    /// A second object for the same document (the same value, places and bytes, shared, not copied): for a thread
    /// of its own, whose nodes then retain and release a reference count no other thread touches.
    func sharingContents() -> JSONDocument {
        JSONDocument(
            root: root, positions: positions, bytes: bytes, deferredValues: deferredValues, checkpoints: checkpoints)
    }

    /// The line and column at every `checkpointStride`-th byte of `bytes`.
    fileprivate static func count(_ bytes: Data) -> [Checkpoint] {
        var checkpoints = [Checkpoint(line: 1, column: 1)]
        checkpoints.reserveCapacity(bytes.count / Self.checkpointStride + 1)
        bytes.withUnsafeBytes { raw in  // one pass: each checkpoint counts on from the one before
            let bom = JSONInputScan.byteOrderMarkLength(raw)
            var place = (line: 1, column: 1)
            var offset = 0
            var nextRelease = MappedFiles.bytesBetweenReleases  // a mapped manifest's pages, as the pass moves on
            while offset + Self.checkpointStride <= raw.count {
                let end = offset + Self.checkpointStride
                MappedFiles.releaseReadPages(reaching: end, due: &nextRelease)
                JSONInputScan.count(raw, from: max(offset, bom), to: end, into: &place)  // end > the 3-byte mark
                checkpoints.append(
                    Checkpoint(
                        line: UInt32(truncatingIfNeeded: place.line), column: UInt32(truncatingIfNeeded: place.column)))
                offset = end
            }
        }
        return checkpoints
    }
}

/// The line and column at every 256th byte of a document (`JSONDocument`'s places), counted once, by the first thread
/// that needs them, or ahead (`count(_:)`) by a thread that has nothing else to do.
package final class JSONLineCheckpoints: @unchecked Sendable {
    private let lock = Lock()
    private var counted: [JSONDocument.Checkpoint]?  // guarded by `lock`

    package init() {}

    /// Counts the checkpoints of `bytes` now (they must be the bytes of the document that holds this).
    package func count(_ bytes: Data) { _ = get(bytes) }

    fileprivate func get(_ bytes: Data) -> [JSONDocument.Checkpoint] {
        lock.lock()
        defer { lock.unlock() }
        if let counted { return counted }
        let made = JSONDocument.count(bytes)
        counted = made
        return made
    }
}

extension JSONDocument {
    /// The number of the first value after value `index` and everything inside it (its next sibling, if it has one),
    /// for walks that follow the tree and its places together (the spec reader).
    package func value(after index: Int) -> Int { positions.next(after: index) }

    /// Where each deferred value is in the bytes, in the order of the document.
    fileprivate func deferredSpans() -> [Range<Int>] { deferredValues.map { positions.span(of: $0) } }

    /// The text of value `index` when it was deferred (its tree holds `null`): a slice that shares the document's
    /// bytes, which `JSONReader` reads without error. `nil` for a value that was built.
    func deferredText(of index: Int) -> Data? {
        var low = 0
        var high = deferredValues.count
        while low < high {
            let middle = (low + high) / 2
            if deferredValues[middle] < index { low = middle + 1 } else { high = middle }
        }
        guard low < deferredValues.count, deferredValues[low] == index else { return nil }
        let span = positions.span(of: index)
        return bytes[(bytes.startIndex + span.lowerBound)..<(bytes.startIndex + span.upperBound)]
    }

    /// The value a decoder's coding path names (object keys and array offsets from the root), with its 1-based line
    /// and column; nil when the document has none there. For a `DecodingError` to say where, and what was found.
    package func value(atCodingPath path: [any CodingKey]) -> (value: JSONValue, line: Int, column: Int)? {
        var (value, index) = (root, 0)
        for key in path {
            var child = index + 1
            let offset: Int
            switch value {
            case .array(let elements):
                guard let element = key.intValue, elements.indices.contains(element) else { return nil }
                (offset, value) = (element, elements[element])
            case .object(let members):
                guard let member = members.firstIndex(where: { $0.key == key.stringValue }) else { return nil }
                (offset, value) = (member, members[member].value)
            default:
                return nil
            }
            for _ in 0..<offset { child = positions.next(after: child) }
            index = child
        }
        let (line, column) = lineAndColumn(ofValue: index)
        return (value, line, column)
    }

    /// The 1-based line and column (in characters) of the value numbered `index` in pre-order (the root is 0), or of
    /// its key when `key` is true and the value is an object member. As `JSONInputScan.lineAndColumn`, faster.
    package func lineAndColumn(ofValue index: Int, key: Bool = false) -> (line: Int, column: Int) {
        let offset = min(positions.offset(of: index, key: key), bytes.count)
        let checkpoints = checkpoints.get(bytes)
        let checkpoint = min(offset / Self.checkpointStride, checkpoints.count - 1)
        let place = checkpoints[checkpoint]
        return JSONInputScan.lineAndColumn(
            ofByte: offset, in: bytes, from: (checkpoint * Self.checkpointStride, Int(place.line), Int(place.column)))
    }
}

/// Byte offsets of every value of a document, numbered in pre-order (a container before its contents), so that a
/// walk over the value can find any part's place without a second tree.
///
/// One entry of four 32-bit numbers per value (16 bytes; four arrays of `Int` were 32): a manifest of 100,000 inline
/// stubs has about 5 million values. `JSONReader.document` refuses input of 4 GiB or more, so every offset fits.
package struct JSONPositions: Sendable, Equatable {
    private struct Entry: Equatable {
        /// Where the value starts.
        var value: UInt32
        /// Where its key starts (its opening quote), or `noKey` when it is not an object member.
        var key: UInt32
        /// The number of the first value after this one and everything inside it.
        var subtreeEnd: UInt32
        /// The offset just past the value's last byte (its closing quote, bracket or digit), so that
        /// `value ..< end` is its text (what `tether update` rewrites in place).
        var end: UInt32
    }

    private static let noKey = UInt32.max
    /// The largest input whose offsets fit in an entry.
    package static let maxBytes = Int(UInt32.max) - 1
    private var entries: [Entry] = []

    package init() {}

    /// Room for `count` values in all, made at once.
    package mutating func reserveCapacity(_ count: Int) { entries.reserveCapacity(count) }

    /// Records a value that starts at `offset` (with its key at `keyOffset`, or -1); returns its number.
    package mutating func begin(at offset: Int, keyOffset: Int) -> Int {
        let start = UInt32(truncatingIfNeeded: offset)
        entries.append(
            Entry(
                value: start, key: keyOffset < 0 ? Self.noKey : UInt32(truncatingIfNeeded: keyOffset),
                subtreeEnd: UInt32(truncatingIfNeeded: entries.count + 1), end: start))
        return entries.count - 1
    }

    /// Marks the end of the value numbered `index`, just before `offset`: for a container, everything recorded since
    /// belongs to it.
    package mutating func end(_ index: Int, at offset: Int) {
        entries[index].subtreeEnd = UInt32(truncatingIfNeeded: entries.count)
        entries[index].end = UInt32(truncatingIfNeeded: offset)
    }

    /// Adds the values of `other`, numbered on from this one's (a document's tail read on its own, `JSONScanner.Tail`).
    package mutating func append(_ other: JSONPositions) {
        let base = UInt32(truncatingIfNeeded: entries.count)
        entries.reserveCapacity(entries.count + other.entries.count)
        for var entry in other.entries {
            entry.subtreeEnd += base
            entries.append(entry)
        }
    }

    /// The bytes of value `index`: from its first byte to just past its last.
    func span(of index: Int) -> Range<Int> { Int(entries[index].value)..<Int(entries[index].end) }

    /// How many values the document has.
    package var count: Int { entries.count }

    func offset(of index: Int, key: Bool) -> Int {
        guard entries.indices.contains(index) else { return 0 }
        let entry = entries[index]
        return Int(key && entry.key != Self.noKey ? entry.key : entry.value)
    }

    /// The number of the value after value `index` at the same level (its next sibling, if there is one).
    func next(after index: Int) -> Int {
        entries.indices.contains(index) ? Int(entries[index].subtreeEnd) : index + 1
    }
}

/// One pass over the bytes with an explicit stack (deep nesting cannot overflow the thread's stack).
private struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// Where values are checked but not built (`JSONReader.document(_:deferring:)`); empty for none.
    let deferred: [JSONPathPattern.Step]
    /// The numbers (positions) of the values deferred so far, ascending.
    var deferredValues: [Int] = []
    /// The bytes of a document read before and where its deferred values are (`JSONReader.document(_:deferring:
    /// checkpoints:like:)`): the deferred value of the same number here, when its bytes are the same, is not checked
    /// again.
    var earlier: (bytes: UnsafeRawBufferPointer, values: [Range<Int>]) = (
        UnsafeRawBufferPointer(start: nil, count: 0), []
    )
    /// How many deferred values were the earlier document's.
    var valuesLikeEarlier = 0
    var index = 0
    /// From how many bytes after its first element a deferred path's first-level array has its second half read on
    /// another thread (`Tail`); `Int.max` for never.
    var tailBytes = Int.max
    /// That reading, once started, until it is taken where it starts (`takeTail`).
    private(set) var tail: Tail?
    /// Where a tail's reading ends: just past the last element of the array it reads.
    private var tailEnd = 0
    /// Where the tail taken (`takeTail`) began.
    private(set) var tailTaken: Int?
    /// How many bytes this reading moves on between two releases of a mapped manifest's pages (`MappedFiles`); fewer
    /// while a tail is read beside it (`Tail.bytesBetweenReleases`).
    private var bytesBetweenReleases = MappedFiles.bytesBetweenReleases

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, deferred: [JSONPathPattern.Step] = []) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.deferred = deferred
    }

    private struct Frame {
        var isObject: Bool
        var position: Int
        var elements: [JSONValue] = []
        var members: [JSONMember] = []
        var key = ""
    }

    /// The document checked, not built: `document(positions:)`'s errors at the same bytes.
    mutating func check() throws(JSONParseError) {
        try start()
        try skipValue(depth: 0)
        try finish()
    }

    /// Past a valid UTF-8 document's byte order mark and leading whitespace, at its first value.
    private mutating func start() throws(JSONParseError) {
        if let offset = JSONInputScan.firstInvalidUTF8Offset(in: bytes) {
            throw JSONParseError(
                reason: .invalidUTF8, detail: JSONParseError.invalidUTF8(bytes[offset], at: offset), byteOffset: offset)
        }
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else {
            throw JSONParseError(reason: .empty, detail: "not valid JSON: the input is empty")
        }
    }

    /// After the root value: only whitespace may follow.
    private mutating func finish() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else {
            throw invalid("text after the end of the document: \(describeByte())")
        }
    }

    /// The document's value; from `offset` when given, a value in bytes checked before (as UTF-8, and as JSON up to
    /// the value), else from the start of a document.
    mutating func document(positions: inout JSONPositions?, from offset: Int? = nil) throws(JSONParseError)
        -> JSONValue
    {
        if let offset { index = offset } else { try start() }
        return try values(positions: &positions, inside: [])
    }

    /// The values from the index on, inside the open containers `open` (none for a document; a tail's array and
    /// its object, `Tail`): the document's root, or, when `open` is given, the value of the innermost of them once it
    /// closes (its position not ended, its close not read), the index just past its last element (`tailEnd`).
    private mutating func values(positions: inout JSONPositions?, inside open: [Frame]) throws(JSONParseError)
        -> JSONValue
    {
        var stack = open
        let floor = open.count
        // The buffers of closed containers, emptied with their capacity kept: a container's contents are gathered in
        // one of them and copied out at its exact size when it closes. Growing each container's own array by
        // doubling left it up to half empty, for the life of the value (a manifest's stubs live for the whole run).
        var spareMembers: [[JSONMember]] = []
        var spareElements: [[JSONValue]] = []
        var keyOffset = -1
        // Where the next release of a mapped manifest's pages is due (after a deferred value, the bulk of a manifest):
        // counted from where the reading starts (a target read on its own starts deep in the file, and each released
        // every page of it).
        var nextRelease = index + bytesBetweenReleases
        while true {
            // A value starts here.
            guard index < bytes.count else { throw invalid("expected a value, got the end of the input") }
            var value: JSONValue
            if index == tail?.offset, let last = takeTail(&stack, &positions) {
                // This array's elements from here on were read on the tail's thread: on from the last of them.
                value = last
            } else {
                let start = index
                let position = positions?.begin(at: start, keyOffset: keyOffset) ?? 0
                keyOffset = -1
                if tailBytes != .max && stack.count == 2 { startTail(stack) }
                if stack.count == deferred.count && !deferred.isEmpty && Self.isDeferred(stack, deferred) {
                    if let length = earlierValueLength(at: deferredValues.count) {
                        index += length
                        valuesLikeEarlier += 1
                    } else {
                        try skipValue(depth: stack.count)
                    }
                    value = .null
                    deferredValues.append(position)
                    // A mapped manifest's pages go back to the page cache as the reader moves on (`MappedFiles`).
                    MappedFiles.releaseReadPages(reaching: index, due: &nextRelease, every: bytesBetweenReleases)
                } else {
                    switch bytes[index] {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        let isObject = bytes[index] == UInt8(ascii: "{")
                        index += 1
                        skipWhitespace()
                        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                        if index < bytes.count && bytes[index] == close {
                            index += 1
                            value = isObject ? .object([]) : .array([])
                        } else {
                            // Only a container with contents is a level (an empty one is a value, as simdjson counts it).
                            guard stack.count < maxDepth else {
                                throw JSONParseError(
                                    reason: .tooDeep, detail: "nested deeper than \(maxDepth) levels", byteOffset: start
                                )
                            }
                            var frame = Frame(isObject: isObject, position: position)
                            if isObject {
                                frame.members = spareMembers.popLast() ?? []
                            } else {
                                frame.elements = spareElements.popLast() ?? []
                            }
                            if isObject {
                                keyOffset = index
                                frame.key = try key()
                            }
                            stack.append(frame)
                            continue
                        }
                    case UInt8(ascii: "\""):
                        value = .string(try string())
                    case UInt8(ascii: "t"):
                        try literal("true")
                        value = .bool(true)
                    case UInt8(ascii: "f"):
                        try literal("false")
                        value = .bool(false)
                    case UInt8(ascii: "n"):
                        try literal("null")
                        value = .null
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        value = try number()
                    default:
                        throw invalid("expected a value, got \(describeByte())")
                    }
                }
                positions?.end(position, at: index)
            }
            // The value is complete: add it to its container, and close every container that ends here.
            while true {
                guard var frame = stack.popLast() else {
                    try finish()
                    return value
                }
                if frame.isObject {
                    frame.members.append(JSONMember(frame.key, value))
                } else {
                    frame.elements.append(value)
                }
                let closesTail = stack.count + 1 == floor
                if closesTail { tailEnd = index }
                if try afterMember(isObject: frame.isObject) {
                    if frame.isObject {
                        keyOffset = index
                        frame.key = try key()
                    }
                    stack.append(frame)
                    break
                }
                if closesTail { return .array(frame.elements) }
                positions?.end(frame.position, at: index)
                if frame.isObject {
                    value = .object(frame.members.withUnsafeBufferPointer { Array($0) })
                    frame.members.removeAll(keepingCapacity: true)
                    spareMembers.append(frame.members)
                } else {
                    value = .array(frame.elements.withUnsafeBufferPointer { Array($0) })
                    frame.elements.removeAll(keepingCapacity: true)
                    spareElements.append(frame.elements)
                }
            }
        }
    }

    /// The second half of a long document's first-level array at the deferred path (a manifest's `targets`), read on
    /// a thread of its own while this one reads the first half: the reading of a 120 MB manifest, most of its
    /// time before the first request, on both cores instead of one.
    ///
    /// Where the half starts is a guess (the first element's opening and first key, `{"name"`, after a comma, from
    /// the middle on), taken only where this thread's reading arrives at an element of that array at that very
    /// byte; the other thread's reading is that of the same code from the same state (the same open containers,
    /// depth and deferred path), so the document, its places and its errors are those of one thread. A wrong guess,
    /// or an error in the second half, and this thread reads on by itself, as without it.
    final class Tail: @unchecked Sendable {
        /// How many bytes each of the two readings moves on between two releases of a mapped manifest's pages:
        /// half as many as one reading alone, so that the pages read between two releases are as many as before.
        static let bytesBetweenReleases = MappedFiles.bytesBetweenReleases / 2

        /// Where the tail's first element starts.
        let offset: Int
        private let background: DeepStack.Background
        private let result: Result

        /// What the tail's thread read: the array's elements, their places numbered from 0, the numbers of the
        /// values it deferred, and the offset just past the last element; `nil` after an error.
        final class Result: @unchecked Sendable {
            var read: (elements: [JSONValue], positions: JSONPositions, deferred: [Int], end: Int)?
        }

        /// Whether a document read with `deferred` values has such an array: the path starts with a key and any
        /// element (`targets[*]`).
        static func canRead(_ deferred: [JSONPathPattern.Step]) -> Bool {
            guard deferred.count >= 2, case .key = deferred[0], case .any = deferred[1] else { return false }
            return true
        }

        init(_ scanner: JSONScanner, from offset: Int, key: String) {
            self.offset = offset
            let result = Result()
            self.result = result
            let tail = Reading(
                bytes: scanner.bytes, maxDepth: scanner.maxDepth, deferred: scanner.deferred, key: key)
            background = DeepStack.Background(name: "tether-tail", placement: .awayFromCaller) {
                result.read = tail.read(from: offset)
            }
        }

        /// Waits for the tail's reading; what it read (handed over once: its places are megabytes), or `nil`.
        func wait() -> (elements: [JSONValue], positions: JSONPositions, deferred: [Int], end: Int)? {
            background.wait()
            defer { result.read = nil }
            return result.read
        }

        /// What the tail's thread reads: the same bytes (the caller's reading waits for it before they may go), as
        /// deeply and with the same path deferred, inside the object member `key`.
        private struct Reading: @unchecked Sendable {
            let bytes: UnsafeBufferPointer<UInt8>
            let maxDepth: Int
            let deferred: [JSONPathPattern.Step]
            let key: String

            func read(from offset: Int) -> (elements: [JSONValue], positions: JSONPositions, deferred: [Int], end: Int)?
            {
                var scanner = JSONScanner(bytes: bytes, maxDepth: maxDepth, deferred: deferred)
                scanner.index = offset
                scanner.bytesBetweenReleases = Tail.bytesBetweenReleases
                var positions: JSONPositions? = JSONPositions()
                // The caller's open object and array: their positions are the caller's, never ended here.
                var object = Frame(isObject: true, position: 0)
                object.key = key
                guard
                    case .array(let elements)? = try? scanner.values(
                        positions: &positions, inside: [object, Frame(isObject: false, position: 1)]),
                    let positions
                else { return nil }
                return (elements, positions, scanner.deferredValues, scanner.tailEnd)
            }
        }
    }

    /// At a value two levels down: when it is the first element of the deferred path's first-level array
    /// (`targets[*]…`, `Tail.canRead`), starts reading that array's second half on another thread (`Tail`) if what is
    /// left is long enough and a start for it is found. Tried once, at that array.
    private mutating func startTail(_ stack: [Frame]) {
        guard let name = tailArrayKey(stack), stack[1].elements.isEmpty else { return }
        let bytesLeft = bytes.count - index
        defer { tailBytes = .max }
        guard bytesLeft >= tailBytes, let start = tailStart() else { return }
        tail = Tail(self, from: start, key: name)
        bytesBetweenReleases = Tail.bytesBetweenReleases
    }

    /// The deferred path's first key (`targets`) when the open containers `stack` are the root object at that member
    /// and its array: where a tail is started and taken.
    private func tailArrayKey(_ stack: [Frame]) -> String? {
        guard stack.count == 2, case .key(let name)? = deferred.first, stack[0].isObject, !stack[1].isObject,
            Self.sameBytes(stack[0].key, name)
        else { return nil }
        return name
    }

    /// Where the second half of the array whose first element starts at the index may start: the first comma from
    /// the middle of the bytes left that is followed (past whitespace) by the same opening and first key as that
    /// element's (`{"name"`). `nil` when the element is not an object with a plain key, or there is none.
    private func tailStart() -> Int? {
        guard let base = bytes.baseAddress, bytes[index] == UInt8(ascii: "{") else { return nil }
        func pastWhitespace(_ at: Int) -> Int {
            var probe = JSONScanner(bytes: bytes, maxDepth: maxDepth)
            probe.index = at
            probe.skipWhitespace()
            return probe.index
        }
        // The first key, its quotes included.
        let keyStart = pastWhitespace(index + 1)
        guard keyStart < bytes.count, bytes[keyStart] == UInt8(ascii: "\"") else { return nil }
        var keyEnd = keyStart + 1
        while keyEnd < bytes.count, bytes[keyEnd] != UInt8(ascii: "\""), bytes[keyEnd] != UInt8(ascii: "\\") {
            keyEnd += 1
        }
        guard keyEnd < bytes.count, bytes[keyEnd] == UInt8(ascii: "\"") else { return nil }
        let keyLength = keyEnd + 1 - keyStart
        var at = index + (bytes.count - index) / 2
        while at < bytes.count, let comma = memchr(base + at, Int32(UInt8(ascii: ",")), bytes.count - at) {
            let open = pastWhitespace(base.distance(to: comma.assumingMemoryBound(to: UInt8.self)) + 1)
            at = open
            guard open < bytes.count, bytes[open] == UInt8(ascii: "{") else { continue }
            let key = pastWhitespace(open + 1)
            if key + keyLength <= bytes.count && memcmp(base + key, base + keyStart, keyLength) == 0 { return open }
        }
        return nil
    }

    /// The tail's elements (`Tail`) when the index is where it starts, at an element of the array it reads: each
    /// added to that array's frame but the last, returned, their places and deferred values numbered on from this
    /// reading's, the index past the last. `nil` (this thread reads on) after a wrong guess or an error in the tail.
    private mutating func takeTail(_ stack: inout [Frame], _ positions: inout JSONPositions?) -> JSONValue? {
        guard let tail else { return nil }
        self.tail = nil
        defer { self.tail = tail }  // waited for again before the bytes go: at once
        guard tailArrayKey(stack) != nil, positions != nil, var read = tail.wait(), let last = read.elements.popLast()
        else { return nil }
        let base = positions?.count ?? 0
        positions?.append(read.positions)
        deferredValues.append(contentsOf: read.deferred.lazy.map { $0 + base })
        stack[1].elements.append(contentsOf: read.elements)
        tailTaken = index
        index = read.end
        return last
    }

    /// After a container's member or element: a `,` (true: the index is at the next member's key or element) or the
    /// container's close (false: the index is past it). Every other byte is an error, as is a comma before the close.
    private mutating func afterMember(isObject: Bool) throws(JSONParseError) -> Bool {
        skipWhitespace()
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        guard index < bytes.count else {
            throw invalid(
                "the input ends inside \(isObject ? "an object" : "an array") (missing '\(Character(Unicode.Scalar(close)))')"
            )
        }
        if bytes[index] == UInt8(ascii: ",") {
            let comma = index
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == close {
                throw JSONParseError(
                    reason: .invalid,
                    detail:
                        "not valid JSON: a comma before '\(Character(Unicode.Scalar(close)))' (remove the trailing comma)",
                    byteOffset: comma)
            }
            return true
        }
        guard bytes[index] == close else {
            let what = isObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
            throw invalid("expected \(what), got \(describeByte())")
        }
        index += 1
        return false
    }

    /// Whether the value about to be read, inside the open containers `stack`, is at the path `deferred` (as long as
    /// the stack).
    private static func isDeferred(_ stack: [Frame], _ deferred: [JSONPathPattern.Step]) -> Bool {
        // By index: `zip(stack, deferred)` copied each frame, the references to its arrays and key with it.
        for level in 0..<min(stack.count, deferred.count) {
            switch deferred[level] {
            case .any: continue
            case .key(let name):
                guard stack[level].isObject, sameBytes(stack[level].key, name) else { return false }
            case .index(let position):
                guard !stack[level].isObject, stack[level].elements.count == position else { return false }
            }
        }
        return true
    }

    /// Whether two strings have the same UTF-8 bytes (Swift's `==` takes canonically equivalent ones for one):
    /// lengths first, then the bytes in place (comparing `UTF8View`s element by element was most of this check).
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
    }

    /// The length of the earlier document's deferred value `number` when the bytes at the index are the same: an
    /// object, an array or a string (each ends where its bytes do, unlike a number that more digits may follow),
    /// checked there at the same depth, so valid here. `nil` when there is none, or another.
    private func earlierValueLength(at number: Int) -> Int? {
        guard number < earlier.values.count, let base = bytes.baseAddress, let earlierBase = earlier.bytes.baseAddress
        else { return nil }
        let span = earlier.values[number]
        guard span.count > 0, index + span.count <= bytes.count, bytes[index] == earlier.bytes[span.lowerBound] else {
            return nil
        }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""): break
        default: return nil
        }
        return memcmp(base + index, earlierBase + span.lowerBound, span.count) == 0 ? span.count : nil
    }

    /// Checks one value, as the document's loop would read it (the same errors at the same bytes), without building
    /// it; `depth` containers are open around it. Leaves the index just past the value.
    private mutating func skipValue(depth: Int) throws(JSONParseError) {
        var open = OpenContainers()
        while true {
            guard index < bytes.count else { throw invalid("expected a value, got the end of the input") }
            let start = index
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                index += 1
                skipWhitespace()
                if index < bytes.count && bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                } else {
                    guard depth + open.count < maxDepth else {
                        throw JSONParseError(
                            reason: .tooDeep, detail: "nested deeper than \(maxDepth) levels", byteOffset: start)
                    }
                    if isObject { try skipKey() }
                    open.push(isObject)
                    continue
                }
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number(building: false)
            default: throw invalid("expected a value, got \(describeByte())")
            }
            while true {
                guard let isObject = open.last else { return }
                if try afterMember(isObject: isObject) {
                    if isObject { try skipKey() }
                    break
                }
                open.pop()
            }
        }
    }

    /// Whether each container open in `skipValue` is an object: the first 64 as bits (no array made for a stub's
    /// few levels, 10,000 stubs and targets a run of five versions skips), any deeper in an array.
    private struct OpenContainers {
        private var bits: UInt64 = 0
        private var deeper: [Bool] = []
        private(set) var count = 0

        var last: Bool? {
            guard count > 0 else { return nil }
            return count > 64 ? deeper.last : bits & 1 == 1
        }

        mutating func push(_ isObject: Bool) {
            if count >= 64 { deeper.append(isObject) } else { bits = bits << 1 | (isObject ? 1 : 0) }
            count += 1
        }

        mutating func pop() {
            if count > 64 { deeper.removeLast() } else { bits >>= 1 }
            count -= 1
        }
    }

    /// A string checked, not built: a byte loop to the closing quote, or, at the first escape or control character,
    /// `string(building:)` from the opening quote (the same checks and errors). A stub's strings seldom escape.
    private mutating func skipString() throws(JSONParseError) {
        let open = index
        var at = plainText(from: index + 1)
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                index = at + 1
                return
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            at += 1
        }
        index = open
        _ = try string(building: false)
    }

    /// A key and its colon, checked, not built (see `skipString`); the index ends at the member's value.
    private mutating func skipKey() throws(JSONParseError) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            _ = try key()  // the error
            return
        }
        let keyStart = index
        try skipString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            index = keyStart
            _ = try key()  // the error, quoting the key
            return
        }
        index += 1
        skipWhitespace()
    }

    /// An object key and the colon after it; leaves the index at the member's value.
    private mutating func key() throws(JSONParseError) -> String {
        guard index < bytes.count else { throw invalid("expected a key in double quotes, got the end of the input") }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw invalid("expected a key in double quotes, got \(describeByte())")
        }
        let key = try string()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw invalid(
                "expected ':' after the key \(String(decoding: JSONValue.string(key).serialized(), as: UTF8.self)), got \(describeByte())"
            )
        }
        index += 1
        skipWhitespace()
        return key
    }

    private mutating func skipWhitespace() {
        guard index < bytes.count, bytes[index] <= 0x20 else { return }  // at a token already: most calls
        // One space before a token (`", "` and `": "`, as Python's json.dumps and many writers separate).
        if bytes[index] == 0x20, index + 1 < bytes.count, bytes[index + 1] > 0x20 {
            index += 1
            return
        }
        // A pretty-printed document's indentation: 8 spaces at a time.
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count,
                UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020
            {
                index += 8
            }
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let count = word.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard index + count <= bytes.count, (0..<count).allSatisfy({ bytes[start + $0] == expected[$0] }) else {
            let token = describeToken(from: start)
            throw JSONParseError(
                reason: .invalid, detail: "not valid JSON: malformed literal \(token) (expected \(word))",
                byteOffset: start)
        }
        index += count
    }

    /// Where the plain text of a string that goes on at `start` ends, 8 bytes at a time: the start of the first
    /// word holding a quote, a backslash or a control character (or of the last, shorter, part). The tests are the
    /// classic ones for "some byte of this word is zero" and "is less than n"; no byte of 0x80 or more sets them, so
    /// UTF-8's other bytes are plain. The byte loops after it find which byte it was. A string's text is most of a
    /// document's bytes (a spec's descriptions, a stub's values).
    private func plainText(from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var at = start
        while at + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let control = (word &- ones &* 0x20) & ~word
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | control
            if special & highs != 0 { break }
            at += 8
        }
        return at
    }

    /// A string; the index is at its opening quote, and ends past its closing one. The bytes are valid UTF-8.
    /// Without `building`, the string is checked and the empty string returned.
    private mutating func string(building: Bool = true) throws(JSONParseError) -> String {
        let open = index
        index += 1
        var runStart = index
        var scalars: [UInt8] = []
        var hasEscapes = false
        while true {
            index = plainText(from: index)
            guard index < bytes.count else {
                throw JSONParseError(
                    reason: .invalid, detail: "not valid JSON: a string is not closed (missing quote)",
                    byteOffset: open)
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if !building { return "" }
                if !hasEscapes { return String(decoding: run, as: UTF8.self) }
                scalars.append(contentsOf: run)
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte < 0x20 {
                throw JSONParseError(
                    reason: .invalid,
                    detail:
                        "not valid JSON: control character U+\(hex(byte, width: 4)) inside a string (it must be escaped)",
                    byteOffset: index)
            }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            hasEscapes = true
            if building { scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            let escape = index
            index += 1
            guard index < bytes.count else {
                throw JSONParseError(
                    reason: .invalid, detail: "not valid JSON: a string is not closed (missing quote)",
                    byteOffset: open)
            }
            switch bytes[index] {
            case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hexQuad(escape: escape)
                if (0xD800...0xDBFF).contains(code) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"),
                        bytes[index + 2] == UInt8(ascii: "u")
                    else { throw badEscape(at: escape, "a lone surrogate \\u\(hex(code, width: 4))") }
                    index += 2
                    let low = try hexQuad(escape: escape)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw badEscape(at: escape, "a lone surrogate \\u\(hex(code, width: 4))")
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw badEscape(at: escape, "a lone surrogate \\u\(hex(code, width: 4))")
                }
                guard let scalar = Unicode.Scalar(code) else {
                    throw badEscape(at: escape, "\\u\(hex(code, width: 4)) is not a character")
                }
                if building { scalars.append(contentsOf: String(Character(scalar)).utf8) }
            default:
                throw badEscape(at: escape, "\\\(describeCharacter(bytes[index]))")
            }
            index += 1
            runStart = index
        }
    }

    /// The four hex digits after `\u`; the index is at the `u` and ends on the last digit.
    private mutating func hexQuad(escape: Int) throws(JSONParseError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            index += 1
            guard index < bytes.count else { throw badEscape(at: escape, "\\u needs four hex digits") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw badEscape(at: escape, "\\u needs four hex digits")
            }
            code = code << 4 | UInt32(digit)
        }
        return code
    }

    private func badEscape(at offset: Int, _ what: String) -> JSONParseError {
        JSONParseError(
            reason: .invalid, detail: "not valid JSON: malformed string (a bad escape sequence: \(what))",
            byteOffset: offset)
    }

    /// A number; without `building`, one that is surely in range is checked and `null` returned, not parsed.
    private mutating func number(building: Bool = true) throws(JSONParseError) -> JSONValue {
        let start = index
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let integerStart = index
        while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        let integerDigits = index - integerStart
        var isIntegral = true
        var hasExponent = false
        var isWellFormed = integerDigits > 0 && !(integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0"))
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isIntegral = false
            index += 1
            let fractionStart = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            if index == fractionStart { isWellFormed = false }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            isIntegral = false
            hasExponent = true
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            let exponentStart = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            if index == exponentStart { isWellFormed = false }
        }
        // A token runs on through letters and digits (`01`, `1.`, `2e`, `1x`): quote all of it.
        var end = index
        while end < bytes.count && isTokenByte(bytes[end]) { end += 1 }
        if end != index { isWellFormed = false }
        // Without an exponent, 308 integer digits stay below Double's largest finite value.
        if !building && isWellFormed && !hasExponent && integerDigits <= (isIntegral ? 18 : 308) { return .null }
        if isWellFormed && isIntegral && integerDigits <= 18 {
            // Up to 18 digits always fit in an Int64: no String, no overflow check.
            var value: Int64 = 0
            for offset in integerStart..<index { value = value &* 10 &+ Int64(bytes[offset] &- UInt8(ascii: "0")) }
            return .integer(isNegative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard isWellFormed else {
            throw JSONParseError(
                reason: .invalid, detail: "not valid JSON: malformed number \(Self.excerpt(text))", byteOffset: start)
        }
        if isIntegral {
            if let value = Int64(text) { return .integer(value) }
            if !isNegative, let value = UInt64(text) { return .unsignedInteger(value) }
        } else if let value = Double(text), value.isFinite {
            return .double(value)
        }
        throw JSONParseError(
            reason: .numberOutOfRange,
            detail: "number out of range (integers beyond 64 bits and values such as 1e400 are not supported): "
                + Self.excerpt(text),
            byteOffset: start)
    }

    private func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func excerpt(_ token: String) -> String {
        token.count <= 40 ? token : token.prefix(40) + "…"
    }

    private func invalid(_ what: String) -> JSONParseError {
        JSONParseError(reason: .invalid, detail: "not valid JSON: \(what)", byteOffset: index)
    }

    /// The byte at the index, as a message quotes it: `'x'`, `'\u{7}'`, or `the end of the input`.
    private func describeByte() -> String {
        guard index < bytes.count else { return "the end of the input" }
        return "'\(describeCharacter(bytes[index]))'"
    }

    /// The token that starts at `start` (letters and digits), quoted, for a malformed literal.
    private func describeToken(from start: Int) -> String {
        var end = start
        while end < bytes.count && end - start < 40 && isTokenByte(bytes[end]) { end += 1 }
        if end == start { return "'\(describeCharacter(bytes[start]))'" }
        return "'" + String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) + "'"
    }

    /// One character starting at `index` (a whole UTF-8 sequence), or an escape for control characters.
    private func describeCharacter(_ byte: UInt8) -> String {
        if byte < 0x20 || byte == 0x7F { return "\\u{\(hex(byte, width: 1))}" }
        if byte < 0x80 { return String(Character(Unicode.Scalar(byte))) }
        var end = index + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
    }
}

private func hex<T: BinaryInteger>(_ value: T, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
