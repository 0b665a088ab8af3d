import Foundation

/// A server on 127.0.0.1 that a Python script runs (Python's own http.server): the script listens on a port the
/// system picks and prints it as its first line. `stop()` (also run by `deinit`) kills the process and reaps it, within
/// a deadline (`ChildProcess`: never `Process.waitUntilExit`, which once waited for ever on a killed python3).
class PythonServer: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case notStarted(name: String, String)

        var description: String {
            switch self {
            case .notStarted(let name, let reason): return "\(name): did not start: \(reason)"
            }
        }
    }

    /// The python3 the tests run (servers, and the HAR schema check, which needs jsonschema): `TETHER_TEST_PYTHON`
    /// when set (the macOS CI job's virtual environment, with jsonschema installed); else Debian's /usr/bin/python3 on
    /// Linux (scripts/setup installs python3-jsonschema for it); on macOS the first python3 on PATH (/usr/bin/python3
    /// there is Xcode's, with no jsonschema), else /usr/bin/python3.
    static let python: String = {
        if let chosen = ProcessInfo.processInfo.environment["TETHER_TEST_PYTHON"], !chosen.isEmpty { return chosen }
        #if canImport(Darwin)
            return executableOnPath("python3") ?? "/usr/bin/python3"
        #else
            return "/usr/bin/python3"
        #endif
    }()

    let port: Int
    private let process: ChildProcess

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The server's process id (its process group's too).
    var processIdentifier: pid_t { process.processIdentifier }

    /// - Parameters:
    ///   - script: Python that serves on 127.0.0.1, port 0, and prints the port on its first line.
    ///   - name: For messages: `slow test server`.
    ///   - arguments: What the script reads from `sys.argv[1:]`.
    init(script: String, name: String, arguments: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw Failure.notStarted(name: name, "\(Self.python) is missing (install python3)")
        }
        process = try ChildProcess(Self.python, ["-c", script] + arguments, stdout: .pipe)
        // The first line is the port; an early exit gives end of file (an empty line).
        let line = process.readLine(from: 1, within: 30)
        guard let line, let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.kill()
            throw Failure.notStarted(
                name: name, line.map { "expected a port on its first line, got '\($0)'" } ?? "no port within 30 s")
        }
        self.port = port
    }

    /// Kills the server and reaps it. Idempotent.
    func stop() {
        process.kill()
    }

    deinit { stop() }
}

/// A plain-HTTP/1.1 server on 127.0.0.1 (Python's threading server, keep-alive) with one slow endpoint:
/// `GET /delay/SECONDS/...` sleeps that long before the status line; every other path answers `{"ok": true}` at once.
/// One thread per connection, so a slow request never holds back another; a test's slow target is this server's own
/// doing, never the client's.
final class SlowServer: PythonServer, @unchecked Sendable {
    /// The fast endpoints' body.
    static let fastBody = #"{"ok": true}"#

    private static let script = """
        import http.server, sys, time
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                parts = self.path.split("/")
                if len(parts) > 2 and parts[1] == "delay":
                    time.sleep(float(parts[2]))
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128
        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    init() throws {
        try super.init(script: Self.script, name: "slow test server")
    }
}
