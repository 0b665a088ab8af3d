#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request sent before or after a target (a manifest's `"steps"`, Pact's provider states): it creates what the
/// target reads and removes it afterwards. Its shape follows Arazzo 1.1's steps: `expect` is a `successCriteria` on
/// the status, `capture` its `outputs`.
public struct Step: Sendable, Equatable {
    /// Where a captured value is read from in the step's answer.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// A JSON path in the body: `$.data.id`.
        case body(JSONPathPattern)
        /// A response header: `header:ETag`.
        case header(String)

        /// As written in the manifest.
        public var description: String {
            switch self {
            case .body(let path): path.description
            case .header(let name): "header:\(name)"
            }
        }
    }

    /// A value the step's answer gives to later requests, as `${NAME}`.
    public struct Capture: Sendable, Equatable {
        /// The variable: `RECORD_ID`.
        public var name: String
        /// Where its value is.
        public var source: Source
        /// Whether the value is a secret, redacted from every output: its name says so (`TOKEN`, `SECRET`,
        /// `PASSWORD`, `KEY`, `SESSION`, `COOKIE`, `AUTH`), it is read from a credential header (`Set-Cookie`), or a
        /// request sends it in one (`Authorization`, `Cookie`). A record's id is not, and stays readable.
        public var isSecret: Bool

        /// - Parameters: as the properties.
        public init(name: String, source: Source, isSecret: Bool = false) {
            self.name = name
            self.source = source
            self.isSecret = isSecret
        }
    }

    /// The step's name, for messages: `createRecord`.
    public var name: String
    /// The request, built as a target's; `${NAME}`s of captured values stand in it as `StepCaptures.placeholder`.
    public var request: HTTPRequest
    /// The statuses that count as success; `nil` for any 2xx.
    public var expectedStatuses: [Int]?
    /// What the answer gives to later requests.
    public var captures: [Capture]
    /// Where the step is written in the manifest.
    public var declaration: SourcePlace?

    /// - Parameters: as the properties.
    public init(
        name: String, request: HTTPRequest, expectedStatuses: [Int]? = nil, captures: [Capture] = [],
        declaration: SourcePlace? = nil
    ) {
        self.name = name
        self.request = request
        self.expectedStatuses = expectedStatuses
        self.captures = captures
        self.declaration = declaration
    }

    /// Whether `status` is a success: one of `expectedStatuses`, or any 2xx when there are none.
    public func succeeds(_ status: Int) -> Bool {
        expectedStatuses.map { $0.contains(status) } ?? (200..<300).contains(status)
    }

    /// `201` or `2xx`, or `201 or 200`, for messages.
    public var expectation: String {
        guard let statuses = expectedStatuses, !statuses.isEmpty else { return "2xx" }
        return statuses.map(String.init).joined(separator: " or ")
    }
}

/// The steps around a target, or around every target of a service (then they run once per run).
public struct Steps: Sendable, Equatable {
    /// Sent in order before: their captures are for later steps and for the target(s).
    public var before: [Step]
    /// Sent in order after, whatever happened (a drift, a timeout, Ctrl-C).
    public var after: [Step]

    /// - Parameters: as the properties.
    public init(before: [Step] = [], after: [Step] = []) {
        self.before = before
        self.after = after
    }

    /// Whether there are none.
    public var isEmpty: Bool { before.isEmpty && after.isEmpty }
}

/// Captured values in requests: the manifest loader writes a captured `${NAME}` as a placeholder (letters and digits
/// alone, so that every percent-encoding and JSON leaves it as it is), and the runner puts the value in its place
/// once a step has captured it, encoded for where it stands.
public enum StepCaptures {
    private static let prefix = "zTetherCapture"

    /// The placeholder for `${name}`: `zTetherCapture` and the name's bytes in hexadecimal, then `z`.
    public static func placeholder(for name: String) -> String {
        prefix + name.utf8.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + "z"
    }

