import Foundation

/// Replaces secrets with `<redacted>` in the free text that reports print.
///
/// `Redactor(secrets:)` redacts exactly what it is given (every non-empty value, and its percent-encoded forms, since
/// a secret the loader put into a URL appears there percent-encoded). The product rule about which values count as
/// secrets lives in `init(contracts:runSecrets:)` and `init(report:)`: sensitive header values of any length, other
/// given values only from 6 characters on, so that a `${STATUS}` of `202` never mangles a timestamp or a count.
///
/// Apply it to free text only (messages, request lines, body excerpts, reasons), never to what Tether computes
/// (timestamps, times, counts, names).
public struct Redactor: Sendable, Equatable {
    /// What replaces every secret.
    public static let marker = "<redacted>"
    /// Values given by the environment shorter than this are not treated as secrets (see the type's discussion).
    public static let minimumSecretLength = 6

    /// The byte patterns to replace, longest first, without duplicates.
    private let patterns: [[UInt8]]
    /// `startsPattern[b]` is true when some pattern begins with byte `b`: the scan's fast path.
    private let startsPattern: [Bool]
    /// `patternsStarting[b]`: the patterns that begin with byte `b`, longest first. The scan tries only these at a
    /// position, not every pattern (with many secrets, that was a pass over all of them at each such byte).
    private let patternsStarting: [[[UInt8]]]

    /// A redactor that replaces every occurrence of each of `secrets` (and every form a request or a body puts it in:
    /// the query, path and form-body encodings of `RequestBuilder`, fully percent-encoded, JSON-escaped, base64).
    ///
    /// Longer secrets are replaced first, so a secret containing another is redacted whole. Empty strings are ignored.
    /// - Parameter secrets: the exact values to hide, whatever their length.
    public init(secrets: [String]) {
        var forms: [[UInt8]] = []
        // A secret given twice is encoded once (a header every target sends is given once per target). Compared by
        // bytes: `é` and `e` + U+0301 are one `String` but two secrets.
        var given = Set<Bytes>()
        for secret in secrets where !secret.isEmpty && given.insert(Bytes(Array(secret.utf8))).inserted {
            forms += Self.forms(of: secret)
        }
        // Longest first; ties broken by bytes so the order (and so the output) never depends on the secrets' order.
        // Sorted, a form that two secrets share (or two encodings of one) is kept once.
        forms.sort(by: Self.precedes)
        patterns = forms.indices.filter { $0 == 0 || Bytes(forms[$0]) != Bytes(forms[$0 - 1]) }.map { forms[$0] }
        var starting = [[[UInt8]]](repeating: [], count: 256)
        for pattern in patterns { if let first = pattern.first { starting[Int(first)].append(pattern) } }
        patternsStarting = starting
        startsPattern = starting.map { !$0.isEmpty }
    }

    /// Every form a request or a body puts `secret` in, as bytes: as given; the query, path and form-body encodings
    /// of `RequestBuilder` (its `encodedForms(of:)`); Foundation's `addingPercentEncoding` with `.alphanumerics` and
    /// with `.urlQueryAllowed`, as URLComponents encodes (Foundation keeps only the ASCII members of a set, so the
    /// same encoder on bytes gives the same text without a round trip through CFString); as a JSON string writes it
    /// (`\"`, and `a\/b` as Foundation's JSONSerialization does); base64 with and without its padding (a body that
    /// echoes Basic credentials).
    static func forms(of secret: String) -> [[UInt8]] {
        let bytes = Array(secret.utf8)
        var forms = [bytes]
        for allowed in RequestBuilder.encodingSets {
            forms.append(RequestBuilder.percentEncoded(bytes, keeping: allowed))
        }
        let escaped = Array(JSONValue.string(secret).serialized())
        forms.append(Array(escaped.dropFirst().dropLast()))
        if secret.utf8.contains(UInt8(ascii: "/")) {
            forms.append(Array(secret.replacingOccurrences(of: "/", with: "\\/").utf8))
        }
        let base64 = Array(Data(secret.utf8).base64EncodedString().utf8)
        forms.append(base64)
        forms.append(Array(base64.prefix { $0 != UInt8(ascii: "=") }))  // `=` is only ever the padding at the end
        return forms
    }

