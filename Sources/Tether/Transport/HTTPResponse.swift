import Foundation

/// A live response as the transport received it (body already decoded from gzip, deflate or br).
public struct HTTPResponse: Sendable, Equatable {
    /// The final status code (after redirects).
    public var statusCode: Int
    /// Headers of the final response (after redirects), in order.
    public var headers: [HTTPHeader]
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
        self.headers = headers
        self.body = body
        self.url = url
        self.duration = duration
        self.httpVersion = httpVersion
        self.reason = reason
        self.attempts = attempts
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.isNamed(name) }?.value
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
