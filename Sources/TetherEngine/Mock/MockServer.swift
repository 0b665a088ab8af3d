internal import CMicroHTTPD
import Dispatch

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

/// A request as the mock server received it.
public struct MockRequest: Sendable, Equatable {
    /// The method as sent (`GET`, `POST`, …).
    public var method: String
    /// The path as sent, still percent-encoded (`/users/a%20b`), without the query; the request target is split as
    /// a HAR file's URLs are (`HAREntry.target(of:)`): an absolute-form target gives its path, a fragment is dropped.
    public var path: String
    /// The query as sent, still percent-encoded, without the `?` or a fragment; empty when there is none.
    public var query: String
    /// The request headers in the order MHD parsed them, name case as sent.
    public var headers: [HTTPHeader]
    /// The request body (upload data of any method; empty when there is none).
    public var body: Data

    /// Creates a request value (the server makes these; tests of handlers may too).
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The percent-encoded path.
    ///   - query: The percent-encoded query without `?`.
    ///   - headers: The request headers.
    ///   - body: The request body.
    public init(method: String, path: String, query: String = "", headers: [HTTPHeader] = [], body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    /// - Parameter name: The header name.
    /// - Returns: Its value, or `nil` when the request has no such header.
    public func header(_ name: String) -> String? {
        headers.first { $0.isNamed(name) }?.value
    }
}

/// What the mock server answers to one request.
public struct MockResponse: Sendable, Equatable {
    /// The status code (100…999; anything else is answered as 500 naming the bad value).
    public var status: Int
    /// Headers to send. `Content-Length` and `Transfer-Encoding` are left out: MHD frames the body itself; so are
    /// headers that cannot be sent (names with `:` or spaces, values with line breaks).
    /// `Connection: close` closes the connection after the response.
    public var headers: [HTTPHeader]
    /// The body, sent as is.
    public var body: Data
    /// Seconds to wait before answering (or closing); the connection is suspended meanwhile, so the server goes on
    /// serving other requests. 0: at once.
    public var delay: TimeInterval
    /// What the connection gets once `delay` has passed.
    public var ending: Ending

    /// What a connection gets: the response, or no response at all.
    public enum Ending: Sendable, Equatable {
        /// Send the status, headers and body.
        case respond
        /// Close the connection without a response (a client sees the connection lost).
        case close
        /// Send nothing and keep the connection open until the client closes it or `seconds` have passed, then close
        /// it (a client with a shorter timeout sees a timeout).
        case hold(seconds: TimeInterval)
    }

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The headers to send.
    ///   - body: The body bytes.
    ///   - delay: Seconds to wait before answering.
    ///   - ending: A response, or a closed or held connection.
    public init(
        status: Int = 200, headers: [HTTPHeader] = [], body: Data = Data(), delay: TimeInterval = 0,
        ending: Ending = .respond
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.ending = ending
    }

    /// A response with a JSON body and `Content-Type: application/json`.
    /// - Parameters:
    ///   - text: The JSON text, sent as UTF-8.
    ///   - status: The status code.
    /// - Returns: The response.
    public static func json(_ text: String, status: Int = 200) -> MockResponse {
        MockResponse(status: status, headers: [HTTPHeader("Content-Type", "application/json")], body: Data(text.utf8))
    }
}

/// One request and what became of it, handed to `MockServer`'s `onFinish` when it is over.
public struct MockExchange: Sendable, Equatable {
    /// The request received.
    public var request: MockRequest
    /// What the handler answered.
    public var response: MockResponse
    /// What the connection got.
    public var outcome: Outcome
    /// Seconds from the end of the request to the answer (delays and holds included).
    public var seconds: TimeInterval

    /// What the connection got.
    public enum Outcome: Sendable, Equatable {
        /// The response was queued.
        case answered
        /// The connection was closed without a response (`MockResponse.Ending.close`, or a hold that ran out).
        case closed
        /// A held connection was closed by the client.
        case clientLeft
        /// The server stopped while the request waited.
        case stopped
    }

    /// - Parameters: as the properties.
    public init(request: MockRequest, response: MockResponse, outcome: Outcome, seconds: TimeInterval) {
        self.request = request
        self.response = response
        self.outcome = outcome
        self.seconds = seconds
    }
}

/// Why the mock server could not start.
public enum MockServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The port is outside 0…65535.
    case invalidPort(Int)
    /// The host is not an IPv4 address (`127.0.0.1`, `0.0.0.0`) or `localhost`.
    case invalidHost(String)
    /// MHD would not start a daemon on `host` at `port` (0: a free port); `reason` is MHD's own message.
    case cannotStart(host: String, port: Int, reason: String)
    /// The HAR file to replay cannot be used (`MockServer.replaying(harFile:)`).
    case har(HARError)

