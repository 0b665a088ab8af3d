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

/// Set from the deadline timer and read after curl ended.
private final class KillFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var killed = false
    private var launch: String?

    var wasKilled: Bool {
        get { lock.withLock { killed } }
        set { lock.withLock { killed = newValue } }
    }

    var launchError: String? {
        get { lock.withLock { launch } }
        set { lock.withLock { launch = newValue } }
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
final class StartedCurl: @unchecked Sendable {
    private let process = Process()
    private let outputURL: URL
    private let errorURL: URL
    private let outputHandle: FileHandle
    private let errorHandle: FileHandle
    private let killed = KillFlag()
    private let ended = DispatchSemaphore(value: 0)

    /// Starts curl now; kills it after `deadline` seconds.
    init(_ arguments: [String], deadline: Double = 20) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tether-curl-\(UUID().uuidString)")
        outputURL = scratch.appendingPathExtension("out")
        errorURL = scratch.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        outputHandle = try FileHandle(forWritingTo: outputURL)
        errorHandle = try FileHandle(forWritingTo: errorURL)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--noproxy", "*"] + arguments
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        let ended = ended
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            throw CurlFailure.cannotRun(String(describing: error))
        }
        let process = process
        let killed = killed
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
            if process.isRunning {
                killed.wasKilled = true
                process.terminate()
            }
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }

    /// Waits (off the cooperative pool) for curl to end; what it produced.
    func result() async throws -> CurlResult {
        let ended = ended
        try await offPool { ended.wait() }
        process.waitUntilExit()
        try? outputHandle.close()
        try? errorHandle.close()
        return CurlResult(
            exitCode: process.terminationStatus,
            output: (try? Data(contentsOf: outputURL)) ?? Data(),
            errorText: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "",
            wasKilled: killed.wasKilled)
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
