/// `tether mock`: serve the responses recorded in a HAR file on 127.0.0.1 until Ctrl-C or SIGTERM.
public struct MockCommand: Command {
    /// The HAR file to serve.
    public var harPath: String?
    /// The port; 0 lets the system choose a free one.
    public var port = 0
    /// Whether a browser page of another origin may read the answers (`CrossOrigin`); `--no-cors` turns it off.
    public var allowsCrossOrigin = true

    /// Every option at its default.
    public init() {}

    /// `tether mock`.
    public static let configuration = CommandConfiguration(
        names: ["mock"], usage: "tether mock FILE.har [--port N] [--no-cors]",
        summary: "serve recorded responses from a HAR file on 127.0.0.1", help: { help })

    /// `--port`, `--no-cors`, and the HAR file.
    public static let options = OptionTable<MockCommand>(
        command: "mock",
        options: [
            .value(
                "--port", "N", section: .options, help: "the port on 127.0.0.1 to serve on", defaultValue: "a free one"
            ) { command, text throws(InvalidValue) in
                command.port = try ValueReader.wholeNumber(text, in: 0...65535)
            },
            .noCORS(\.allowsCrossOrigin),
            .help,
        ],
        operand: { command, path throws(UsageError) in
            if let first = command.harPath {
                throw UsageError("tether mock serves one HAR file; got '\(first)' and '\(path)'")
            }
            command.harPath = path
        })

    /// The HAR file is required.
    public func validate() throws(UsageError) {
        guard harPath != nil else {
            throw UsageError("tether mock needs a HAR file, e.g. tether mock contracts/github.har")
        }
    }

    /// Serves until stopped: exit 130 or 143, or 2 when the file cannot be served.
    public func run(_ context: CommandContext) -> ExitCode {
        let harPath = harPath ?? ""
        let waiter = StopWaiter(context)
        do {
            let (server, archive) = try MockServer.replaying(
                harFile: harPath, port: port, allowsCrossOrigin: allowsCrossOrigin)
            // What `verify --mock` says of the file, and only the responses that can be replayed counted.
            for note in archive.redactedNotes { context.write("note: \(note)\n") }
            let served = archive.entries.filter(\.isReplayable).count
            let count = served == 1 ? "1 recorded response" : "\(served) recorded responses"
            context.write("serving \(count) from \(harPath) on \(server.baseURL) (Ctrl-C stops)\n")
            return waiter.serveUntilStopped(server, then: "mock server stopped", context: context)
        } catch {
            context.error("\(error)")
            return .usage
        }
    }

    /// `tether mock --help`.
    static var help: String {
        """
        USAGE
          \(configuration.usage)

        Serves the responses recorded in FILE.har on 127.0.0.1 (port N, default a free one) until interrupted.
        Requests match on method, path and query; anything unrecorded gets 404 with a JSON body naming it. A web page
        of another origin may read every answer (CORS headers, preflights answered 204; --no-cors turns them off).

        \(options.helpSections())
        """
    }
}
