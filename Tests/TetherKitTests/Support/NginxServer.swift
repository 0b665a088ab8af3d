import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// nginx on 127.0.0.1, as plain HTTP/1.1, TLS with HTTP/1.1 only, or TLS with HTTP/2, with a CA and a server
/// certificate the helper makes with openssl. `GET /delay/...` is proxied to a `SlowServer`; every other path
/// answers `{"ok": true}` from nginx itself.
///
/// Everything lives in a temporary folder (configuration, certificates, logs, pid and temp paths). nginx runs as one
/// foreground process (`master_process off`, `daemon off`), a child of the test, so killing it leaves nothing behind.
/// The access log has one line per request: nginx's connection number, the protocol and the URI, so a test sees which
/// requests shared a connection.
///
/// The test fails (the initialiser throws) when nginx or OpenSSL 3 is missing: `scripts/setup` installs them (the macOS
/// CI job: Homebrew's nginx and openssl@3).
final class NginxServer: @unchecked Sendable {
    enum Mode: String, Sendable, CaseIterable, CustomStringConvertible {
        /// `http://`, HTTP/1.1.
        case plain
        /// `https://`, ALPN offers HTTP/1.1 only.
        case tlsHTTP1
        /// `https://`, ALPN offers h2 (and HTTP/1.1).
        case tlsHTTP2

        var isTLS: Bool { self != .plain }
        var description: String { rawValue }
    }

    enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case notStarted(String)

        var description: String {
            switch self {
            case .missing(let tool): return "nginx test server: \(tool) is missing: run scripts/setup (it installs it)"
            case .notStarted(let reason): return "nginx test server: did not start: \(reason)"
            }
        }
    }

    /// One line of the access log.
    struct LoggedRequest: Equatable {
        /// nginx's serial number of the connection the request came on.
        var connection: Int
        /// `HTTP/1.1` or `HTTP/2.0`.
        var protocolName: String
        var uri: String
    }

    /// Debian's nginx-light, else Homebrew's (Apple silicon, then Intel), as the macOS CI job installs it.
    static let nginx = firstExecutable(["/usr/sbin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx"])

    private static func firstExecutable(_ candidates: [String]) -> String {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    let mode: Mode
    let folder: String
    private let openssl: String
    private(set) var port = 0
    private var process: ChildProcess?
    private let lock = NSLock()

    var baseURL: String { "\(mode.isTLS ? "https" : "http")://127.0.0.1:\(port)" }
    /// The PEM certificate of the CA that signed the server's certificate (for `--cacert`).
    var caCertificate: String { folder + "/ca.pem" }

    /// - Parameters:
    ///   - mode: What the server speaks.
    ///   - upstream: Where `/delay/...` is proxied.
    init(mode: Mode, upstream: SlowServer) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.nginx) else { throw Failure.missing(Self.nginx) }
        // OpenSSL 3: Homebrew's openssl@3 before macOS's LibreSSL (see `OpenSSL`).
        openssl = try OpenSSL.path.get()
        self.mode = mode
        folder = NSTemporaryDirectory() + "tether-nginx-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/temp", withIntermediateDirectories: true)
        do {
            if mode.isTLS { try makeCertificates() }
            try start(upstreamPort: upstream.port)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// The requests nginx logged so far, in order.
    var loggedRequests: [LoggedRequest] {
        let text = (try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let connection = Int(fields[0]) else { return nil }
            return LoggedRequest(connection: connection, protocolName: String(fields[1]), uri: String(fields[2]))
        }
    }

    /// Kills nginx and reaps it. Idempotent.
    func stop() {
        let running = lock.withLock {
            defer { process = nil }
            return process
        }
        // SIGKILL is safe: one process, no workers to orphan.
        running?.kill()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func makeCertificates() throws {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            openssl,
            ["req", "-x509"] + ec + [
                "-days", "1", "-subj", "/CN=Tether Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", folder + "/ca.key", "-out",
                folder + "/ca.pem",
            ])
        try run(
            openssl,
            ["req"] + ec + [
                "-subj", "/CN=127.0.0.1", "-keyout", folder + "/server.key", "-out", folder + "/server.csr",
            ])
        try Data("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/server.ext"))
        try run(
            openssl,
            [
                "x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key",
                "-CAcreateserial", "-days", "1", "-extfile", folder + "/server.ext", "-out", folder + "/server.pem",
            ])
    }

    private func configuration(port: Int, upstreamPort: Int) -> String {
        let listen: String
        switch mode {
        case .plain: listen = "listen 127.0.0.1:\(port);"
        case .tlsHTTP1: listen = "listen 127.0.0.1:\(port) ssl;"
        case .tlsHTTP2: listen = "listen 127.0.0.1:\(port) ssl http2;"
        }
        let tls =
            mode.isTLS
            ? "ssl_certificate \(folder)/server.pem; ssl_certificate_key \(folder)/server.key; "
                + "ssl_protocols TLSv1.2 TLSv1.3;" : ""
        let temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(folder)/temp;" }
        return """
            master_process off;
            daemon off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 1024; }
            http {
                log_format connections '$connection $server_protocol $request_uri';
                access_log \(folder)/access.log connections;
                \(temp.joined(separator: " "))
                default_type application/json;
                keepalive_requests 100000;
                server {
                    \(listen)
                    \(tls)
                    location /delay/ {
                        proxy_pass http://127.0.0.1:\(upstreamPort);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_read_timeout 120s;
                    }
                    location / { return 200 '\(SlowServer.fastBody)'; }
                }
            }
            """
    }

    /// Starts nginx on a free port; tries another port when the one picked was taken in between.
    private func start(upstreamPort: Int) throws {
        var lastError = ""
        for _ in 0..<5 {
            let port = try freePort()
            let conf = folder + "/nginx.conf"
            try Data(configuration(port: port, upstreamPort: upstreamPort).utf8).write(to: URL(fileURLWithPath: conf))
            let process = try ChildProcess(Self.nginx, ["-p", folder, "-c", conf, "-e", folder + "/error.log"])
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline && !accepts(port: port) { usleep(10_000) }
            if process.isRunning && accepts(port: port) {
                lock.withLock {
                    self.port = port
                    self.process = process
                }
                return
            }
            process.kill()
            lastError = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "no error log"
            guard lastError.contains("Address already in use") else { break }
        }
        throw Failure.notStarted(lastError)
    }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let run = try ChildProcess.run(tool, arguments, deadline: 60)
        guard run.status == 0 else {
            throw Failure.notStarted(
                "\(tool) \(arguments.joined(separator: " ")) exited \(run.status): \(run.stderrText)")
        }
    }
}

/// A TCP port on 127.0.0.1 that nobody listens on right now (the system's pick, released at once).
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, streamSocketType, 0)
    guard descriptor >= 0 else { throw NginxServer.Failure.notStarted("socket failed") }
    defer { close(descriptor) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else { throw NginxServer.Failure.notStarted("no free port on 127.0.0.1") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func accepts(port: Int) -> Bool {
    let descriptor = socket(AF_INET, streamSocketType, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr = in_addr(s_addr: in_addr_t(UInt32(0x7f00_0001).bigEndian))
    return address
}
