import Foundation

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
            var (line, column) = (start.line, start.column)
            let bom = raw.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            let first = max(start.offset, bom)
            for index in first..<max(first, min(offset, raw.count)) {
                let byte = raw[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return (line, column)
        }
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` if all is valid.
    package static func firstInvalidUTF8Offset(in input: Data) -> Int? {
        input.withUnsafeBytes { raw -> Int? in firstInvalidUTF8Offset(in: raw.bindMemory(to: UInt8.self)) }
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or `nil` if all is valid.
    package static func firstInvalidUTF8Offset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII, eight bytes at a time: most of any JSON document.
            while index + 8 <= count,
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
