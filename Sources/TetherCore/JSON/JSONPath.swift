/// How paths into JSON are written, in findings, decode errors and manifest errors alike: `$.items[3].price`,
/// `$["a b"]`, `targets[2].sampleData`.
package enum JSONPath {
    /// Appends `.key` for identifier-like keys, else `["key"]` with the key JSON-escaped.
    package static func appendKey(_ key: String, to path: inout String) {
        if isIdentifier(key) {
            path.reserveCapacity(path.utf8.count + 1 + key.utf8.count)
            path.append(".")
            path.append(key)
        } else {
            path += "[" + String(decoding: JSONValue.string(key).serialized(), as: UTF8.self) + "]"
        }
    }

    private static func isIdentifier(_ key: String) -> Bool {
        // The bytes in place (a manifest's and a body's keys are native strings): iterating the `UTF8View` checked
        // the string's form at every byte, most of the time a path took to spell.
        var key = key
        return key.withUTF8 { bytes in
            guard let first = bytes.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                return false
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
                    continue
                default: return false
                }
            }
            return true
        }
    }
}
