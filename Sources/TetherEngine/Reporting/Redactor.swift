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

    /// The byte patterns to replace, longest first, without duplicates, one after the other: pattern `i` is
    /// `patternBytes[patternStarts[i]..<patternStarts[i + 1]]`. In one buffer, not an array each: a run's secrets
    /// have seven or eight forms each, and an allocation per form was most of the cost of building a redactor.
    private let patternBytes: [UInt8]
    /// Where each pattern begins in `patternBytes`, and the end of the last one (so one more than the patterns).
    private let patternStarts: [Int]
    /// The patterns that begin with byte `b`, longest first, are those numbered
    /// `patternsByFirstByte[firstByteStarts[b]..<firstByteStarts[b + 1]]`. The scan tries only these at a position,
    /// not every pattern (with many secrets, that was a pass over all of them at each such byte).
    private let patternsByFirstByte: [Int]
    /// 257 bounds into `patternsByFirstByte`, one more than the bytes; two equal neighbours: no pattern starts there.
    private let firstByteStarts: [Int]

    /// A redactor that replaces every occurrence of each of `secrets` (and every form a request or a body puts it in:
    /// the query, path and form-body encodings of `RequestBuilder`, fully percent-encoded, JSON-escaped, base64).
    ///
    /// Longer secrets are replaced first, so a secret containing another is redacted whole. Empty strings are ignored.
    /// - Parameter secrets: the exact values to hide, whatever their length.
    public init(secrets: [String]) {
        var forms = Forms()
        // A secret given twice is encoded once (a header every target sends is given once per target). Compared by
        // bytes: `é` and `e` + U+0301 are one `String` but two secrets.
        var given = Set<UTF8Key>()
        for secret in secrets where !secret.isEmpty && given.insert(UTF8Key(secret)).inserted {
            Self.appendForms(of: secret, to: &forms)
        }
        // Longest first; ties broken by bytes so the order (and so the output) never depends on the secrets' order.
        // Sorted, a form that two secrets share (or two encodings of one) is kept once.
        var bytes: [UInt8] = []
        var starts = [0]
        forms.bytes.withUnsafeBufferPointer { all in
            func form(_ index: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[(index == 0 ? 0 : forms.ends[index - 1])..<forms.ends[index]])
            }
            let order = forms.ends.indices.sorted { Self.precedes(form($0), form($1)) }
            bytes.reserveCapacity(all.count)
            starts.reserveCapacity(order.count + 1)
            var last: UnsafeBufferPointer<UInt8>?
            for index in order {
                let pattern = form(index)
                if let last, Self.isEqual(last, pattern) { continue }
                bytes.append(contentsOf: pattern)
                starts.append(bytes.count)
                last = pattern
            }
        }
        // Numbered by first byte, counted then placed, each byte's patterns in their order (longest first).
        var bounds = [Int](repeating: 0, count: 257)
        for pattern in 0..<(starts.count - 1) { bounds[Int(bytes[starts[pattern]]) + 1] += 1 }
        for byte in 0..<256 { bounds[byte + 1] += bounds[byte] }
        var next = bounds
        var byFirstByte = [Int](repeating: 0, count: starts.count - 1)
        for pattern in 0..<(starts.count - 1) {
            let first = Int(bytes[starts[pattern]])
            byFirstByte[next[first]] = pattern
            next[first] += 1
        }
        patternBytes = bytes
        patternStarts = starts
        patternsByFirstByte = byFirstByte
        firstByteStarts = bounds
    }

    /// Every form of some secrets, one after the other: form `i` is `bytes[(i == 0 ? 0 : ends[i - 1])..<ends[i]]`.
    struct Forms {
        var bytes: [UInt8] = []
        var ends: [Int] = []

        /// Ends the form written since the last one ended.
        mutating func end() { ends.append(bytes.count) }
    }

    /// Every form a request or a body puts `secret` in, as bytes: as given; the query, path and form-body encodings
    /// of `RequestBuilder` (its `encodedForms(of:)`); Foundation's `addingPercentEncoding` with `.alphanumerics` and
    /// with `.urlQueryAllowed`, as URLComponents encodes (Foundation keeps only the ASCII members of a set, so the
    /// same encoder on bytes gives the same text without a round trip through CFString); as a JSON string writes it
    /// (`\"`, and `a\/b` as Foundation's JSONSerialization does); base64 with and without its padding (a body that
    /// echoes Basic credentials).
    static func forms(of secret: String) -> [[UInt8]] {
        var forms = Forms()
        appendForms(of: secret, to: &forms)
        return forms.ends.indices.map { Array(forms.bytes[($0 == 0 ? 0 : forms.ends[$0 - 1])..<forms.ends[$0]]) }
    }

    /// `forms(of:)`, each form written to `forms`.
    static func appendForms(of secret: String, to forms: inout Forms) {
        var contiguous = secret
        var hasSlash = false
        contiguous.withUTF8 { bytes in
            forms.bytes.append(contentsOf: bytes)
            forms.end()
            for allowed in RequestBuilder.encodingSets {
                RequestBuilder.appendPercentEncoded(bytes, keeping: allowed, to: &forms.bytes)
                forms.end()
            }
            JSONValue.appendEscaped(bytes, to: &forms.bytes)
            forms.end()
            if let base = bytes.baseAddress { hasSlash = memchr(base, Int32(UInt8(ascii: "/")), bytes.count) != nil }
            // `=` is only ever the padding at the end, so the form without it is the encoding left unpadded.
            appendBase64(bytes, isPadded: true, to: &forms.bytes)
            forms.end()
            appendBase64(bytes, isPadded: false, to: &forms.bytes)
            forms.end()
        }
        if hasSlash {
            // Scalar by scalar, as a JSON encoder escapes: a `/` followed by a combining mark is escaped too.
            forms.bytes.append(contentsOf: secret.replacingText("/", with: "\\/").utf8)
            forms.end()
        }
    }

    /// `Data.base64EncodedString()` of `bytes` (the standard alphabet, no line breaks), appended to `output`; without
    /// its `=` padding unless `isPadded`.
    private static func appendBase64(_ bytes: UnsafeBufferPointer<UInt8>, isPadded: Bool, to output: inout [UInt8]) {
        // Each group of three bytes (the last one filled up with zeros) is four digits of six bits; of a last group
        // of one or two bytes, two or three digits are written, then padding.
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | (offset < count ? UInt32(bytes[index + offset]) : 0) }
            for digit in 0...count { output.append(base64Digits[Int(group >> (18 - 6 * UInt32(digit)) & 0x3F)]) }
            if isPadded { for _ in count..<3 { output.append(UInt8(ascii: "=")) } }
            index += 3
        }
    }

    private static let base64Digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

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
    static func secrets<Contracts: Sequence<Contract>>(contracts: Contracts, runSecrets: [String]) -> [String] {
        var found = FoundSecrets()
        for contract in contracts { found.add(of: contract) }
        found.add(run: runSecrets)
        return found.secrets
    }

    /// The secrets `secrets(contracts:runSecrets:)` finds, collected one contract at a time.
    private struct FoundSecrets {
        private(set) var secrets: [String] = []
        private var seen = Set<UTF8Key>()
        private var lastBaseURL: String?

        private mutating func add(_ secret: String) {
            if seen.insert(UTF8Key(secret)).inserted { secrets.append(secret) }
        }

        /// A contract's, read where it is: most contracts have neither, and nothing is made or copied for them (a
        /// 5-version run has 10,000 contracts; copying each result and its secrets was a quarter of this at 100,000).
        mutating func add(of contract: Contract) {
            if contract.hasCredentialHeader {
                for value in Redactor.sensitiveHeaderValues(contract.request.headers) { add(value) }
            }
            // Credentials can only be in the base URL (a path follows the host), which a manifest's targets share: it
            // is read once a run of them (every redactor of a run walks every contract). A Swift target whose
            // endpoint goes elsewhere carries its URL's credentials in `credentials`, as a replayed recording's are.
            let baseURL = contract.baseURL
            if baseURL != lastBaseURL {
                for value in HTTPRequest.credentials(in: baseURL) { add(value) }
                lastBaseURL = baseURL
            }
            if contract.hasSecrets {
                for secret in contract.secrets where Redactor.isLongEnough(secret) { add(secret) }
                for secret in contract.credentials { add(secret) }
            }
        }

        mutating func add(run secrets: [String]) {
            for secret in secrets where Redactor.isLongEnough(secret) { add(secret) }
        }
    }

    /// Whether `text` has `minimumSecretLength` characters or more, counting no further (`count` walks the whole
    /// text, and a secret can be long).
    private static func isLongEnough(_ text: String) -> Bool {
        text.index(text.startIndex, offsetBy: minimumSecretLength, limitedBy: text.endIndex) != nil
    }

    /// The redactor for a finished run: `init(contracts:runSecrets:)` over its results' contracts and its secrets.
    /// - Parameter report: the run whose text is about to be printed.
    public init(report: RunReport) {
        self.init(secrets: Self.secrets(of: report))
    }

    /// What `init(report:)` hides: for a caller that keeps redactors by their secrets (the fuzzers, whose inputs
    /// mostly share them).
    @_spi(Testing) public static func secrets(of report: RunReport) -> [String] {
        var found = FoundSecrets()
        for index in report.results.indices { found.add(of: report.results[index].contract) }
        found.add(run: report.secrets)
        return found.secrets
    }

    /// Whether this redactor has nothing to replace.
    public var isEmpty: Bool { patternStarts.count == 1 }

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
                    let credentials = value[space...].trimmingWhitespace()
                    if !credentials.isEmpty { values.append(credentials) }
                }
            case "cookie", "set-cookie":
                values.append(value)
                for pair in value.split(separator: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let cookie = pair[pair.index(after: equals)...].trimmingWhitespace()
                    if cookie.count >= minimumSecretLength { values.append(cookie) }
                }
            default:
                continue
            }
        }
        return values
    }

    /// `query` with the value of each parameter whose name says it is a secret (`access_token`, `api_key`; see
    /// `namesASecret`) as `<redacted>`: for lines that print a request a client made (`tether serve`) or that a
    /// recording holds (`tether import`), whose credentials no contract names.
    static func hidingSecretValues(ofQuery query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "="), String(pair[..<equals]).namesASecret else { return pair }
            return pair[...equals] + marker[...]
        }.joined(separator: "&")
    }

    /// `url` with `hidingSecretValues(ofQuery:)` applied to its query (a fragment after it is left out).
    static func hidingSecretQueryValues(inURL url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        return url[...question] + hidingSecretValues(ofQuery: String(query))
    }

    /// `text.trimmingWhitespace()`, without its walk over the scalars when there is nothing to trim: the first and the
    /// last byte are ASCII and neither a space nor a tab (the only ASCII members of the set).
    static func trimmingWhitespace(_ text: String) -> String {
        func isKept(_ byte: UInt8?) -> Bool { byte.map { $0 < 0x80 && $0 != 0x20 && $0 != 0x09 } ?? false }
        if isKept(text.utf8.first), isKept(text.utf8.last) { return text }
        return text.trimmingWhitespace()
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

    /// `text` with every secret that stands as a word replaced by `<redacted>`: where a secret begins (or ends) with a
    /// letter, digit or `_` (ASCII), the text before (after) it may not be one. For data written to a file
    /// (`BodyRedaction`): a short credential (`dev`, `1`, the `anonymous` of a default token) inside a longer word
    /// (`device_id`, `v1`, `anonymous_access_enabled`) is no secret there, and replacing it changed keys and values
    /// that `update` then wrote into stubs.
    /// - Parameter text: a key or a string of a body.
    /// - Returns: the text without secrets.
    public func redactWords(_ text: String) -> String {
        redactedPrefix(of: text, outputLimit: .max, wordsOnly: true).text
    }

    /// The redacted start of `text`: the scan stops at the first character boundary after `outputLimit` bytes of
    /// output, so a 10 MB body costs no more than its excerpt. Everything returned is fully redacted: a secret that
    /// starts before the stop is matched against the whole text, never against a cut.
    /// - Parameter wordsOnly: Whether every secret is hidden only where it stands as a word (`redactWords`).
    /// - Returns: the redacted prefix, and whether it is the whole text.
    func redactedPrefix(of text: String, outputLimit: Int, wordsOnly: Bool = false) -> (text: String, isWhole: Bool) {
        guard text.utf8.count > outputLimit || !isEmpty else { return (text, true) }
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            guard let (output, isWhole) = redacted(bytes, outputLimit: outputLimit, wordsOnly: wordsOnly) else {
                return (text, true)
            }
            // A valid UTF-8 needle only matches valid UTF-8 on scalar boundaries, so decoding never repairs bytes.
            return (String(decoding: output, as: UTF8.self), isWhole)
        }
    }

    /// `bytes` with every secret replaced by `<redacted>`: bodies that may not be text (a recorded image, a form).
    /// - Parameter bytes: any bytes.
    /// - Returns: the bytes without secrets (the same bytes when there were none).
    public func redact(_ bytes: Data) -> Data {
        guard !isEmpty, !bytes.isEmpty else { return bytes }
        return bytes.withUnsafeBytes { raw in
            guard let (output, _) = redacted(raw.bindMemory(to: UInt8.self), outputLimit: .max) else { return bytes }
            return Data(output)
        }
    }

    /// The scan of `redactedPrefix` and `redact(_:)` on bytes; `nil` when nothing was replaced or cut.
    private func redacted(_ bytes: UnsafeBufferPointer<UInt8>, outputLimit: Int, wordsOnly: Bool = false) -> (
        [UInt8], Bool
    )? {
        patternBytes.withUnsafeBufferPointer { patterns in
            var output: [UInt8] = []
            var copied = 0  // bytes[copied..<index] are kept and not yet in `output`
            var index = 0
            scan: while index < bytes.count {
                let byte = bytes[index]
                if output.count + (index - copied) >= outputLimit, byte & 0xC0 != 0x80 {
                    output.append(contentsOf: bytes[copied..<index])
                    return (output, false)
                }
                let candidates = firstByteStarts[Int(byte)]..<firstByteStarts[Int(byte) + 1]
                for candidate in candidates {
                    let number = patternsByFirstByte[candidate]
                    let pattern = UnsafeBufferPointer(
                        rebasing: patterns[patternStarts[number]..<patternStarts[number + 1]])
                    guard pattern.count <= bytes.count - index,
                        Self.isEqual(pattern, UnsafeBufferPointer(rebasing: bytes[index..<index + pattern.count]))
                    else { continue }
                    // A short secret (a credential header's `dev`) only as a word: inside a longer one it is no
                    // secret, and replacing it made `device_id` read `<redacted>ice_id`.
                    if wordsOnly || pattern.count < Self.minimumSecretLength {
                        let end = index + pattern.count
                        if Self.isWordByte(pattern[0]), index > 0, Self.isWordByte(bytes[index - 1]) { continue }
                        if Self.isWordByte(pattern[pattern.count - 1]), end < bytes.count, Self.isWordByte(bytes[end]) {
                            continue
                        }
                    }
                    output.append(contentsOf: bytes[copied..<index])
                    output.append(contentsOf: Self.markerBytes)
                    index += pattern.count
                    copied = index
                    continue scan
                }
                index += 1
            }
            if copied == 0 { return nil }
            output.append(contentsOf: bytes[copied..<bytes.count])
            return (output, true)
        }
    }

    private static let markerBytes = Array(marker.utf8)

    /// An ASCII letter, digit or `_`: what a word is made of (`redactWords`). A byte outside ASCII is not, so that a
    /// secret next to one is still hidden.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Longer first, then by bytes (as `lexicographicallyPrecedes` orders them), compared as one block of memory.
    private static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return a.count > b.count }
        guard let first = a.baseAddress, let second = b.baseAddress else { return false }  // both empty
        return memcmp(first, second, a.count) < 0
    }

    /// Whether `a` and `b` hold the same bytes, compared as one block of memory.
    private static func isEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let first = a.baseAddress, let second = b.baseAddress else { return true }  // both empty
        return memcmp(first, second, a.count) == 0
    }

    /// A text as a set's key by its UTF-8 bytes (`é` and `e` + U+0301 are two keys), hashed and compared as one block
    /// of memory, in place: a copy of the bytes per secret, and `[UInt8]`'s own `Hashable` (which feeds the hasher one
    /// byte at a time), were most of the work of building a redactor.
    private struct UTF8Key: Hashable {
        let text: String

        init(_ text: String) { self.text = text }

        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        static func == (a: UTF8Key, b: UTF8Key) -> Bool {
            var (first, second) = (a.text, b.text)
            return first.withUTF8 { x in second.withUTF8 { y in Redactor.isEqual(x, y) } }
        }
    }
}
