import Foundation

/// What one run of `/usr/bin/curl` produced.
struct CurlResult: Sendable {
    /// curl's exit code (0: transfer done; 7: refused; 28: timeout; 52: empty reply; 56: receive failure).
    var exitCode: Int32
    /// What curl wrote to standard output (`-w` text, or the body when no `-o` was given).
    var output: Data
    /// What curl wrote to standard error.
    var errorText: String
    /// Whether the test killed curl because it ran past the test's own deadline.
    var wasKilled: Bool

    var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// One HTTP exchange seen by curl: status, headers of the final response, body.
struct CurlExchange: Sendable {
    var exitCode: Int32
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data
    var errorText: String

    /// Every value of the headers named `name` (case-insensitive).
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}

enum CurlFailure: Error, CustomStringConvertible {
    case cannotRun(String)

    var description: String {
        switch self {
        case .cannotRun(let reason): return "cannot run /usr/bin/curl: \(reason)"
        }
    }
}

/// Runs curl and waits for it, at most `deadline` seconds (then kills it): a test never hangs on it.
/// Proxies are always bypassed so nothing leaves 127.0.0.1.
func runCurl(_ arguments: [String], deadline: Double = 20) async throws -> CurlResult {
    try await StartedCurl(arguments, deadline: deadline).result()
}

/// curl started at once, on the calling thread, and awaited later: for a test that must know curl is running before
/// it blocks (an `async let` child may not start while the pool's threads are busy, which made a held-connection
/// test wait 20 s for a request that was never sent).
final class StartedCurl: Sendable {
    private let process: ChildProcess
    private let outputURL: URL
    private let errorURL: URL
    private let deadline: Date

    /// Starts curl now; kills it `deadline` seconds from now if it still runs then.
    init(_ arguments: [String], deadline: Double = 20) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tether-curl-\(UUID().uuidString)")
        outputURL = scratch.appendingPathExtension("out")
        errorURL = scratch.appendingPathExtension("err")
        self.deadline = Date().addingTimeInterval(deadline)
        do {
            process = try ChildProcess(
                "/usr/bin/curl", ["--noproxy", "*"] + arguments, stdout: .file(outputURL.path),
                stderr: .file(errorURL.path))
        } catch {
            throw CurlFailure.cannotRun(String(describing: error))
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }

    /// Waits (off the cooperative pool) for curl to end, or kills it at the deadline; what it produced.
    func result() async throws -> CurlResult {
        let (process, deadline) = (process, deadline)
        let ended = try await offPool { process.wait(within: max(0, deadline.timeIntervalSinceNow)) }
        let status = ended?.status ?? process.kill()?.status ?? -1
        return CurlResult(
            exitCode: status,
            output: (try? Data(contentsOf: outputURL)) ?? Data(),
            errorText: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "",
            wasKilled: ended == nil)
    }
}

/// Sends one request with curl (`-X method`) and returns the final response's status, headers and body.
func exchange(
    _ url: String, method: String = "GET", body: Data? = nil, headers: [String] = [], compressed: Bool = false,
    maxTime: Int = 10
) async throws -> CurlExchange {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tether-exchange-\(UUID().uuidString)")
    let headerURL = scratch.appendingPathExtension("headers")
    let bodyURL = scratch.appendingPathExtension("body")
    let uploadURL = scratch.appendingPathExtension("upload")
    defer {
        for file in [headerURL, bodyURL, uploadURL] { try? FileManager.default.removeItem(at: file) }
    }
    var arguments = ["-s", "--max-time", String(maxTime), "-X", method, "-D", headerURL.path, "-o", bodyURL.path]
    arguments += ["-w", "%{http_code}"]
    for header in headers { arguments += ["-H", header] }
    // Asks for gzip and decodes what says it is gzip: a bogus `Content-Encoding` makes curl fail (exit 61).
    if compressed { arguments.append("--compressed") }
    if let body {
        try body.write(to: uploadURL)
        arguments += ["--data-binary", "@\(uploadURL.path)"]
    }
    arguments.append(url)
    let result = try await runCurl(arguments, deadline: Double(maxTime) + 5)
    let headerText = (try? String(contentsOf: headerURL, encoding: .utf8)) ?? ""
    // Keep the last header block only (a `100 Continue` block may come first).
    let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    var parsed: [(name: String, value: String)] = []
    for line in (blocks.last ?? "").components(separatedBy: "\r\n").dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        parsed.append((String(line[..<colon]), value))
    }
    return CurlExchange(
        exitCode: result.exitCode,
        status: Int(result.outputText) ?? 0,
        headers: parsed,
        body: (try? Data(contentsOf: bodyURL)) ?? Data(),
        errorText: result.errorText)
}
