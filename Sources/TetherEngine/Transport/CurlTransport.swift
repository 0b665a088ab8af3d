internal import CCurl

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

/// How requests are sent: parallelism, limits and TLS.
public struct TransportOptions: Sendable, Equatable {
    /// Requests in flight at once (`--jobs`).
    public var jobs: Int
    /// Seconds one request may take, start to last byte (`--timeout`); zero or less, or infinite, for no limit.
    public var timeout: Double
    /// Seconds to establish a connection.
    public var connectTimeout: Double
    /// Skip TLS certificate and host verification (`--insecure`).
    public var isInsecure: Bool
    /// A PEM file of CA certificates to trust instead of the system's (`--cacert`).
    public var caCertificatePath: String?
    /// The largest body accepted, in bytes (`--max-body`); past it, the request is an error.
    public var maxBodyBytes: Int
    /// Raised to stop the run (Ctrl-C): nothing more is sent and every unfinished request is `interrupted`.
    /// Compared by identity.
    public var cancellation: Cancellation?
    /// Which answers are sent again, and after how long (`--retries`).
    public var retry: RetryPolicy
    /// How hard one host may be pressed (`--rate`, `--jobs-per-host`).
    public var hostLimits: HostLimits

    /// - Parameters: as the properties; the defaults are the CLI's.
    public init(
        jobs: Int = 8, timeout: Double = 30, connectTimeout: Double = 10, isInsecure: Bool = false,
        caCertificatePath: String? = nil, maxBodyBytes: Int = 64 << 20, cancellation: Cancellation? = nil,
        retry: RetryPolicy = RetryPolicy(), hostLimits: HostLimits = HostLimits()
    ) {
        self.retry = retry
        self.hostLimits = hostLimits
        self.jobs = jobs
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.isInsecure = isInsecure
        self.caCertificatePath = caCertificatePath
        self.maxBodyBytes = maxBodyBytes
        self.cancellation = cancellation
    }

    /// Equal options; the cancellation flag compares by identity.
    public static func == (a: TransportOptions, b: TransportOptions) -> Bool {
        a.jobs == b.jobs && a.timeout == b.timeout && a.connectTimeout == b.connectTimeout
            && a.isInsecure == b.isInsecure && a.caCertificatePath == b.caCertificatePath
            && a.maxBodyBytes == b.maxBodyBytes && a.cancellation === b.cancellation && a.retry == b.retry
            && a.hostLimits == b.hostLimits
    }
}

/// Sends requests and returns, for each, the response or why there is none. The one door to the network.
///
/// `ContractRunner` calls `send` from a thread of its own when a run has more than one request (and checks each
/// result on the caller's thread), so an implementation must be safe to call from any thread.
public protocol HTTPTransport: Sendable {
    /// Sends every request (in parallel, as the options allow) and returns one result per request, in the same order.
    func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>]

    /// Sends every request and hands each result over as soon as it is complete (in completion order, with the
    /// request's index), so the caller can work on it while the others are in flight and then drop its body.
    func send(
        _ requests: [HTTPRequest], options: TransportOptions,
        onResult: (Int, Result<HTTPResponse, TransportError>) -> Void)

    /// Starts what the first request needs (a library's own set-up) on a thread of its own, so that it overlaps the
    /// caller's start-up (reading the manifests); `nil` when there is nothing to start. The caller waits on it before
    /// the run ends, whether anything was sent or not.
    func startUp() -> TransportStartUp?
}

extension HTTPTransport {
    /// Nothing to start ahead.
    public func startUp() -> TransportStartUp? { nil }

    /// For transports that only answer in bulk: every result once all are complete.
    public func send(
        _ requests: [HTTPRequest], options: TransportOptions,
        onResult: (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        for (index, result) in send(requests, options: options).enumerated() { onResult(index, result) }
    }
}

/// The real transport: libcurl's multi interface, keep-alive, HTTP/2 where offered, compressed bodies decoded.
public struct CurlTransport: HTTPTransport {
    /// The product's User-Agent, so that a service's logs can tell Tether's traffic apart.
    public static let userAgent = "tether/\(tetherVersion)"

    /// The transport; libcurl is set up on first use.
    public init() {}

    /// Sends every request and returns one result per request, in request order.
    public func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
        var results = [Result<HTTPResponse, TransportError>?](repeating: nil, count: requests.count)
        send(requests, options: options) { index, result in results[index] = result }
        return results.enumerated().map { index, result in
            result ?? .failure(TransportError(message: "no result (internal error)", url: requests[index].url))
        }
    }

