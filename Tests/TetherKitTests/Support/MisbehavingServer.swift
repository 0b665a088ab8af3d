import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP server on 127.0.0.1 that reads each request and then misbehaves, for testing how a client copes.
///
/// Plain POSIX sockets on a thread of its own; the system picks a free port. Every wait is bounded: the accept loop
/// polls with a short timeout and checks for `stop()`, reading a request gives up after two seconds, and `stop()`
/// waits at most five seconds for the thread. `stop()` (also run by `deinit`) closes every socket it still holds.
final class MisbehavingServer: Sendable {
    enum Mode: Sendable, Equatable {
        /// Accepts, reads the request, never answers; the connection stays open until `stop()`.
        case hang
        /// Accepts, reads the request, then closes with `SO_LINGER {1, 0}`: the client sees a connection reset (RST).
        case reset
        /// Accepts, reads the request, then closes normally without a byte of answer (the client sees EOF).
        case closeWithoutAnswer
    }

    enum Failure: Error, CustomStringConvertible {
        case socket(String, Int32)

        var description: String {
            switch self {
            case .socket(let call, let code):
                return "misbehaving server: \(call) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    private struct State {
        var isStopping = false
        var isStopped = false
        /// Connections held open (`.hang`).
        var held: [Int32] = []
        /// Requests read so far (the bytes up to the end of the headers), in arrival order.
        var requests: [String] = []
    }

    let mode: Mode
    let port: Int
    private let listener: Int32
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The requests read so far (request line and headers).
    var requests: [String] { state.withLock { $0.requests } }

    init(mode: Mode) throws {
        self.mode = mode
        let listener = socket(AF_INET, streamSocketType, 0)
        guard listener >= 0 else { throw Failure.socket("socket", errno) }
        var yes: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: in_addr_t(UInt32(0x7f00_0001).bigEndian))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            let code = errno
            close(listener)
            throw Failure.socket("bind/listen", code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(listener)
            throw Failure.socket("getsockname", code)
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            self.serve()
            self.finished.signal()
        }
        thread.name = "MisbehavingServer"
        thread.start()
    }

    /// Stops accepting, waits (at most five seconds) for the thread, closes every socket. Idempotent.
    func stop() {
        let first = state.withLock { state -> Bool in
            if state.isStopping { return false }
            state.isStopping = true
            return true
        }
        guard first else { return }
        let ended = finished.wait(timeout: .now() + 5) == .success
        let held = state.withLock { state -> [Int32] in
            state.isStopped = true
            defer { state.held = [] }
            return state.held
        }
        for descriptor in held { close(descriptor) }
        // If the thread did not end (it always should), leave the listener to it rather than close under it.
        if ended { close(listener) }
    }

    deinit {
        stop()
    }

    private var isStopping: Bool { state.withLock { $0.isStopping } }

    private func serve() {
        while !isStopping {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            guard ready > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let request = readRequest(client)
            state.withLock { $0.requests.append(request) }
            switch mode {
            case .hang:
                let kept = state.withLock { state -> Bool in
                    guard !state.isStopped else { return false }
                    state.held.append(client)
                    return true
                }
                if !kept { close(client) }
            case .reset:
                var option = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(client, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                close(client)
            case .closeWithoutAnswer:
                _ = shutdown(client, Int32(SHUT_WR))
                close(client)
            }
        }
    }

    /// Reads until the end of the headers, end of stream, 64 KB, or two seconds.
    private func readRequest(_ client: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(2)
        while received.count < 65536, Date() < deadline, !isStopping {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
            if Data(received).range(of: Data([13, 10, 13, 10])) != nil { break }
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// `SOCK_STREAM` as `socket` takes it: an enum case on Glibc, a plain `Int32` on Darwin.
#if canImport(Glibc)
    let streamSocketType = Int32(SOCK_STREAM.rawValue)
#else
    let streamSocketType = SOCK_STREAM
#endif
