/// `tether` itself: reads the command's name, parses its arguments, runs it, and answers `--help`, `help NAME` and
/// `--version`. The executable gives it the list of commands and exits with what `run` returns.
public struct CommandLineTool {
    /// The commands, in the order `tether --help` lists them.
    public var commands: [any Command.Type]

    /// - Parameter commands: The commands, in the order `tether --help` lists them.
    public init(commands: [any Command.Type]) {
        self.commands = commands
    }

    /// The `tether` executable's commands: each is one file in Commands/, and a new one is a line here.
    public static var tether: CommandLineTool {
        CommandLineTool(commands: [
            VerifyCommand.self, RecordCommand.self, UpdateCommand.self, LearnCommand.self, MockCommand.self,
            ServeCommand.self, ImportCommand.self, MergeReportsCommand.self,
        ])
    }

    /// Runs the command line.
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - context: The environment, the standard streams, the stop signals.
    /// - Returns: The exit code: the command's, 0 for help and version, 2 for a command line that cannot be run.
    public func run(_ arguments: [String], context: CommandContext) -> ExitCode {
        var rest = arguments[...]
        guard let first = rest.popFirst() else {
            context.write(mainHelp + "\n")
            return .success
        }
        do throws(UsageError) {
            if Self.versionNames.contains(first) {
                context.write("tether \(tetherVersion)\n")
                return .success
            }
            if Self.helpNames.contains(first) {
                context.write(try help(topic: rest) + "\n")
                return .success
            }
            guard let command = command(named: first) else {
                let hint = didYouMean(first, in: suggestions)
                throw UsageError("unknown command '\(first)'\(hint); run 'tether --help'")
            }
            return try Self.run(command, rest, context: context)
        } catch {
            context.error(error.description)
            return .usage
        }
    }

    /// Starts libcurl's set-up on the other core when `arguments` name a command that sends requests, the same one
    /// `run` starts and waits for (once per process): the executable calls this first, so that the set-up overlaps
    /// everything a run does before its first request, the environment's reading included.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Returns: The set-up, or `nil` for a command that sends nothing.
    @discardableResult
    public func startUp(for arguments: [String]) -> TransportStartUp? {
        guard let first = arguments.first, let command = command(named: first) else { return nil }
        return Self.startUp(for: command)
    }

    /// libcurl's set-up for a command that sends requests (`Command.sendsRequests`), `nil` for any other: the one
    /// place that decides, for the executable's early start and for `run`.
    private static func startUp(for command: any Command.Type) -> TransportStartUp? {
        command.sendsRequests ? CurlTransport().startUp() : nil
    }

    private static func run<C: Command>(_ type: C.Type, _ arguments: ArraySlice<String>, context: CommandContext)
        throws(UsageError) -> ExitCode
    {
        // libcurl's set-up on the other core while the arguments and the manifests are read: a run of one contract
        // is mostly start-up. Waited for before the command returns, whatever it returns.
        let startUp = startUp(for: type)
        defer { startUp?.wait() }
        guard let command = try C.parse(arguments) else {
            context.write(C.configuration.help() + "\n")
            return .success
        }
        return command.run(context)
    }

    /// `tether help [COMMAND]`: the main help, or one command's.
    private func help(topic arguments: ArraySlice<String>) throws(UsageError) -> String {
        var rest = arguments
        guard let topic = rest.popFirst() else { return mainHelp }
        let command = command(named: topic)
        guard command != nil || Self.helpNames.contains(topic) else {
            let topics = commands.map { $0.configuration.names[0] }
            let hint = didYouMean(topic, in: topics)
            throw UsageError(
                "no help on '\(topic)'\(hint): the commands are "
                    + "\(topics.dropLast().joined(separator: ", ")) and \(topics.last ?? ""); "
                    + "run 'tether --help'")
        }
        if let extra = rest.first {
            throw UsageError(
                "tether help takes one command, got '\(extra)' after '\(topic)'; run 'tether help \(topic)'")
        }
        return command?.configuration.help() ?? mainHelp
    }

    private static let versionNames = ["--version", "-V", "version"]
    private static let helpNames = ["help", "--help", "-h"]

    /// The command spelled `name`, if any.
    private func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.configuration.names.contains(name) }
    }

    /// Every spelling of more than one letter: what "did you mean" chooses from.
    private var suggestions: [String] {
        (commands.flatMap { $0.configuration.names } + Self.versionNames + Self.helpNames).filter { $0.count > 2 }
    }

    /// `tether --help`.
    public var mainHelp: String {
        let rows =
            commands.map { HelpLayout.Row(label: $0.configuration.usage, text: $0.configuration.summary) } + [
                HelpLayout.Row(label: "tether --version", text: "print the version"),
                HelpLayout.Row(
                    label: "tether help [\(commands.map { $0.configuration.names[0] }.joined(separator: " | "))]",
                    text: "print help"),
            ]
        return """
            tether \(tetherVersion): check that your Moya stubs still match the real API.

            Tether takes each stub (sampleData, its status code, its headers) as a contract, calls the live service or a
            mock of it, compares the status code and the JSON structure (keys, types, nulls, array elements; not values),
            and writes JUnit XML for your CI dashboard.

            USAGE
            \(HelpLayout.table(rows))

            EXAMPLES
              tether verify                                   every manifest in contracts/, against the live services
              tether verify --mock contracts/github.har       offline, against responses recorded in a HAR file
              tether verify --base-url http://127.0.0.1:4010  every service against a local mock (Prism, WireMock, …)

            EXIT CODES
              0  every contract holds
              1  at least one stub drifted from the live service (not counting drift known to --baseline, or of a
                 pending target)
              2  usage error, broken contract or baseline file (nothing was sent)
              3  no drift, but some targets could not be checked (connection refused, timeout, TLS, …), or with
                 --fail-on-flaky some passed only after a retry
              4  nothing was checked: every target was skipped or could not be checked
              130, 143  stopped by Ctrl-C or SIGTERM (the report holds what finished; Ctrl-C again quits at once)

            Run 'tether verify --help' for the options and the contract format.
            """
    }
}