    /// Sends every request and hands each result over as soon as it is complete (see `HTTPTransport`).
    ///
    /// A long run is sent by several loops at once, each on a thread with its own multi handle and its share of the
    /// jobs, taking the next request from one counter (see `loops(requests:options:)`): libcurl's work per
    /// request is most of a small run's time, and one loop keeps one core busy while the others wait. `onResult` is
    /// called by one loop at a time. (Checking the answers on the loops' threads too, instead of on the caller's,
    /// was tried: 2,000 contracts took 140 ms instead of 126, each loop's connections waiting while it checked.)
    public func send(
        _ requests: [HTTPRequest], options: TransportOptions,
        onResult: (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        let handOver = Lock()
        withoutActuallyEscaping(onResult) { onResult in
            let deliver = UncheckedSendable(onResult)  // called under `handOver` only
            sendLoops(requests, options: options, handsOverAfterSending: false) { index, result in
                handOver.withLock { deliver.value(index, result) }
            }
        }
    }

    /// `send(_:options:onResult:)` for a caller whose `onResult` is safe to call from several loops at once (a
    /// `HandOver`'s `put`): the loops do not take turns under a lock of their own first. A loop hands the results of
    /// the transfers that finished over once it has sent the requests that take their places, so the caller must not
    /// count on a result's handling to stop the next request (as `--fail-fast` checks in step do).
    func sendFromAnyLoop(
        _ requests: [HTTPRequest], options: TransportOptions,
        onResult: @Sendable (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        sendLoops(requests, options: options, handsOverAfterSending: true, onResult: onResult)
    }

    private func sendLoops(
        _ requests: [HTTPRequest], options: TransportOptions, handsOverAfterSending: Bool,
        onResult: @Sendable (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        _ = curlLibrary
        let source = RequestSource(count: requests.count)
        let shares = Self.loops(requests: requests.count, options: options)
        guard shares.count > 1 else {
            Self.sendLoop(
                requests, options: options, jobs: max(1, options.jobs), source: source,
                handsOverAfterSending: handsOverAfterSending, onResult: onResult)
            return
        }
        // The loops run on threads of their own, all done when this returns (no closure outlives the call), whose
        // stack holds the deepest body: `onResult` may check the answers there (`--fail-fast`), and Dispatch's
        // threads have 512 KB on Darwin (see `DeepStack`). Were fewer threads free than loops, the first loops would
        // take every request. On Linux each loop stays on a core of its own: a request to a server on the same
        // machine wakes the server on the sending core, where it and the loop ran by turns while the other core idled
        // (`perf sched timehist`); kept apart, the loops ran 2,000 contracts in 3-4 % less time (bench/HISTORY.md,
        // 2026-12-07). A loop whose core other work keeps busy takes fewer requests: they come from one source.
        DeepStack.concurrentPerform(name: "tether-transport-loop", iterations: shares.count, coreEach: true) { loop in
            Self.sendLoop(
                requests, options: options, jobs: shares[loop], source: source,
                handsOverAfterSending: handsOverAfterSending, onResult: onResult)
        }
    }

    /// The jobs of each loop that sends a run: one loop, unless the run is long (64 requests or more), the jobs are
    /// at least 8 and no host has limits (a limiter counts one loop's requests); then one loop per core, up to 4,
    /// each with at least 4 jobs, the jobs shared out so that they add up to `--jobs`.
    static func loops(requests: Int, options: TransportOptions) -> [Int] {
        let jobs = max(1, options.jobs)
        // The core count last: Foundation reads it from the cgroup's files, which a one-request run need not pay for.
        guard requests >= 64, jobs >= 8, HostLimiter(limits: options.hostLimits).isUnlimited else { return [jobs] }
        let count = min(ProcessEnvironment.activeProcessorCount, 4, jobs / 4)
        guard count > 1 else { return [jobs] }
        return (0..<count).map { jobs / count + ($0 < jobs % count ? 1 : 0) }
    }

    /// One loop: its own multi handle, `jobs` transfers at most in flight, requests taken from `source` in order.
    /// With `handsOverAfterSending`, the results of the transfers that finish are made and handed over once the
    /// requests that take their places are sent (neither need be on the way from one answer to the next request; a
    /// finished handle is reused after that, and a new one takes its place meanwhile); without, at once.
    private static func sendLoop(
        _ requests: [HTTPRequest], options: TransportOptions, jobs: Int, source: RequestSource,
        handsOverAfterSending: Bool, onResult: (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        guard let multi = CurlMulti(maxConnections: jobs) else {
            for index in source.takeAll() {
                onResult(
                    index,
                    .failure(
                        TransportError(
                            message: "could not start libcurl (curl_multi_init failed)", url: requests[index].url)))
            }
            return
        }
        var held: [Int] = []  // taken, held back by the gate (an https origin is being opened), in order
        var running: [Int: Transfer] = [:]  // keyed by request index
        var idle: [CurlEasy] = []  // finished handles, reused: each keeps its options, connections and buffers
        var gate = OriginGate()
        var limiter = HostLimiter(limits: options.hostLimits)
        let hosts = limiter.isUnlimited ? [] : requests.map { HostLimiter.host(of: $0.url) }
        // Requests waiting out their back-off before another attempt, and how many times each was sent (a request
        // stopped before it was ever sent counts as one attempt, as without retries).
        var retrying: [(due: ContinuousClock.Instant, index: Int)] = []
        var attempts: [Int: Int] = [:]
        let attemptsSent = { (index: Int) in max(1, attempts[index] ?? 0) }
        // A cancellation wakes the wait below at once; the multi handle outlives its registration.
        let waker = options.cancellation?.register(multi.waker)
        defer {
            waker.map { options.cancellation?.unregister($0) }
            withExtendedLifetime(multi) {}
        }
        // With one request in flight, the loop polls the connection without sleeping for a moment before it waits
        // (`CurlMulti.spin`), once a connection has answered: a server on this machine (a mock, a container) answers
        // within that, and a wakeup from a sleeping wait took longer than the answer (2,000 sequential requests to
        // nginx on 127.0.0.1 in a C loop: 166.5 ms sleeping, 100.6 ms polling for 50 µs first). Never for one request
        // alone, nor on one core, where the server could not run meanwhile.
        let spins = requests.count > 1 && ProcessEnvironment.activeProcessorCount > 1
        let isProxyless = ProxyVariables.areAbsent()
        var hasAnswered = false
        // Transfers that finished, whose results are not made yet: each is made, then handed over or retried.
        var finishedTransfers: [(index: Int, transfer: Transfer, code: CURLcode, at: ContinuousClock.Instant)] = []
        func settle() {
            for (index, transfer, code, finishedAt) in finishedTransfers {
                let result = transfer.result(code: code, finishedAt: finishedAt)
                idle.append(transfer.easy.finish())
                let attempt = attemptsSent(index)
                if options.retry.shouldRetry(result, attempt: attempt), options.cancellation?.isCancelled != true {
                    let wait = options.retry.delay(after: result, attempt: attempt)
                    retrying.append((ContinuousClock.now + .nanoseconds(Int64(wait * 1e9)), index))
                } else {
                    onResult(index, result.withAttempts(attempt))
                    attempts[index] = nil  // done with: 100,000 entries were 4 MB
                }
            }
            finishedTransfers.removeAll(keepingCapacity: true)
        }
        defer { settle() }
        while !source.isEmpty || !held.isEmpty || !running.isEmpty || !retrying.isEmpty || !finishedTransfers.isEmpty {
            if options.cancellation?.isCancelled == true {
                settle()
                // Stop: the transfers in flight end now, nothing more is sent, and no back-off is waited out.
                for (index, transfer) in running.sorted(by: { $0.key < $1.key }) {
                    multi.remove(transfer)
                    onResult(index, .failure(.interrupted(url: requests[index].url, attempts: attemptsSent(index))))
                }
                for index in retrying.map(\.index).sorted() + held + Array(source.takeAll()) {
                    onResult(index, .failure(.interrupted(url: requests[index].url, attempts: attemptsSent(index))))
                }
                return
            }
            var now = ContinuousClock.now
            // Retries whose back-off is over go first: their requests came earliest.
            if retrying.contains(where: { $0.due <= now }) {
                held.insert(contentsOf: retrying.filter { $0.due <= now }.map(\.index).sorted(), at: 0)
                retrying.removeAll { $0.due <= now }
            }
            // Fill the free slots: held requests first (they came earlier), then new ones, in order. A request waits
            // while its host is at its limits or its https origin is being opened.
            let admits = { (index: Int) -> Bool in
                (hosts.isEmpty || limiter.admits(hosts[index], now: now))
                    && gate.admits(index, url: requests[index].url)
            }
            var position = 0
            while running.count < jobs {
                let index: Int
                if position < held.count {
                    guard admits(held[position]) else {
                        position += 1
                        continue
                    }
                    index = held.remove(at: position)
                } else if let taken = source.take() {
                    index = taken
                    guard admits(index) else {
                        held.append(index)
                        position = held.count
                        continue
                    }
                } else {
                    break
                }
                switch Transfer.make(
                    request: requests[index], options: options, isProxyless: isProxyless, reusing: idle.popLast())
                {
                case .success(let transfer):
                    transfer.startedAt = ContinuousClock.now
                    if let error = multi.add(transfer) {
                        onResult(
                            index,
                            .failure(
                                TransportError(message: error, url: requests[index].url, attempts: attemptsSent(index)))
                        )
                    } else {
                        running[index] = transfer
                        attempts[index, default: 0] += 1
                        if !hosts.isEmpty { limiter.started(hosts[index], now: now) }
                    }
                case .failure(let error):
                    onResult(index, .failure(error))
                }
            }
            multi.perform()
            settle()
            let finished = multi.finished()
            hasAnswered = hasAnswered || !finished.isEmpty
            for (handle, code) in finished {
                guard let (index, transfer) = running.first(where: { $0.value.easy.handle == handle }) else { continue }
                running[index] = nil
                multi.remove(transfer)
                if !hosts.isEmpty { limiter.finished(hosts[index]) }
                finishedTransfers.append((index, transfer, code, ContinuousClock.now))
            }
            if !handsOverAfterSending { settle() }
            let opened = gate.open { index in running[index]?.hasConnected ?? true }
            // Wait for the network only when no slot came free and no origin opened: those are filled first, at once.
            // With nothing in flight the wait is for a back-off or a host's rate, until the first one is due; a
            // cancellation wakes either wait at once (`curl_multi_wakeup`).
            guard finished.isEmpty && !opened else { continue }
            now = ContinuousClock.now
            let rateDue = hosts.isEmpty ? nil : limiter.nextDue(among: held.map { hosts[$0] }, after: now)
            let due = (retrying.map(\.due) + [rateDue].compactMap { $0 }).min()
            guard !running.isEmpty || due != nil else { continue }
            var milliseconds: Int32 = 100
            if let due {
                let left = due - now
                let wait = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                milliseconds = Int32(max(1, min(100, wait + 1)))
            }
            if spins, hasAnswered, due == nil, running.count == 1, multi.spin(for: Self.spinTime) {
                continue
            }
            multi.wait(milliseconds: milliseconds)
        }
    }

    /// How long a loop with one request in flight polls before it sleeps (see `sendLoop`): 50 µs did as well as 100
    /// and 200 in the measurement there, 25 µs less well (110.8 ms).
    private static let spinTime = Duration.microseconds(100)
}

/// Where the loops of one `send` take their next request from, in order: a counter behind a lock.
private final class RequestSource: @unchecked Sendable {
    private let lock = Lock()
    private var next = 0  // requests[next...] are not taken yet
    private let count: Int

    init(count: Int) { self.count = count }

    /// Whether every request is taken.
    var isEmpty: Bool { lock.withLock { next >= count } }

    /// The next request not taken yet, if any.
    func take() -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            next += 1
            return next - 1
        }
    }

    /// Every request not taken yet (a stopped run reports them; a loop that cannot start hands them back failed).
    func takeAll() -> Range<Int> {
        lock.withLock {
            defer { next = count }
            return next..<count
        }
    }
}

/// Holds back the requests to an `https` origin while the first connection to it is being set up, so that they
/// learn from its TLS handshake (ALPN) whether they can share it (HTTP/2) or must open their own (HTTP/1.1).
///
/// This is libcurl's CURLOPT_PIPEWAIT done where the clock is honest. libcurl 7.88 parks a PIPEWAIT request behind
/// any connection to its host whose multiplexing is not known yet, or that is still connecting, and looks at the
/// parked requests again only when a handshake completes or a transfer *ends*. Over plain HTTP/1.1 (which
/// `CURL_HTTP_VERSION_2TLS` never multiplexes) the answer comes with the first response's status line, and that does
/// not wake them: one slow response held every request beside it, their `--timeout` running out while parked (they
/// then failed with "Failed to resolve host '127.0.0.1' with timeout after 0 ms"). Over TLS a hanging handshake did
/// the same. Here a held request is not handed to libcurl yet, so its timeout and duration start when it is.
struct OriginGate {
    /// Origins whose first connection is being set up, with the request that opens it.
    private var opening: [Substring: Int] = [:]
    /// Origins past their first handshake (or whose first request ended without one).
    private var known: Set<Substring> = []

    /// Whether the request may be handed to libcurl now; the first one to a new `https` origin opens it.
    mutating func admits(_ index: Int, url: String) -> Bool {
        guard let origin = Self.tlsOrigin(url), !known.contains(origin) else { return true }
        if opening[origin] != nil { return false }
        opening[origin] = index
        return true
    }

    /// Opens the origins whose opening request has connected (or is no longer in flight); returns whether any did.
    mutating func open(whereConnected hasConnected: (Int) -> Bool) -> Bool {
        let ready = opening.filter { hasConnected($0.value) }
        for origin in ready.keys {
            opening[origin] = nil
            known.insert(origin)
        }
        return !ready.isEmpty
    }

    private static let tlsScheme: StaticString = "https://"

    /// `https://host:port` of an `https` URL, lower-cased; nil for any other scheme.
    static func tlsOrigin(_ url: String) -> Substring? {
        // The bytes first, letters in either case: an `http` URL is told apart at its fifth byte. A lower-cased copy
        // of each URL's first characters was 1,500 instructions a request, on the transport's thread. (No character
        // past ASCII lower-cases to one of `https`, so any URL the bytes turn away, the characters would too.)
        let mayBeTLS =
            url.utf8.withContiguousStorageIfAvailable { bytes in
                let expected = UnsafeBufferPointer(start: tlsScheme.utf8Start, count: tlsScheme.utf8CodeUnitCount)
                guard bytes.count > expected.count else { return false }
                for index in 0..<expected.count {
                    let (byte, wanted) = (bytes[index], expected[index])
                    guard byte == wanted || (wanted >= UInt8(ascii: "a") && byte | 0x20 == wanted) else { return false }
                }
                return true
            } ?? true  // a string not stored as UTF-8: the characters decide
        guard mayBeTLS else { return nil }
        let scheme = tlsScheme.description
        guard url.utf8.count > scheme.utf8.count, url.prefix(scheme.count).lowercased() == scheme else { return nil }
        let rest = url.dropFirst(scheme.count)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return Substring(url[url.startIndex..<end].lowercased())
    }
}

/// Seconds as libcurl's milliseconds. Zero, negative, infinite or NaN (the Swift API takes any `Double`) mean no
/// limit, libcurl's 0; huge values are clamped to what it takes.
private func milliseconds(_ seconds: Double) -> Int {
    guard seconds.isFinite, seconds > 0 else { return 0 }
    return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
}

/// libcurl's global set-up, once per process (see `CurlTransport.startUp()`), and the `Accept-Encoding` line it
/// would write itself.
private let curlLibrary: CurlLibrary = {
    curl_global_init(Int(CURL_GLOBAL_ALL))
    return CurlLibrary(features: tether_curl_features())
}()

/// What the run's requests take from the libcurl they run on.
private struct CurlLibrary {
    /// `Accept-Encoding: deflate, gzip, br, zstd`: every coding libcurl decodes, in its order, as it writes the line
    /// for `CURLOPT_ACCEPT_ENCODING ""` (its `Curl_all_content_encodings`, 7.88 to 8.x; `identity` when it decodes
    /// none), sent in each request's header list (`Transfer.headerList(for:)`).
    let acceptEncoding: String

    init(features: Int32) {
        var codings: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { codings += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { codings.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { codings.append("zstd") }
        acceptEncoding = "Accept-Encoding: " + (codings.isEmpty ? "identity" : codings.joined(separator: ", "))
    }
}

extension CurlTransport {
    /// libcurl's global set-up (`curl_global_init`, mostly OpenSSL's: 0.6-1 ms here) on a thread of its own, once
    /// per process: every call returns the same start-up. The first request waits for it where it is not done yet
    /// (`curlLibrary` is set once); no other call into libcurl comes before that.
    public func startUp() -> TransportStartUp? { Self.libraryStartUp }

    private static let libraryStartUp = TransportStartUp(name: "tether-curl-init") { _ = curlLibrary }
}

/// Work a transport does ahead of its first request, on a thread of its own (`HTTPTransport.startUp()`): waited on
/// before the run ends, so that the process never exits while a library is being set up.
public final class TransportStartUp: Sendable {
    private let work: DeepStack.Background

    /// Starts `work` on a thread called `name`, on another core than the caller's where there is one (see
    /// `DeepStack.Placement.awayFromCaller`): the caller goes on with its own start-up meanwhile.
    init(name: String, _ work: @escaping @Sendable () -> Void) {
        self.work = DeepStack.Background(name: name, placement: .awayFromCaller, work)
    }

    /// Returns once the work is done.
    public func wait() { work.wait() }
}

/// Owns a multi handle.
private final class CurlMulti {
    let handle: UnsafeMutableRawPointer

    init?(maxConnections: Int) {
        guard let handle = curl_multi_init() else { return nil }
        self.handle = handle
        _ = tether_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections)
        _ = tether_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, maxConnections)
    }

    deinit { curl_multi_cleanup(handle) }

    func add(_ transfer: Transfer) -> String? {
        let code = curl_multi_add_handle(handle, transfer.easy.handle)
        return code == CURLM_OK ? nil : String(cString: curl_multi_strerror(code))
    }

    func remove(_ transfer: Transfer) { curl_multi_remove_handle(handle, transfer.easy.handle) }

    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(handle, &running)
    }

    /// Wakes `wait` from another thread (`curl_multi_wakeup`).
    var waker: @Sendable () -> Void {
        let wakeable = Wakeable(handle: handle)
        return { wakeable.wake() }
    }

    /// A multi handle's address, for `curl_multi_wakeup` (documented as safe from any thread) and nothing else.
    private struct Wakeable: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
        func wake() { _ = curl_multi_wakeup(handle) }
    }