    /// A redactor following the product rule for a run: the values of sensitive headers in each contract's request
    /// (any length), plus every contract's and the run's secrets of at least `minimumSecretLength` characters.
    /// - Parameters:
    ///   - contracts: the contracts whose request headers and `secrets` are used.
    ///   - runSecrets: secrets collected for the whole run (`RunReport.secrets`).
    public init(contracts: [Contract], runSecrets: [String] = []) {
        self.init(secrets: Self.secrets(contracts: contracts, runSecrets: runSecrets))
    }

    /// The values `init(contracts:runSecrets:)` hides, each once, in the order first met: the values of sensitive
    /// headers in each contract's request (any length), then every contract's and the run's secrets of at least
    /// `minimumSecretLength` characters. Values are compared by their bytes.
    static func secrets(contracts: [Contract], runSecrets: [String]) -> [String] {
        var secrets: [String] = []
        var seen = Set<Bytes>()
        func add(_ secret: String) {
            if seen.insert(Bytes(Array(secret.utf8))).inserted { secrets.append(secret) }
        }
        for contract in contracts {
            Self.sensitiveHeaderValues(contract.request.headers).forEach(add)
            contract.secrets.filter(isLongEnough).forEach(add)
        }
        runSecrets.filter(isLongEnough).forEach(add)
        return secrets
    }

    /// Whether `text` has `minimumSecretLength` characters or more, counting no further (`count` walks the whole
    /// text, and a secret can be long).
    private static func isLongEnough(_ text: String) -> Bool {
        text.index(text.startIndex, offsetBy: minimumSecretLength, limitedBy: text.endIndex) != nil
    }

    /// The redactor for a finished run: `init(contracts:runSecrets:)` over its results' contracts and its secrets.
    /// - Parameter report: the run whose text is about to be printed.
    public init(report: RunReport) {
        self.init(contracts: report.results.map(\.contract), runSecrets: report.secrets)
    }

    /// Whether this redactor has nothing to replace.
    public var isEmpty: Bool { patterns.isEmpty }

    /// The values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` headers (names compared
    /// case-insensitively), which are secrets whatever their length.
    ///
    /// For the authorization headers the credentials after the scheme (`Bearer abc…` gives `abc…`) are added too, and
    /// for cookies each cookie's value of at least `minimumSecretLength` characters, since a service may echo those
    /// alone.
    /// - Parameter headers: request (or response) headers.
    /// - Returns: the non-empty values to redact, in header order.
    public static func sensitiveHeaderValues(_ headers: [HTTPHeader]) -> [String] {
        var values: [String] = []
        for header in headers where header.isCredential {
            let value = trimmingWhitespace(header.value)
            guard !value.isEmpty else { continue }
            switch header.name.lowercased() {
            case "authorization", "proxy-authorization":
                values.append(value)
                if let space = value.firstIndex(of: " ") {
                    let credentials = value[space...].trimmingCharacters(in: .whitespaces)
                    if !credentials.isEmpty { values.append(credentials) }
                }
            case "cookie", "set-cookie":
                values.append(value)
                for pair in value.split(separator: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let cookie = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    if cookie.count >= minimumSecretLength { values.append(cookie) }
                }
            default:
                continue
            }
        }
        return values
    }

