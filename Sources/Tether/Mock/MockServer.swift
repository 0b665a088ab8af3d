internal import CMicroHTTPD
import Foundation

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

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The headers to send.
    ///   - body: The body bytes.
    public init(status: Int = 200, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
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

/// Why the mock server could not start.
public enum MockServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The port is outside 0…65535.
    case invalidPort(Int)
    /// MHD would not start a daemon on 127.0.0.1 at `port` (0: a free port); `reason` is MHD's own message.
    case cannotStart(port: Int, reason: String)
    /// The HAR file to replay cannot be used (`MockServer.replaying(harFile:)`).
    case har(HARError)

    /// The message: lower case, naming the file or port and what to do.
    public var description: String {
        switch self {
        case .har(let error):
            return error.description
        case .invalidPort(let port):
            return "mock server: port \(port) is not in 0…65535; pass 0 to let the system pick a free port"
        case .cannotStart(let port, let reason):
            let detail = reason.isEmpty ? "libmicrohttpd gave no reason" : reason.lowercased()
            return "mock server: cannot listen on 127.0.0.1:\(port): \(detail); "
                + "pick another port or pass 0 to let the system pick a free one"
        }
    }
}

/// An HTTP/1.1 server on 127.0.0.1 (libmicrohttpd) that answers every request with a Swift handler.
///
/// MHD runs its own threads: an epoll listener with a small worker pool, so keep-alive connections are served in
/// parallel. The handler is called on those threads, one call per request, possibly concurrently.
/// The server listens from `init` until `stop()` or `deinit`. It never binds anything but 127.0.0.1.
public final class MockServer {
    /// The port the server listens on (chosen by the system when `init` was given 0).
    public let port: Int
    private var daemon: OpaquePointer?
    private let context: Unmanaged<ServerContext>
    private let log: UnsafeMutablePointer<tether_mhd_log>

    /// Worker threads serving connections (MHD_OPTION_THREAD_POOL_SIZE).
    static let workerThreads: UInt32 = 2
    /// Seconds an idle connection is kept open.
    static let idleTimeout: UInt32 = 60

    /// The URL prefix of the server, `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on 127.0.0.1.
    /// - Parameters:
    ///   - port: The port to listen on; 0 (the default) lets the system pick a free one.
    ///   - handler: Answers each request; called on MHD's threads, possibly concurrently.
    /// - Throws: `MockServerError` when the port is invalid or the daemon cannot start (e.g. the port is taken).
    public init(port: Int = 0, handler: @escaping @Sendable (MockRequest) -> MockResponse) throws(MockServerError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        let context = Unmanaged.passRetained(ServerContext(handler: handler))
        let log = UnsafeMutablePointer<tether_mhd_log>.allocate(capacity: 1)
        log.initialize(to: tether_mhd_log())

        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)  // BSD sockets carry their length
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: in_addr_t(UInt32(0x7f00_0001).bigEndian))
        // MHD_USE_AUTO: epoll on Linux, kqueue/poll on macOS; libmicrohttpd picks the best the system has.
        let flags = UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue)
        let daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                tether_mhd_start(
                    flags, UInt16(port), socketAddress,
                    mockAccessHandler, context.toOpaque(),
                    mockRequestCompleted, nil,
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
            throw .cannotStart(port: port, reason: reason.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        tether_mhd_log_freeze(log)
        let bound = Int(tether_mhd_bound_port(daemon))
        self.port = bound == 0 ? port : bound
        self.daemon = daemon
        self.context = context
        self.log = log
    }

    /// Stops listening, closes every connection and waits for MHD's threads to end. Calling it again does nothing.
    public func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
    }

    deinit {
        stop()
        context.release()
        log.deallocate()
    }
}

/// What MHD's callbacks reach through their `cls` pointer: the handler (immutable, so shared by all threads).
private final class ServerContext: Sendable {
    let handler: @Sendable (MockRequest) -> MockResponse

    init(handler: @escaping @Sendable (MockRequest) -> MockResponse) {
        self.handler = handler
    }
}

/// One request in progress: made when MHD reads the request line, released when MHD reports it complete.
/// Only the thread serving its connection touches it.
private final class RequestState {
    /// The request target as sent (path and query, percent-encoded).
    let target: String
    /// Whether the access handler was called once already (that first call only announces the headers).
    var hasHeaders = false
    var body = Data()

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
    guard let requestContext, let state = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestContext.pointee = nil
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

    let collector = HeaderCollector()
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, mockHeaderIterator, Unmanaged.passUnretained(collector).toOpaque())
    }
    // Split as a recorded URL is, so that a HAR replay compares like with like.
    let (path, query) = HAREntry.target(of: state.target)
    let request = MockRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: path, query: query, headers: collector.headers,
        body: state.body)

    var answer = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().handler(request)
    if !(100...999).contains(answer.status) {
        answer = MockResponse(
            status: 500, headers: [HTTPHeader("Content-Type", "text/plain")],
            body: Data("mock handler returned status \(answer.status), which is not in 100…999".utf8))
    }
    let response: OpaquePointer? = answer.body.withUnsafeBytes { bytes in
        tether_mhd_response_copying(bytes.count, bytes.baseAddress)
    }
    guard let response else { return .NO }
    defer { MHD_destroy_response(response) }
    for header in answer.headers where isSendable(header) {
        _ = MHD_add_response_header(response, header.name, header.value)
    }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}