    func wait(milliseconds: Int32) {
        var fds: Int32 = 0
        _ = curl_multi_poll(handle, nil, 0, milliseconds, &fds)
    }

    /// Polls the transfers' sockets without sleeping until one is ready or `duration` has passed; whether one
    /// is ready. (`curl_multi_wait` with no timeout: a cancellation's wakeup is seen by the `wait` after it.)
    func spin(for duration: Duration) -> Bool {
        let end = ContinuousClock.now + duration
        var fds: Int32 = 0
        repeat {
            guard curl_multi_wait(handle, nil, 0, 0, &fds) == CURLM_OK else { return false }
            if fds > 0 { return true }
        } while ContinuousClock.now < end
        return false
    }

    /// The easy handles that completed since the last call, with their result codes.
    func finished() -> [(UnsafeMutableRawPointer, CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                done.append((easy, message.pointee.data.result))
            }
        }
        return done
    }
}

/// Owns one easy handle. Handles are reused from one request to the next, as libcurl advises: the options every
/// request of a run shares are set once, and only a request that set a method or a body has them all reset after it.
private final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// libcurl's text for a failure (CURLOPT_ERRORBUFFER), emptied before each request.
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Whether the options every request of the run shares are set (see `Transfer.configure`).
    var hasRunOptions = false
    /// Whether the last request set options the next one may not want (a method, a body).
    var needsReset = false
    /// The header list of a request with no headers of its own (`Expect:`, `User-Agent` and `Accept-Encoding`),
    /// made once.
    private(set) lazy var defaultHeaders: UnsafeMutablePointer<curl_slist>? = Transfer.headerList(for: [])

    init?() {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Set once, before the handle's first transfer: libcurl 7.88 refuses a new size once the handle has its
        // buffer (`curl_easy_reset` keeps the buffer, and a handle reset reads 16 KB at a time again). A refusal only
        // leaves libcurl's default.
        _ = tether_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
    }

    /// How much libcurl reads from a connection at a time: 100 KB, as curl's command line asks for, instead of
    /// libcurl's default 16 KB (a 20 MB body in 1,242 reads from the socket, curl's in 432).
    static let receiveBufferBytes = 100 << 10

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(defaultHeaders)
        errorBuffer.deallocate()
    }

    /// Ready for the next request, keeping connections and buffers: no pointer into the finished transfer is left
    /// behind, and after a method or a body every option is forgotten (`curl_easy_reset`).
    func finish() -> CurlEasy {
        if needsReset {
            curl_easy_reset(handle)
            hasRunOptions = false
            needsReset = false
        } else {
            _ = tether_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, nil)
            _ = tether_curl_setopt_ptr(handle, CURLOPT_HEADERDATA, nil)
            _ = tether_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, nil)
        }
        return self
    }
}

