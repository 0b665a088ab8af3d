#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Second looks at input that failed to parse, to say where and why: simdjson gives neither a byte offset nor the
/// difference between a malformed number and one out of range. Used on the error path only.
package enum JSONInputScan {
    /// The 1-based line and column (counted in characters) of the byte at `offset`.
    /// A byte order mark at the start is not counted: editors do not show it.
    package static func lineAndColumn(ofByte offset: Int, in input: Data) -> (line: Int, column: Int) {
        lineAndColumn(ofByte: offset, in: input, from: (offset: 0, line: 1, column: 1))
    }

    /// As `lineAndColumn(ofByte:in:)`, counting on from a known place before `offset` instead of from the start.
    package static func lineAndColumn(
        ofByte offset: Int, in input: Data, from start: (offset: Int, line: Int, column: Int)
    ) -> (line: Int, column: Int) {
        input.withUnsafeBytes { raw in
            var place = (line: start.line, column: start.column)
            let first = max(start.offset, byteOrderMarkLength(raw))
            count(raw, from: first, to: max(first, min(offset, raw.count)), into: &place)
            return place
        }
    }

    /// 3 when `raw` starts with a UTF-8 byte order mark, else 0.
    package static func byteOrderMarkLength(_ raw: UnsafeRawBufferPointer) -> Int {
        raw.count >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF ? 3 : 0
    }

    /// Moves `place` over the bytes `raw[start ..< end]`: a line feed starts a line, every byte that does not
    /// continue a UTF-8 sequence (10xxxxxx) is a character.
    package static func count(
        _ raw: UnsafeRawBufferPointer, from start: Int, to end: Int, into place: inout (line: Int, column: Int)
    ) {
        var (line, column) = place
        func step(_ byte: UInt8) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        var index = start
        // Eight bytes at a time: without a line feed among them, the characters are the bytes that are not
        // continuations (large manifests are counted whole, once, for their checkpoints).
        while index + 8 <= end {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let feeds = word ^ 0x0A0A_0A0A_0A0A_0A0A
            if (feeds &- 0x0101_0101_0101_0101) & ~feeds & 0x8080_8080_8080_8080 == 0 {
                column += 8 - (word & ~(word << 1) & 0x8080_8080_8080_8080).nonzeroBitCount
            } else {
                for offset in index..<index + 8 { step(raw[offset]) }
            }
            index += 8
        }
        for offset in index..<end { step(raw[offset]) }
        place = (line, column)
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` if all is valid.
    package static func firstInvalidUTF8Offset(in input: Data) -> Int? {
        input.withUnsafeBytes { raw -> Int? in firstInvalidUTF8Offset(in: raw.bindMemory(to: UInt8.self)) }
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` if all is valid.
    package static func firstInvalidUTF8Offset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        var nextRelease = MappedFiles.bytesBetweenReleases
        while index < count {
            // A mapped manifest's pages go back to the page cache as the check moves on (`MappedFiles`).
            MappedFiles.releaseReadPages(reaching: index, due: &nextRelease)
            // ASCII, eight bytes at a time: most of any JSON document.
            let asciiEnd = min(count, nextRelease)
            while index + 8 <= asciiEnd,
                UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + index).loadUnaligned(as: UInt64.self)
                    & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { break }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F  // no surrogates
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= lower, second <= upper else { return index }
            for continuation in 2..<length where bytes[index + continuation] & 0xC0 != 0x80 {
                return index
            }
            index += length
        }
        return nil
    }
}