    /// The message: lower case, naming the file or port and what to do.
    public var description: String {
        switch self {
        case .har(let error):
            return error.description
        case .invalidPort(let port):
            return "mock server: port \(port) is not in 0…65535; pass 0 to let the system pick a free port"
        case .invalidHost(let host):
            return "mock server: host '\(host)' is not an IPv4 address such as 127.0.0.1 or 0.0.0.0 (or localhost)"
        case .cannotStart(let host, let port, let reason):
            let detail = reason.isEmpty ? "libmicrohttpd gave no reason" : reason.lowercased()
            // EADDRNOTAVAIL: the address is none of this machine's, whatever the port.
            if detail.contains("assign requested address") {
                return "mock server: cannot listen on \(host):\(port): \(detail); --host must be an address of this "
                    + "machine: 127.0.0.1, 0.0.0.0 (every interface) or one of its own"
            }
            return "mock server: cannot listen on \(host):\(port): \(detail); "
                + "pick another port or pass 0 to let the system pick a free one"
        }
    }
}

/// An HTTP/1.1 server on 127.0.0.1 (libmicrohttpd) that answers every request with a Swift handler.
///
/// MHD runs its own threads: an epoll listener with a small worker pool, so keep-alive connections are served in
/// parallel. The handler is called on those threads, one call per request, possibly concurrently.
/// The server listens from `init` until `stop()` or `deinit`. It binds 127.0.0.1 unless told another IPv4 address.
/// A delayed or held answer suspends its connection (`MHD_suspend_connection`) and a timer resumes it, so waiting
/// requests hold no thread.
public final class MockServer {
    /// The port the server listens on (chosen by the system when `init` was given 0).
    public let port: Int
    /// The IPv4 address the server listens on.
    public let host: String
    private var daemon: OpaquePointer?
    private let context: Unmanaged<ServerContext>
    private let log: UnsafeMutablePointer<tether_mhd_log>

    /// Worker threads serving connections (MHD_OPTION_THREAD_POOL_SIZE).
    static let workerThreads: UInt32 = 2
    /// Seconds an idle connection is kept open.
    static let idleTimeout: UInt32 = 60

    /// The URL prefix of the server, `http://HOST:PORT`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Starts a server.
    /// - Parameters:
    ///   - host: The IPv4 address to listen on (`localhost` is 127.0.0.1); 127.0.0.1 by default.
    ///   - port: The port to listen on; 0 (the default) lets the system pick a free one.
    ///   - onFinish: Called once per request when it is over (answered, closed, held and left), on MHD's threads.
    ///   - handler: Answers each request; called on MHD's threads, possibly concurrently.
    /// - Throws: `MockServerError` when the host or port is invalid or the daemon cannot start (e.g. the port is
    ///   taken).
    public init(
        host: String = "127.0.0.1", port: Int = 0, onFinish: (@Sendable (MockExchange) -> Void)? = nil,
        handler: @escaping @Sendable (MockRequest) -> MockResponse
    ) throws(MockServerError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        let host = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = in_addr()
        guard inet_pton(AF_INET, host, &ipv4) == 1 else { throw .invalidHost(host) }
        let context = Unmanaged.passRetained(ServerContext(handler: handler, onFinish: onFinish))
        let log = UnsafeMutablePointer<tether_mhd_log>.allocate(capacity: 1)
        log.initialize(to: tether_mhd_log())

        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)  // BSD sockets carry their length
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = ipv4
        // MHD_USE_AUTO: epoll on Linux, poll (or select) on macOS; libmicrohttpd picks the best the system has.
        // Suspend and resume carry delays and holds (it implies MHD_USE_ITC, which wakes a worker on resume).
        let flags = UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        let daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                tether_mhd_start(
                    flags, UInt16(port), socketAddress,
                    mockAccessHandler, context.toOpaque(),
                    mockRequestCompleted, context.toOpaque(),
                    mockRequestStarted, nil,
                    log, MockServer.workerThreads, MockServer.idleTimeout)
            }
        }
        guard let daemon else {
            let reason = withUnsafeBytes(of: &log.pointee.text) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            context.release()
            log.deallocate()
            throw .cannotStart(
                host: host, port: port, reason: reason.trimmingWhitespaceAndNewlines())
        }
        tether_mhd_log_freeze(log)
        let bound = Int(tether_mhd_bound_port(daemon))
        self.port = bound == 0 ? port : bound
        self.host = host
        self.daemon = daemon
        self.context = context
        self.log = log
    }

    /// Stops listening, closes every connection (waiting ones too) and waits for MHD's threads to end. Calling it
    /// again does nothing.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        // MHD must not stop with suspended connections: resume them all first (each then closes, unanswered).
        context.takeUnretainedValue().waiting.resumeAll()
        MHD_stop_daemon(daemon)
    }

    deinit {
        stop()
        context.release()
        log.deallocate()
    }
}

