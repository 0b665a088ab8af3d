#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A live response as the transport received it (body already decoded from gzip, deflate or br).
public struct HTTPResponse: Sendable, Equatable {
    /// The final status code (after redirects).
    public var statusCode: Int
    /// Headers of the final response (after redirects), in order.
    public var headers: [HTTPHeader] {
        get {
            switch headerStorage {
            case .parsed(let headers): headers
            case .lines(let lines): lines.headers
            }
        }
        set { headerStorage = .parsed(newValue) }
    }
    /// As the transport received them (`HeaderLines`: made into `HTTPHeader`s when asked for, most runs never ask),
    /// or as given.
    private var headerStorage: HeaderStorage
    /// The body, decoded (gzip, deflate, br).
    public var body: Data
    /// The URL that answered (after redirects).
    public var url: String
    /// Seconds from when the request was handed to libcurl (its turn among `--jobs`) to the last byte.
    public var duration: Double
    /// The protocol of the final status line: `HTTP/1.1`, `HTTP/2`.
    public var httpVersion: String
    /// The reason phrase of the final status line (`Not Found`); empty over HTTP/2, which has none.
    public var reason: String
    /// How many times the request was sent to get this answer: 1, or more when `--retries` sent it again.
    public var attempts: Int

    /// - Parameters: as the properties.
    public init(
        statusCode: Int, headers: [HTTPHeader] = [], body: Data = Data(), url: String, duration: Double = 0,
        httpVersion: String = "HTTP/1.1", reason: String = "", attempts: Int = 1
    ) {
        self.statusCode = statusCode
        self.headerStorage = .parsed(headers)
        self.body = body
        self.url = url
        self.duration = duration
        self.httpVersion = httpVersion
        self.reason = reason
        self.attempts = attempts
    }

    /// A response whose headers are `lines`, as the transport received them.
    init(
        statusCode: Int, headerLines: HeaderLines, body: Data, url: String, duration: Double, httpVersion: String,
        reason: String
    ) {
        self.init(
            statusCode: statusCode, body: body, url: url, duration: duration, httpVersion: httpVersion, reason: reason)
        headerStorage = .lines(headerLines)
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        switch headerStorage {
        case .parsed(let headers): headers.first { $0.isNamed(name) }?.value
        case .lines(let lines): lines.value(named: name)
        }
    }

    /// Equal fields, the headers compared as `HTTPHeader`s however each response keeps them.
    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.statusCode == b.statusCode && a.headers == b.headers && a.body == b.body && a.url == b.url
            && a.duration == b.duration && a.httpVersion == b.httpVersion && a.reason == b.reason
            && a.attempts == b.attempts
    }

    private enum HeaderStorage: Sendable {
        case parsed([HTTPHeader])
        case lines(HeaderLines)
    }
}

/// A response's header lines as libcurl handed them over, each trimmed of trailing whitespace and kept only when it
/// has a colon, in one buffer: the transport thread copies bytes and makes no `String` (two per header line were a
/// tenth of its work beside libcurl's). `headers` makes the `HTTPHeader`s; `value(named:)` finds one without them.
struct HeaderLines: Sendable {
    /// The lines, each followed by a line feed (libcurl never hands over one holding a line feed).
    private(set) var bytes: [UInt8] = []

