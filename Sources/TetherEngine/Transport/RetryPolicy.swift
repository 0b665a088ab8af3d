import Foundation

/// When a request is sent again, and after how long: the one home of the retry policy (`--retries`).
///
/// Only what a second try can change is retried: a transport error (connection refused or reset, a timeout, TLS
/// trouble; never a stopped run or the body cap), a 5xx and a 429. A 4xx and a drift are answers, and the same
/// request gets the same answer, so they never are. The wait doubles from `baseDelay` on each retry, with "equal
/// jitter" (half of it fixed, half random, so that many clients do not retry in step and the wait never falls below
/// half the step), up to `maxDelay`; a `Retry-After` header (seconds or an HTTP date) on a 429 or 5xx replaces it,
/// capped at `maxDelay` too.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt (`--retries N`); 0 sends each request once.
    public var retries: Int
    /// The wait before the first retry, in seconds: doubled for each further one.
    public var baseDelay: Double
    /// The longest any wait may be, in seconds, whatever the back-off or `Retry-After` say.
    public var maxDelay: Double

    /// - Parameters: as the properties; the defaults are the CLI's.
    public init(retries: Int = 0, baseDelay: Double = 0.25, maxDelay: Double = 30) {
        self.retries = retries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Whether a request whose `attempt`-th try (from 1) ended with `result` is sent again.
    /// - Parameters:
    ///   - result: What the attempt got.
    ///   - attempt: Which attempt it was, from 1.
    /// - Returns: `true` for a transport error, a 5xx or a 429, while retries are left.
    public func shouldRetry(_ result: Result<HTTPResponse, TransportError>, attempt: Int) -> Bool {
        guard attempt <= retries else { return false }
        switch result {
        case .success(let response): return response.statusCode == 429 || (500...599).contains(response.statusCode)
        case .failure(let error): return !error.isInterrupted && error.code != 0 && error.code != curlFileSizeExceeded
        }
    }

    /// Seconds to wait before the retry after the `attempt`-th try (from 1).
    /// - Parameters:
    ///   - result: What the attempt got (its `Retry-After`, if any, wins over the back-off).
    ///   - attempt: Which attempt it was, from 1.
    ///   - now: The wall clock, for a `Retry-After` given as a date.
    ///   - random: A number in 0...1 for the jitter; injectable so tests can pin it.
    /// - Returns: The wait in seconds, at most `maxDelay`.
    public func delay(
        after result: Result<HTTPResponse, TransportError>, attempt: Int, now: Date = Date(),
        random: Double = Double.random(in: 0...1)
    ) -> Double {
        if case .success(let response) = result, let header = response.header("Retry-After"),
            let seconds = Self.retryAfterSeconds(header, now: now)
        {
            return min(max(0, seconds), maxDelay)
        }
        let step = min(baseDelay * pow(2, Double(max(0, attempt - 1))), maxDelay)
        return step / 2 + step / 2 * min(max(random, 0), 1)
    }

    /// A `Retry-After` value in seconds: a whole number of seconds, or an HTTP date (`Wed, 21 Oct 2026 07:28:00
    /// GMT`) counted from `now`; `nil` for anything else.
    static func retryAfterSeconds(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return Double(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { $0.timeIntervalSince(now) }
    }

    /// libcurl's CURLE_FILESIZE_EXCEEDED: the body cap, which a retry cannot change.
    private var curlFileSizeExceeded: Int { 63 }
}
