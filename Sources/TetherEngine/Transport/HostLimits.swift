#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How hard one host may be pressed (`--rate N/s`, `--jobs-per-host N`), so that a large run does not hammer a
/// staging server: the limits apply to each host (scheme, name and port) on its own, inside the run's `--jobs`.
public struct HostLimits: Sendable, Equatable {
    /// Requests started per second to one host, at most; `nil` for no limit. A retry counts as a request.
    public var requestsPerSecond: Double?
    /// Requests in flight to one host at once, at most; `nil` for only the run's `--jobs`.
    public var jobsPerHost: Int?

    /// - Parameters: as the properties; the defaults set no limit.
    public init(requestsPerSecond: Double? = nil, jobsPerHost: Int? = nil) {
        self.requestsPerSecond = requestsPerSecond
        self.jobsPerHost = jobsPerHost
    }
}

/// Applies `HostLimits` in the transport's loop: which request may start now, and when the next one of a host
/// that is held back may.
///
/// The rate is a fixed spacing (1/N seconds between two starts to one host), not a burst allowance: the first
/// request to a host starts at once, each next one no earlier than the spacing after the one before.
struct HostLimiter {
    let limits: HostLimits
    private var inFlight: [Substring: Int] = [:]
    private var nextStart: [Substring: ContinuousClock.Instant] = [:]

    init(limits: HostLimits) { self.limits = limits }

    /// Whether nothing is limited (the loop then skips the bookkeeping).
    var isUnlimited: Bool { limits.requestsPerSecond == nil && limits.jobsPerHost == nil }

    /// Whether a request to `host` may start at `now`.
    func admits(_ host: Substring, now: ContinuousClock.Instant) -> Bool {
        if let jobs = limits.jobsPerHost, inFlight[host, default: 0] >= jobs { return false }
        if let due = nextStart[host], now < due { return false }
        return true
    }

    /// Records that a request to `host` started at `now`.
    mutating func started(_ host: Substring, now: ContinuousClock.Instant) {
        inFlight[host, default: 0] += 1
        if let rate = limits.requestsPerSecond, rate > 0 {
            let spacing = Duration.nanoseconds(Int64((1e9 / rate).rounded(.up)))
            nextStart[host] = max(now, nextStart[host] ?? now) + spacing
        }
    }

    /// Records that a request to `host` ended.
    mutating func finished(_ host: Substring) {
        inFlight[host, default: 1] -= 1
    }

    /// When the earliest of `hosts` that the rate holds back may start again; `nil` when none is held by the rate.
    func nextDue<Hosts: Sequence>(among hosts: Hosts, after now: ContinuousClock.Instant) -> ContinuousClock.Instant?
    where Hosts.Element == Substring {
        hosts.compactMap { nextStart[$0] }.filter { $0 > now }.min()
    }

    /// `scheme://host:port` of a URL, lower-cased (the part before the path): what the limits count by.
    static func host(of url: String) -> Substring {
        guard let schemeEnd = url.rangeOfText("://") else { return Substring(url.lowercased()) }
        let rest = url[schemeEnd.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return Substring(url[url.startIndex..<end].lowercased())
    }
}