    /// `text.trimmingCharacters(in: .whitespaces)`, without Foundation's round trip when there is nothing to trim:
    /// the first and the last byte are ASCII and neither a space nor a tab (the only ASCII members of the set).
    static func trimmingWhitespace(_ text: String) -> String {
        func isKept(_ byte: UInt8?) -> Bool { byte.map { $0 < 0x80 && $0 != 0x20 && $0 != 0x09 } ?? false }
        if isKept(text.utf8.first), isKept(text.utf8.last) { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// `text` with every secret replaced by `<redacted>`.
    ///
    /// One left-to-right pass: at each position the longest secret that starts there wins, and replaced text is
    /// never scanned again (so a secret such as `redacted` cannot damage the marker).
    /// - Parameter text: free text about to be printed.
    /// - Returns: the text without secrets.
    public func redact(_ text: String) -> String {
        redactedPrefix(of: text, outputLimit: .max).text
    }

    /// The redacted start of `text`: the scan stops at the first character boundary after `outputLimit` bytes of
    /// output, so a 10 MB body costs no more than its excerpt. Everything returned is fully redacted: a secret that
    /// starts before the stop is matched against the whole text, never against a cut.
    /// - Returns: the redacted prefix, and whether it is the whole text.
    func redactedPrefix(of text: String, outputLimit: Int) -> (text: String, isWhole: Bool) {
        guard text.utf8.count > outputLimit || !patterns.isEmpty else { return (text, true) }
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            guard let (output, isWhole) = redacted(bytes, outputLimit: outputLimit) else { return (text, true) }
            // A valid UTF-8 needle only matches valid UTF-8 on scalar boundaries, so decoding never repairs bytes.
            return (String(decoding: output, as: UTF8.self), isWhole)
        }
    }

    /// `bytes` with every secret replaced by `<redacted>`: bodies that may not be text (a recorded image, a form).
    /// - Parameter bytes: any bytes.
    /// - Returns: the bytes without secrets (the same bytes when there were none).
    public func redact(_ bytes: Data) -> Data {
        guard !patterns.isEmpty, !bytes.isEmpty else { return bytes }
        return bytes.withUnsafeBytes { raw in
            guard let (output, _) = redacted(raw.bindMemory(to: UInt8.self), outputLimit: .max) else { return bytes }
            return Data(output)
        }
    }

    /// The scan of `redactedPrefix` and `redact(_:)` on bytes; `nil` when nothing was replaced or cut.
    private func redacted(_ bytes: UnsafeBufferPointer<UInt8>, outputLimit: Int) -> ([UInt8], Bool)? {
        let marker = Array(Self.marker.utf8)
        var output: [UInt8] = []
        var copied = 0  // bytes[copied..<index] are kept and not yet in `output`
        var index = 0
        scan: while index < bytes.count {
            let byte = bytes[index]
            if output.count + (index - copied) >= outputLimit, byte & 0xC0 != 0x80 {
                output.append(contentsOf: bytes[copied..<index])
                return (output, false)
            }
            if startsPattern[Int(byte)] {
                for pattern in patternsStarting[Int(byte)] where Self.matches(pattern, bytes, at: index) {
                    output.append(contentsOf: bytes[copied..<index])
                    output.append(contentsOf: marker)
                    index += pattern.count
                    copied = index
                    continue scan
                }
            }
            index += 1
        }
        if copied == 0 { return nil }
        output.append(contentsOf: bytes[copied..<bytes.count])
        return (output, true)
    }

    /// Longer first, then by bytes (as `lexicographicallyPrecedes` orders them), compared as one block of memory.
    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return a.count > b.count }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard let first = x.baseAddress, let second = y.baseAddress else { return false }  // both empty
                return memcmp(first, second, x.count) < 0
            }
        }
    }

    /// Bytes as a set's key, hashed and compared as one block of memory: `[UInt8]`'s own `Hashable` feeds the hasher
    /// one byte at a time, which made hashing most of the work of building a redactor for a long secret.
    private struct Bytes: Hashable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: Bytes, b: Bytes) -> Bool {
            guard a.bytes.count == b.bytes.count else { return false }
            return a.bytes.withUnsafeBytes { x in
                b.bytes.withUnsafeBytes { y in
                    guard let first = x.baseAddress, let second = y.baseAddress else { return true }  // both empty
                    return memcmp(first, second, x.count) == 0
                }
            }
        }
    }

    private static func matches(_ pattern: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard pattern.count <= bytes.count - index else { return false }
        var offset = 0
        while offset < pattern.count {
            if bytes[index + offset] != pattern[offset] { return false }
            offset += 1
        }
        return true
    }
}