/// One request on an easy handle: its header list, error buffer, and the response as it arrives.
private final class Transfer {
    let easy: CurlEasy
    private var handle: UnsafeMutableRawPointer { easy.handle }
    let request: HTTPRequest
    let maxBodyBytes: Int
    /// The limits in force, in libcurl's milliseconds (0: none), to say which one a timeout hit.
    let timeoutMilliseconds: Int
    let connectTimeoutMilliseconds: Int
    /// When the transfer was handed to libcurl: its duration is counted from here, wherever libcurl kept it waiting.
    var startedAt: ContinuousClock.Instant?
    /// The request's own header list (nil when it has no headers: the handle's `defaultHeaders` are sent).
    var headerList: UnsafeMutablePointer<curl_slist>?
    private var errorBuffer: UnsafeMutablePointer<CChar> { easy.errorBuffer }
    /// The body as it arrives, in a buffer that becomes the response's `Data` without a copy and that the JSON
    /// check parses in place (see `PaddedBytes`).
    let body = PaddedBytes()
    var headerLines = HeaderLines()
    /// The protocol and reason phrase of the last status line received (`HTTP/1.1 200 OK`), which a recording keeps.
    var httpVersion = "HTTP/1.1"
    var reason = ""
    var isBodyTooLarge = false
    /// The body's buffer could not grow (the machine is out of memory).
    var isOutOfMemory = false

