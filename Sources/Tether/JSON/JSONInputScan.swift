import Foundation

/// Second looks at input that failed to parse, to say where and why: simdjson gives neither a byte offset nor the
/// difference between a malformed number and one out of range. Used on the error path only.
enum JSONInputScan {
    /// The 1-based line and column (counted in characters) of the byte at `offset`.
    static func lineAndColumn(ofByte offset: Int, in input: Data) -> (line: Int, column: Int) {
        input.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var line = 1
            var column = 1
            for index in 0..<min(offset, bytes.count) {
                let byte = bytes[index]
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
    static func firstInvalidUTF8Offset(in input: Data) -> Int? {
        input.withUnsafeBytes { raw -> Int? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            let count = bytes.count
            while index < count {
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

    /// Where Foundation's own parser stops on `input` (it says "around character N", a byte offset), or `nil`.
    static func foundationLocation(of input: Data) -> (line: Int, column: Int)? {
        do {
            _ = try JSONSerialization.jsonObject(with: input, options: [.fragmentsAllowed])
            return nil
        } catch {
            let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? ""
            guard let range = text.range(of: "around character ") else {
                // "Unexpected end of file": the problem is at the end.
                return text.contains("end of file") ? lineAndColumn(ofByte: input.count, in: input) : nil
            }
            let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            guard let offset = Int(digits) else { return nil }
            return lineAndColumn(ofByte: offset, in: input)
        }
    }

    /// Tells a malformed number from one out of range by scanning the number tokens outside strings.
    static func numberError(in input: Data) -> JSONParseError {
        input.withUnsafeBytes { raw -> JSONParseError in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    while index < count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    index += 1
                    continue
                }
                guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                    index += 1
                    continue
                }
                let start = index
                while index < count, isNumberByte(bytes[index]) { index += 1 }
                let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                let (line, column) = lineAndColumn(ofByte: start, in: input)
                guard let isIntegral = numberSyntax(token) else {
                    return JSONParseError(
                        reason: .invalid, detail: "not valid JSON: malformed number \(excerpt(token))",
                        line: line, column: column)
                }
                let fits =
                    isIntegral ? (Int64(token) != nil || UInt64(token) != nil) : (Double(token)?.isFinite ?? false)
                if !fits {
                    return JSONParseError(
                        reason: .numberOutOfRange,
                        detail: "number out of range (integers beyond 64 bits and values such as 1e400 are not "
                            + "supported): \(excerpt(token))",
                        line: line, column: column)
                }
            }
            return JSONParseError(reason: .invalid, detail: "not valid JSON: malformed number")
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// Whether `token` is a JSON number: `nil` if not, else whether it is written as an integer.
    private static func numberSyntax(_ token: String) -> Bool? {
        var characters = Substring(token)
        if characters.first == "-" { characters.removeFirst() }
        let integerPart = characters.prefix { $0.isASCII && $0.isNumber }
        guard !integerPart.isEmpty, integerPart == "0" || integerPart.first != "0" else { return nil }
        characters.removeFirst(integerPart.count)
        var isIntegral = true
        if characters.first == "." {
            characters.removeFirst()
            let fraction = characters.prefix { $0.isASCII && $0.isNumber }
            guard !fraction.isEmpty else { return nil }
            characters.removeFirst(fraction.count)
            isIntegral = false
        }
        if characters.first == "e" || characters.first == "E" {
            characters.removeFirst()
            if characters.first == "+" || characters.first == "-" { characters.removeFirst() }
            let exponent = characters.prefix { $0.isASCII && $0.isNumber }
            guard !exponent.isEmpty else { return nil }
            characters.removeFirst(exponent.count)
            isIntegral = false
        }
        return characters.isEmpty ? isIntegral : nil
    }

    private static func excerpt(_ token: String) -> String {
        token.count <= 40 ? token : token.prefix(40) + "…"
    }
}