/// What MHD's callbacks reach through their `cls` pointer: the handler and the finish hook (immutable, so shared
/// by all threads), and the suspended connections.
private final class ServerContext: Sendable {
    let handler: @Sendable (MockRequest) -> MockResponse
    let onFinish: (@Sendable (MockExchange) -> Void)?
    let waiting = WaitingConnections()

    init(handler: @escaping @Sendable (MockRequest) -> MockResponse, onFinish: (@Sendable (MockExchange) -> Void)?) {
        self.handler = handler
        self.onFinish = onFinish
    }
}

/// The connections suspended for a delay or a hold, each resumed exactly once: by its timer, by its client leaving
/// (a hold), or by `stop()`, whichever comes first. After `resumeAll()` nothing new is suspended.
private final class WaitingConnections: @unchecked Sendable {
    private let lock = Lock()
    private var connections: [Int: UInt] = [:]  // id → the MHD_Connection pointer's bits
    private var nextID = 0
    private var isStopped = false
    private let queue = DispatchQueue(label: "tether.mock.timers")

    /// Suspends `connection` and arranges its resumption; `false` when the server is stopping (answer at once).
    func suspend(_ connection: OpaquePointer, state: RequestState) -> Bool {
        let id: Int? = lock.withLock {
            guard !isStopped else { return nil }
            nextID += 1
            connections[nextID] = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            MHD_suspend_connection(connection)
            return nextID
        }
        guard let id else { return false }
        let wait = state.pending?.delay ?? 0
        if case .hold(let seconds) = state.pending?.ending {
            let socket = tether_mhd_connection_fd(connection)
            watch(id: id, socket: socket, until: DispatchTime.now() + max(wait, seconds), state: state)
        } else {
            queue.asyncAfter(deadline: .now() + wait) { self.resume(id) }
        }
        return true
    }

    /// Polls a held connection's socket every 100 ms: the client closing it ends the hold early.
    private func watch(id: Int, socket: Int32, until deadline: DispatchTime, state: RequestState) {
        queue.asyncAfter(deadline: .now() + 0.1) {
            if socket >= 0, Self.hasPeerClosed(socket) {
                state.clientLeft = true
                self.resume(id)
            } else if DispatchTime.now() >= deadline {
                self.resume(id)
            } else {
                self.watch(id: id, socket: socket, until: deadline, state: state)
            }
        }
    }

    /// Whether the peer closed the socket: a non-blocking peek reads end of file (or a hard error).
    private static func hasPeerClosed(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        return false
    }

    private func resume(_ id: Int) {
        lock.withLock {
            guard let bits = connections.removeValue(forKey: id),
                let connection = OpaquePointer(bitPattern: bits)
            else { return }
            MHD_resume_connection(connection)
        }
    }

    /// Resumes every suspended connection and refuses new suspensions: before `MHD_stop_daemon`.
    func resumeAll() {
        lock.withLock {
            isStopped = true
            for bits in connections.values {
                if let connection = OpaquePointer(bitPattern: bits) { MHD_resume_connection(connection) }
            }
            connections.removeAll()
        }
    }

    /// Whether `stop()` has begun.
    var isStopping: Bool { lock.withLock { isStopped } }
}

/// One request in progress: made when MHD reads the request line, released when MHD reports it complete.
/// Only the thread serving its connection touches it (and a hold's watcher, `clientLeft`).
private final class RequestState: @unchecked Sendable {
    /// The request target as sent (path and query, percent-encoded).
    let target: String
    /// Whether the access handler was called once already (that first call only announces the headers).
    var hasHeaders = false
    var body = Data()
    /// The request as handed to the handler, and its answer, while the connection waits (delay or hold).
    var request: MockRequest?
    var pending: MockResponse?
    /// When the handler was called, for `MockExchange.seconds`.
    var answeredAt = DispatchTime.now()
    /// Whether `onFinish` was called for this request.
    var isFinished = false

    var secondsSinceAnswer: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds - answeredAt.uptimeNanoseconds) / 1e9
    }
    /// Set by the hold's watcher (another thread; read only after MHD resumes the connection).
    nonisolated(unsafe) var clientLeft = false

    init(target: String) {
        self.target = target
    }
}

/// Collects the request headers in MHD's order.
private final class HeaderCollector {
    var headers: [HTTPHeader] = []
}

