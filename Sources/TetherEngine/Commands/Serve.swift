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

/// `tether serve`: serve the stubs (or a HAR file) as a mock service until Ctrl-C or SIGTERM.
public struct ServeCommand: Command {
    /// Manifests or folders of them (default: contracts).
    public var paths: [String] = []
    /// The port; 0 lets the system choose a free one.
    public var port = 0
    /// The IPv4 address to listen on.
    public var host = "127.0.0.1"
    /// A HAR file to serve instead of the stubs.
    public var harPath: String?
    /// Whether a browser page of another origin may read the answers (`CrossOrigin`); `--no-cors` turns it off.
    public var allowsCrossOrigin = true

    /// Every option at its default.
    public init() {}

    /// `tether serve`.
    public static let configuration = CommandConfiguration(
        names: ["serve"], usage: "tether serve [PATH ...] [--port N] [--host ADDRESS] [--har FILE.har] [--no-cors]",
        summary: "serve the stubs (or a HAR file) as a mock service on 127.0.0.1", help: { help })

    /// `--port`, `--host`, `--har`, `--no-cors`, and the manifests.
    public static let options = OptionTable<ServeCommand>(
        command: "serve",
        options: [
            .value("--port", "N", section: .options, help: "the port to serve on", defaultValue: "a free one") {
                command, text throws(InvalidValue) in
                command.port = try ValueReader.wholeNumber(text, in: 0...65535)
            },
            .value(
                "--host", "ADDRESS", section: .options,
                help: "the IPv4 address to listen on (0.0.0.0: every interface; localhost: 127.0.0.1)",
                defaultValue: "127.0.0.1"
            ) { command, text throws(InvalidValue) in
                let address = text == "localhost" ? "127.0.0.1" : text
                var parsed = in_addr()
                guard inet_pton(AF_INET, address, &parsed) == 1 else {
                    throw InvalidValue("is not an IPv4 address such as 127.0.0.1 or 0.0.0.0 (or localhost)")
                }
                command.host = address
            },
            .value(
                "--har", "FILE.har", section: .options,
                help: "serve the responses recorded in FILE.har (the replay of verify --mock) instead of the stubs"
            ) { $0.harPath = $1 },
            .noCORS(\.allowsCrossOrigin),
            .help,
        ],
        operand: { $0.paths.append($1) })

    /// The stubs of `PATH` or a HAR file, not both; `PATH` defaults to `contracts`.
    public mutating func validate() throws(UsageError) {
        if harPath != nil, !paths.isEmpty {
            throw UsageError(
                "tether serve serves the stubs of PATH or a HAR file (--har), not both; drop '\(paths[0])' or --har")
        }
        if paths.isEmpty { paths = ["contracts"] }
    }

    /// Serves until stopped: exit 130 or 143, or 2 when nothing can be served. The URL is the first line on standard
    /// output, then one line per request.
    public func run(_ context: CommandContext) -> ExitCode {
        let waiter = StopWaiter(context)
        let server: MockServer
        do {
            if let harPath {
                let archive: HARArchive
                (server, archive) = try MockServer.replaying(
                    harFile: harPath, host: host, port: port, allowsCrossOrigin: allowsCrossOrigin,
                    onLine: { context.write($0 + "\n") })
                context.write("\(server.baseURL)\n")
                for note in archive.redactedNotes { context.writeError("note: \(note)\n") }
            } else {
                let routes: StubRoutes
                do {
                    routes = try StubRoutes.load(paths: paths, environment: context.environment)
                } catch {
                    context.writeError(error.description + "\n")
                    context.error("\(error.countText); nothing is served")
                    return .usage
                }
                let (answer, line) = CrossOrigin.serve(
                    { routes.response(for: $0) }, lines: { routes.line(for: $0) }, isOn: allowsCrossOrigin)
                server = try MockServer(
                    host: host, port: port, onFinish: { context.write(line($0) + "\n") }, handler: answer)
                context.write("\(server.baseURL)\n")
                for note in routes.notes { context.writeError("note: \(note)\n") }
                let count = routes.routes.count == 1 ? "1 stub" : "\(routes.routes.count) stubs"
                context.writeError("tether: serving \(count) on \(server.baseURL) (Ctrl-C stops)\n")
            }
        } catch {
            context.error("\(error)")
            return .usage
        }
        return waiter.serveUntilStopped(server, then: "stopped serving", context: context)
    }

    /// `tether serve --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Serves each target's stub at its method and path (and query, when the contract has one): the status, the
        response headers and the body (a sample file byte for byte). A stub without Content-Type gets
        application/json (JSON), text/plain; charset=utf-8 (text) or application/octet-stream (other bytes).
        "stubBehavior": {"delayed": SECONDS} delays the answer; a networkError stub closes the connection, the
        timeout code -1001 holds it unanswered until the client gives up (at most 60 s). Unknown routes get 404
        naming the closest routes, another method on a known path 405. A web page of another origin (a development
        server on localhost:3000) may read every answer: a request with Origin gets the CORS headers that allow it,
        and a preflight is answered 204 (--no-cors turns both off). The URL is the first line on stdout, then one
        line per request. Ctrl-C or SIGTERM stops it (exit 130 or 143).

        \(options.helpSections())
        """
    }
}