    private init(easy: CurlEasy, request: HTTPRequest, options: TransportOptions) {
        self.easy = easy
        self.request = request
        self.maxBodyBytes = options.maxBodyBytes
        let timeout = milliseconds(options.timeout)
        let connectTimeout = milliseconds(options.connectTimeout)
        // Connecting never gets longer than the whole request; "no limit" on the whole keeps the connect limit.
        self.timeoutMilliseconds = timeout
        self.connectTimeoutMilliseconds =
            timeout == 0 ? connectTimeout : connectTimeout == 0 ? timeout : min(connectTimeout, timeout)
    }

    deinit { curl_slist_free_all(headerList) }

    static func make(request: HTTPRequest, options: TransportOptions, isProxyless: Bool, reusing idle: CurlEasy?)
        -> Result<Transfer, TransportError>
    {
        guard let easy = idle ?? CurlEasy() else {
            return .failure(
                TransportError(message: "could not start libcurl (curl_easy_init failed)", url: request.url))
        }
        let transfer = Transfer(easy: easy, request: request, options: options)
        if let message = transfer.configure(options: options, isProxyless: isProxyless) {
            return .failure(TransportError(message: message, url: request.url))
        }
        return .success(transfer)
    }

    /// Sets the request's options, and the run's on a handle that has none yet; returns libcurl's text for the
    /// first one it refuses. `isProxyless`: no proxy variable is set (`ProxyVariables`).
    private func configure(options: TransportOptions, isProxyless: Bool) -> String? {
        var refused = CURLE_OK
        let set = { (code: CURLcode) in if refused == CURLE_OK { refused = code } }
        if !easy.hasRunOptions {
            set(tether_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer))
            set(tether_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(tether_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1))
            set(tether_curl_setopt_long(handle, CURLOPT_MAXREDIRS, 20))
            set(tether_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
            set(tether_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
            set(tether_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
            set(tether_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds))
            set(tether_curl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBodyBytes)))
            set(tether_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, transferWriteBody))
            set(tether_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION, transferWriteHeader))
            if options.isInsecure {
                set(tether_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0))
                set(tether_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
            }
            if let path = options.caCertificatePath {
                set(tether_curl_setopt_string(handle, CURLOPT_CAINFO, path))
            }
            if isProxyless {
                set(tether_curl_setopt_string(handle, CURLOPT_PROXY, ""))
                set(tether_curl_setopt_string(handle, CURLOPT_NOPROXY, ""))
            } else {
                // The `User-Agent` of a proxy's `CONNECT`, which libcurl writes from this and not from the header
                // list; it then leaves its own out of the request, where the list has one.
                set(tether_curl_setopt_string(handle, CURLOPT_USERAGENT, CurlTransport.userAgent))
            }
            easy.hasRunOptions = refused == CURLE_OK
        }
        errorBuffer[0] = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        set(tether_curl_setopt_string(handle, CURLOPT_URL, request.url))
        set(tether_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, context))
        set(tether_curl_setopt_ptr(handle, CURLOPT_HEADERDATA, context))
        // A body makes libcurl send POST, so every other method with a body is named explicitly (a GET with a body
        // stays a GET). POST itself is left to libcurl, so that a 301, 302 or 303 continues as GET, as URLSession does.
        let method = request.method == "GET" ? "GET" : request.method.uppercased()
        let body = request.body ?? (method == "POST" ? Data() : nil)
        switch method {
        case "GET", "POST": break
        case "HEAD": set(tether_curl_setopt_long(handle, CURLOPT_NOBODY, 1))
        default: set(tether_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if body != nil && (method == "GET" || method == "HEAD") {
            set(tether_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }
        if let body {
            set(tether_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            set(
                body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS copies now, so the body need not outlive this call; an empty body still needs a pointer.
                    tether_curl_setopt_ptr(
                        handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(errorBuffer))
                })
        }
        // The next request on this handle starts from no options when this one set a method or a body.
        easy.needsReset = method != "GET" || body != nil
        if !request.headers.isEmpty { headerList = Self.headerList(for: request.headers) }
        set(tether_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList ?? easy.defaultHeaders))
        if refused != CURLE_OK {
            easy.needsReset = true  // whatever was set, the next request starts from none
            return "libcurl refused an option: \(String(cString: curl_easy_strerror(refused)))"
        }
        return nil
    }

    /// The header list of a request with `headers`: `Expect:` (no "Expect: 100-continue" round trip for larger
    /// bodies), then the product's `User-Agent` and libcurl's `Accept-Encoding` unless the request has its own, then
    /// the request's headers (which replace libcurl's own of the same name, as `Accept`). libcurl wrote those two
    /// lines with its own printf for every request when they were options (`CURLOPT_USERAGENT`, and
    /// `CURLOPT_ACCEPT_ENCODING ""`, which stays set for decoding): a run of 2,000 contracts went 365.5 → 354.8 M
    /// instructions; a line of the list is copied as it is, and libcurl leaves its own out where the list has one.
    static func headerList(for headers: [HTTPHeader]) -> UnsafeMutablePointer<curl_slist>? {
        var list = curl_slist_append(nil, "Expect:")
        if !headers.contains(where: { $0.isNamed("User-Agent") }) { list = curl_slist_append(list, userAgentLine) }
        if !headers.contains(where: { $0.isNamed("Accept-Encoding") }) {
            list = curl_slist_append(list, curlLibrary.acceptEncoding)
        }
        for header in headers {
            list = curl_slist_append(list, header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        return list
    }

    private static let userAgentLine = "User-Agent: " + CurlTransport.userAgent

    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count == 0 {
            // Reserve the announced length once: the body is written where it will be parsed, never copied. Without
            // a length (or with a compressed one) the buffer grows in place.
            var length: curl_off_t = -1
            if tether_curl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length > 0 {
                _ = body.reserve(Int(min(length, curl_off_t(maxBodyBytes))))
            }
        }
        if body.count + bytes.count > maxBodyBytes {
            isBodyTooLarge = true
            return false
        }
        guard body.append(bytes) else {
            isOutOfMemory = true
            return false
        }
        return true
    }

    /// One header line as libcurl hands it over (with its CRLF). Looked at on bytes and kept as bytes
    /// (`HeaderLines`): this runs for every header of every response, and Foundation's string trimming here once
    /// cost a quarter of a 2,000-contract run, two `String`s per line a tenth of this thread's own work.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        var end = bytes.count
        while end > 0 && isSpace(bytes[end - 1]) { end -= 1 }
        guard end > 0 else { return }
        if end >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T") && bytes[2] == UInt8(ascii: "T")
            && bytes[3] == UInt8(ascii: "P") && bytes[4] == UInt8(ascii: "/")
        {
            headerLines = HeaderLines()  // a new response (a redirect, a 100 Continue): only the final one's count
            // `HTTP/1.1 404 Not Found` → `HTTP/1.1` and `Not Found`; `HTTP/2 200` has no reason. Split on bytes (a
            // `String.split` by characters was 6,700 instructions a response).
            let versionEnd = bytes[..<end].firstIndex(of: 0x20) ?? end
            var at = versionEnd
            while at < end && bytes[at] == 0x20 { at += 1 }  // to the code
            while at < end && bytes[at] != 0x20 { at += 1 }  // past it
            while at < end && bytes[at] == 0x20 { at += 1 }  // to the reason
            httpVersion = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<versionEnd]), as: UTF8.self)
            reason = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<end]), as: UTF8.self)
            return
        }
        let line = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        guard let base = line.baseAddress, memchr(base, Int32(UInt8(ascii: ":")), end) != nil else { return }
        headerLines.append(line)
    }

    /// Whether the TLS handshake is done, so libcurl knows (from ALPN) whether the connection multiplexes.
    var hasConnected: Bool {
        var appConnect: curl_off_t = 0
        _ = tether_curl_getinfo_off(handle, CURLINFO_APPCONNECT_TIME_T, &appConnect)
        return appConnect > 0
    }

    /// The response, or why there is none. `duration` is the wall time since the transfer was handed to libcurl, or
    /// libcurl's own total time when that is larger: libcurl's clock does not count the time a transfer waited for a
    /// connection, and an early failure leaves it at zero.
    func result(code: CURLcode, finishedAt: ContinuousClock.Instant) -> Result<HTTPResponse, TransportError> {
        var curlTotal: Double = 0
        _ = tether_curl_getinfo_double(handle, CURLINFO_TOTAL_TIME, &curlTotal)
        let wall = startedAt.map { seconds(finishedAt - $0) } ?? 0
        let total = max(wall, curlTotal.isFinite ? curlTotal : 0)
        if isBodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(
                TransportError(
                    message: "response body larger than \(maxBodyBytes) bytes (raise --max-body to accept it)",
                    url: request.url, code: Int(CURLE_FILESIZE_EXCEEDED.rawValue), duration: total))
        }
        if isOutOfMemory {
            return .failure(
                TransportError(
                    message: "out of memory for a response body over \(body.count) bytes (lower --max-body or --jobs)",
                    url: request.url, code: Int(CURLE_WRITE_ERROR.rawValue), duration: total))
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            var text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            if code == CURLE_OPERATION_TIMEDOUT { text = timeoutMessage(libcurlText: text) }
            return .failure(TransportError(message: text, url: request.url, code: Int(code.rawValue), duration: total))
        }
        var status = 0
        _ = tether_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>?
        _ = tether_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        // Usually the URL asked for: then the request's string is shared, not copied (a result keeps it, and a
        // copy per result was 64 bytes of 100,000 results).
        let url =
            effective.map { effective in
                request.url.withCString { strcmp($0, effective) == 0 } ? request.url : String(cString: effective)
            } ?? request.url
        return .success(
            HTTPResponse(
                statusCode: status, headerLines: headerLines, body: body.takeData(), url: url, duration: total,
                httpVersion: httpVersion, reason: reason))
    }
}

extension Transfer {
    /// libcurl's text for a timeout, with the option that raises the limit that was hit.
    ///
    /// A request never sent (no pre-transfer time) was still connecting: the connect limit applies when it is the
    /// tighter one. Otherwise the whole-request limit ran out.
    fileprivate func timeoutMessage(libcurlText: String) -> String {
        var pretransfer: curl_off_t = 0
        _ = tether_curl_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        let isConnecting = pretransfer == 0
        let connectIsTighter =
            connectTimeoutMilliseconds > 0
            && (timeoutMilliseconds == 0 || connectTimeoutMilliseconds < timeoutMilliseconds)
        let option = isConnecting && connectIsTighter ? "--connect-timeout" : "--timeout"
        return "\(libcurlText) (raise \(option) to wait longer)"
    }
}

/// A clock's duration in seconds.
func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
}

private func transferWriteBody(
    _ pointer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let pointer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: pointer, count: size * count)
    return transfer.appendBody(bytes) ? size * count : 0
}

private func transferWriteHeader(
    _ pointer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let pointer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    transfer.appendHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
    return size * count
}