    /// Appends one line: `bytes` trimmed, holding a colon.
    mutating func append(_ line: UnsafeRawBufferPointer) {
        if bytes.isEmpty { bytes.reserveCapacity(512) }  // a response's headers, mostly, without growing step by step
        bytes.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))  // typed: one copy, not a byte loop
        bytes.append(0x0A)
    }

    /// Every line as a header: the name before the first colon, the value after it without leading whitespace.
    var headers: [HTTPHeader] {
        var headers: [HTTPHeader] = []
        forEachLine { name, value in
            headers.append(
                HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return headers
    }

    /// The value of the first header named `name` (as `HTTPHeader.isNamed` compares: ASCII letters in either
    /// case); only that one `String` is made.
    func value(named name: String) -> String? {
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        let length = name.utf8.count
        var found: String?
        forEachLine { lineName, value in
            // Two ASCII names are compared byte by byte, folding case (`X-Tether-Mock` against `Last-Modified`
            // made two strings for each response); any other pair is compared as `isNamed` does.
            if isASCII && lineName.allSatisfy({ $0 < 0x80 }) {
                guard lineName.count == length, Self.equalFoldingCase(lineName, name) else { return true }
            } else if !HTTPHeader(String(decoding: lineName, as: UTF8.self), "").isNamed(name) {
                return true
            }
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    /// Whether ASCII `bytes` spell ASCII `name` of the same length, letters in either case.
    private static func equalFoldingCase(_ bytes: UnsafeBufferPointer<UInt8>, _ name: String) -> Bool {
        var index = 0
        for byte in name.utf8 {
            let other = bytes[index]
            index += 1
            if byte == other { continue }
            let folded = byte | 0x20
            guard folded == other | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else { return false }
        }
        return true
    }

    /// Calls `body` with each line's name and value bytes until it returns `false`. The line feeds and colons are
    /// found by `memchr`: two byte loops over every line were most of a lookup, and every response is asked for the
    /// mock's header (`NotRecorded`), which a live service's lines do not hold (2,300 instructions a response).
    private func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var start = 0
            while start < all.count {
                // Every line ends with a line feed (`append`).
                let end = UnsafeRawPointer(base).distance(to: memchr(base + start, 0x0A, all.count - start)!)
                let line = UnsafeBufferPointer(rebasing: all[start..<end])
                start = end + 1
                guard let found = memchr(line.baseAddress!, Int32(UInt8(ascii: ":")), line.count) else { continue }
                let colon = UnsafeRawPointer(line.baseAddress!).distance(to: found)
                var valueStart = colon + 1
                while valueStart < line.count, case let byte = line[valueStart],
                    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
                {
                    valueStart += 1
                }
                let name = UnsafeBufferPointer(rebasing: line[..<colon])
                if !body(name, UnsafeBufferPointer(rebasing: line[valueStart...])) { return }
            }
        }
    }
}

/// Why a request could not be checked: never a drift, always an `<error>` in the report.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl's own error text (CURLOPT_ERRORBUFFER, else `curl_easy_strerror`), or ours for the body cap.
    public var message: String
    /// The request's URL.
    public var url: String
    /// libcurl's `CURLcode`, or 0 for errors of ours.
    public var code: Int
    /// Seconds from when the request was handed to libcurl to the failure (0 when it never was).
    public var duration: Double
    /// How many times the request was sent before giving up: 1, or more when `--retries` sent it again.
    public var attempts: Int

    /// - Parameters: as the properties.
    public init(message: String, url: String, code: Int = 0, duration: Double = 0, attempts: Int = 1) {
        self.message = message
        self.url = url
        self.code = code
        self.duration = duration
        self.attempts = attempts
    }

    /// `URL: message`.
    public var description: String { "\(url): \(message)" }

    /// The message of a request that a `Cancellation` stopped before it finished.
    public static let interruptedMessage = "interrupted"

    /// A request the run was stopped before it finished (Ctrl-C, SIGTERM).
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - attempts: How many times it was sent (or started) before the stop.
    /// - Returns: The error.
    public static func interrupted(url: String, attempts: Int = 1) -> TransportError {
        TransportError(message: interruptedMessage, url: url, attempts: attempts)
    }

    /// Whether this is `interrupted(url:)`.
    public var isInterrupted: Bool { code == 0 && message == Self.interruptedMessage }
}

extension Result where Success == HTTPResponse, Failure == TransportError {
    /// The same result, saying it took `attempts` tries.
    func withAttempts(_ attempts: Int) -> Self {
        switch self {
        case .success(var response):
            response.attempts = attempts
            return .success(response)
        case .failure(var error):
            error.attempts = attempts
            return .failure(error)
        }
    }
}
