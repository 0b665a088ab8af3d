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
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
                true
            default: false
            }
        }
    }
}