/// MHD_OPTION_URI_LOG_CALLBACK: the raw request target, before MHD decodes it; its result becomes `*req_cls`.
private func mockRequestStarted(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(RequestState(target: target)).toOpaque()
}

/// MHD_OPTION_NOTIFY_COMPLETED: releases the request's state.
private func mockRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ termination: MHD_RequestTerminationCode
) {
    guard let requestContext, let pointer = requestContext.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    requestContext.pointee = nil
    // A waiting request whose connection MHD closed without calling the handler again (the client left, the server
    // stopped) is still reported once.
    if !state.isFinished, let request = state.request, let answer = state.pending, let cls {
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        let outcome: MockExchange.Outcome =
            context.waiting.isStopping ? .stopped : state.clientLeft ? .clientLeft : .closed
        context.onFinish?(
            MockExchange(request: request, response: answer, outcome: outcome, seconds: state.secondsSinceAnswer))
    }
}

private func mockHeaderIterator(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.headers.append(HTTPHeader(String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Headers MHD writes itself from the body it is given.
private let framingHeaders: Set<String> = ["content-length", "transfer-encoding"]

/// Whether a header can go on the wire as is (`HTTPHeader.isValidName`, `HTTPHeader.isSafeValue`) and is not one
/// MHD writes itself. MHD would write anything it is given.
private func isSendable(_ header: HTTPHeader) -> Bool {
    HTTPHeader.isValidName(header.name) && HTTPHeader.isSafeValue(header.value)
        && !framingHeaders.contains(header.name.lowercased())
}

/// The access handler: called once when the headers are in, then once per chunk of upload data, then once with no
/// data left, which is when the Swift handler runs and the response is queued. `*req_cls` is already set by
/// `mockRequestStarted`, so the first call is told apart by `RequestState.hasHeaders`.
private func mockAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let requestContext, let uploadDataSize else { return .NO }
    let state: RequestState
    if let existing = requestContext.pointee {
        state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    } else {
        // Only when MHD skipped the URI callback; keep the decoded path MHD gives.
        state = RequestState(target: url.map { String(cString: $0) } ?? "/")
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
    }
    if !state.hasHeaders {
        // MHD answers `Expect: 100-continue` for us once this returns MHD_YES.
        state.hasHeaders = true
        return .YES
    }
    if uploadDataSize.pointee > 0 {
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                state.body.append($0, count: uploadDataSize.pointee)
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let request: MockRequest
    var answer: MockResponse
    if let waited = state.pending, let waitingRequest = state.request {
        // Called again after a delay or hold: the answer was decided before the connection was suspended.
        request = waitingRequest
        answer = waited
    } else {
        let collector = HeaderCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(
                connection, .HEADER_KIND, mockHeaderIterator, Unmanaged.passUnretained(collector).toOpaque())
        }
        // Split as a recorded URL is, so that a HAR replay compares like with like.
        let (path, query) = HAREntry.target(of: state.target)
        request = MockRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: path, query: query,
            headers: collector.headers, body: state.body)
        answer = context.handler(request)
        state.answeredAt = DispatchTime.now()
        if !(100...999).contains(answer.status), answer.ending == .respond {
            answer = MockResponse(
                status: 500, headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Data("mock handler returned status \(answer.status), which is not in 100…999".utf8))
        }
        let waits: Bool
        if case .hold = answer.ending { waits = true } else { waits = answer.delay > 0 }
        if waits {
            state.request = request
            state.pending = answer
            if context.waiting.suspend(connection, state: state) { return .YES }
            state.pending = nil
        }
    }
    let seconds = state.secondsSinceAnswer
    func finish(_ outcome: MockExchange.Outcome) {
        state.isFinished = true
        context.onFinish?(MockExchange(request: request, response: answer, outcome: outcome, seconds: seconds))
    }
    if state.pending != nil, context.waiting.isStopping {
        finish(.stopped)
        return .NO
    }
    switch answer.ending {
    case .close:
        finish(.closed)
        return .NO  // MHD closes the connection without a response
    case .hold:
        finish(state.clientLeft ? .clientLeft : .closed)
        return .NO
    case .respond:
        break
    }
    let response: OpaquePointer? = answer.body.withUnsafeBytes { bytes in
        tether_mhd_response_copying(bytes.count, bytes.baseAddress)
    }
    guard let response else { return .NO }
    defer { MHD_destroy_response(response) }
    for header in answer.headers where isSendable(header) {
        _ = MHD_add_response_header(response, header.name, header.value)
    }
    let queued = MHD_queue_response(connection, UInt32(answer.status), response)
    finish(.answered)
    return queued
}