    /// The names of the captured values `text` uses.
    public static func names(in text: String) -> [String] {
        var names: [String] = []
        forEachPlaceholder(in: text) { name, _ in
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// `text` with each placeholder written back as `${NAME}`: for `--list` and for messages about a request that
    /// was not sent.
    public static func written(_ text: String) -> String {
        replacing(in: text) { "${\($0)}" }
    }

    /// `request` with each captured value in place: percent-encoded in the URL (every byte but letters, digits and
    /// `-._~`, so that a value is one path segment or one query value), as is in headers, JSON-escaped in a JSON
    /// body, form-encoded in a form body, as is in any other body.
    /// - Returns: The request, or the names it uses that `values` lacks (nothing captured them), or a header that a
    ///   value would split.
    public static func filled(_ request: HTTPRequest, with values: [String: String]) -> Result<HTTPRequest, Problem> {
        var missing: [String] = []
        func fill(_ text: String, _ encode: (String) -> String) -> String {
            replacing(in: text) { name in
                guard let value = values[name] else {
                    if !missing.contains(name) { missing.append(name) }
                    return "${\(name)}"
                }
                return encode(value)
            }
        }
        var filled = request
        filled.url = fill(request.url) { RequestBuilder.percentEncoded($0, keeping: unreserved) }
        for index in filled.headers.indices {
            let value = fill(filled.headers[index].value) { $0 }
            guard HTTPHeader.isSafeValue(value) else { return .failure(.splitsHeader(filled.headers[index].name)) }
            filled.headers[index].value = value
        }
        if let body = request.body, let text = String(data: body, encoding: .utf8), text.contains(prefix) {
            let type = request.headers.last { $0.isNamed("Content-Type") }.map { HTTPHeader.mediaType(of: $0.value) }
            let encode: (String) -> String
            switch type {
            case "application/x-www-form-urlencoded": encode = RequestBuilder.escape
            case let type? where type == "application/json" || type.hasSuffix("+json"):
                encode = { String(decoding: JSONValue.string($0).serialized().dropFirst().dropLast(), as: UTF8.self) }
            default: encode = { $0 }
            }
            filled.body = Data(fill(text, encode).utf8)
        }
        return missing.isEmpty ? .success(filled) : .failure(.notCaptured(missing))
    }

    /// Why a request could not be filled in.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// These values were used but no step captured them (the step that would have failed or was not run).
        case notCaptured([String])
        /// A captured value holds a line break or NUL, and would split this header.
        case splitsHeader(String)

        /// `it uses ${RECORD_ID}, which no earlier step captured`.
        public var description: String {
            switch self {
            case .notCaptured(let names):
                let written = names.map { "${\($0)}" }
                let list =
                    written.count == 1
                    ? written[0] : written.dropLast().joined(separator: ", ") + " and " + written[written.count - 1]
                return "it uses \(list), which no earlier step captured"
            case .splitsHeader(let name): return "a captured value would put a line break in its \(name) header"
            }
        }
    }

    private static let unreserved: [Bool] = (0..<128).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~".unicodeScalars.contains(scalar)
    }

    private static func replacing(in text: String, _ replacement: (String) -> String) -> String {
        guard text.contains(prefix) else { return text }
        var result = ""
        var rest = Substring(text)
        forEachPlaceholder(in: text) { name, range in
            result += text[rest.startIndex..<range.lowerBound]
            result += replacement(name)
            rest = text[range.upperBound...]
        }
        return result + rest
    }

    private static func forEachPlaceholder(in text: String, _ body: (String, Range<String.Index>) -> Void) {
        var searched = text.startIndex
        while let start = text.rangeOfText(prefix, from: searched) {
            var bytes: [UInt8] = []
            var index = start.upperBound
            var complete = false
            while index < text.endIndex {
                let character = text[index]
                if character == "z" {
                    complete = !bytes.isEmpty
                    index = text.index(after: index)
                    break
                }
                guard let high = character.hexDigitValue, text.index(after: index) < text.endIndex,
                    let low = text[text.index(after: index)].hexDigitValue
                else { break }
                bytes.append(UInt8(high * 16 + low))
                index = text.index(index, offsetBy: 2)
            }
            if complete {
                body(String(decoding: bytes, as: UTF8.self), start.lowerBound..<index)
                searched = index
            } else {
                searched = start.upperBound
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
