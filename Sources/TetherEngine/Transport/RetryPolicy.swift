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
        let text = value.trimmingWhitespace()
        if let seconds = Int(text) { return Double(seconds) }
        return httpDate(text).map { $0.timeIntervalSince(now) }
    }

    /// An HTTP date, `Wed, 21 Oct 2026 07:28:00 GMT` (RFC 9110's IMF-fixdate; `UTC` taken for `GMT`, a one-digit
    /// day for two), read field by field and turned into a time with the C library's `timegm`.
    static func httpDate(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let days = ["Sun,", "Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,"]
        guard words.count == 6, days.contains(String(words[0])), words[5] == "GMT" || words[5] == "UTC",
            words[1].count <= 2, let day = Int(words[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(words[2])),
            words[3].count == 4, let year = Int(words[3]), year >= 1970
        else { return nil }
        let clock = words[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]), hour < 24,
            let minute = Int(clock[1]), minute < 60, let second = Int(clock[2]), second <= 60
        else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: Double(timegm(&fields)))
    }

    /// libcurl's CURLE_FILESIZE_EXCEEDED: the body cap, which a retry cannot change.
    private var curlFileSizeExceeded: Int { 63 }
}
