import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The built binary's argument parsing: each command's options come from one table, so the messages, `--opt=value`,
/// `--`, and the help text are checked here against what the parser does.
@Suite struct CommandLineToolTests {
    /// A command line that is refused, and the whole of what tether writes to standard error (exit code 2, nothing
    /// on standard output).
    @Test(arguments: [
        (
            ["verify", "--jbos", "4"],
            "tether: error: unknown option '--jbos' (did you mean '--jobs'?); run 'tether verify --help'\n"
        ),
        (
            ["verify", "--jbos=4"],
            "tether: error: unknown option '--jbos' (did you mean '--jobs'?); run 'tether verify --help'\n"
        ),
        (
            ["verify", "--no-colr"],
            "tether: error: unknown option '--no-colr' (did you mean '--no-color'?); run 'tether verify --help'\n"
        ),
        (["verify", "-x"], "tether: error: unknown option '-x'; run 'tether verify --help'\n"),
        (["verify", "--jobs"], "tether: error: --jobs needs a value; run 'tether verify --help'\n"),
        (["verify", "--junit", "--strict"], "tether: error: --junit needs a value; run 'tether verify --help'\n"),
        (["verify", "--jobs", "x"], "tether: error: --jobs: 'x' is not a whole number from 1 to 256\n"),
        (["verify", "--jobs=2.5"], "tether: error: --jobs: '2.5' is not a whole number from 1 to 256\n"),
        (["verify", "--jobs=257"], "tether: error: --jobs: '257' is not a whole number from 1 to 256\n"),
        (["verify", "--jobs="], "tether: error: --jobs: '' is not a whole number from 1 to 256\n"),
        (
            ["verify", "--timeout", "0"],
            "tether: error: --timeout: '0' is not a number of seconds from 0.001 to 86400\n"
        ),
        (
            ["verify", "--connect-timeout=soon"],
            "tether: error: --connect-timeout: 'soon' is not a number of seconds from 0.001 to 86400\n"
        ),
        (
            ["verify", "--max-body", "0K"],
            "tether: error: --max-body: '0K' is not a size in bytes such as 1048576, 512K or 64M\n"
        ),
        (
            ["verify", "--strict=yes"],
            "tether: error: --strict takes no value, got 'yes'; run 'tether verify --help'\n"
        ),
        (
            ["verify", "--no-color=1"],
            "tether: error: --no-color takes no value, got '1'; run 'tether verify --help'\n"
        ),
        (
            ["verify", "--base-url", "Shop=http://127.0.0.1:1", "--base-url", "Stock=ftp://127.0.0.1"],
            "tether: error: --base-url: 'Stock=ftp://127.0.0.1' is not an http or https URL "
                + "(write --base-url URL or --base-url SERVICE=URL)\n"
        ),
        (
            ["verify", "--cacert", "/nonexistent/ca.pem"],
            "tether: error: --cacert: '/nonexistent/ca.pem' is not a readable file\n"
        ),
        (["verify", "-missing.json"], "tether: error: unknown option '-missing.json'; run 'tether verify --help'\n"),
        // After `--`, an argument that starts with `-` is a path: the loader, not the parser, answers.
        (
            ["verify", "--", "-missing.json", "--strict"],
            "-missing.json: error: no such file or folder: give a manifest or a folder of manifests (tether verify "
                + "contracts)\n--strict: error: no such file or folder: give a manifest or a folder of manifests "
                + "(tether verify contracts)\ntether: error: 2 contract errors; nothing was sent\n"
        ),
        (["mock", "--port"], "tether: error: --port needs a value; run 'tether mock --help'\n"),
        (["mock", "--port=x", "a.har"], "tether: error: --port: 'x' is not a whole number from 0 to 65535\n"),
        (
            ["mock", "a.har", "--prot", "1"],
            "tether: error: unknown option '--prot' (did you mean '--port'?); run 'tether mock --help'\n"
        ),
        (["mock", "a.har", "b.har"], "tether: error: tether mock serves one HAR file; got 'a.har' and 'b.har'\n"),
        (
            ["mock", "--", "-a.har", "--port"],
            "tether: error: tether mock serves one HAR file; got '-a.har' and '--port'\n"
        ),
        (["mock"], "tether: error: tether mock needs a HAR file, e.g. tether mock contracts/github.har\n"),
        (
            ["versoin"],
            "tether: error: unknown command 'versoin' (did you mean 'version'?); run 'tether --help'\n"
        ),
    ])
    func refusedCommandLinesSayWhy(arguments: [String], stderr: String) throws {
        let run = try TetherBinary.run(arguments)
        #expect(run.exitCode == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr == stderr)
        #expect(run.stdout.isEmpty)
    }

    /// `--base-url SERVICE=URL` adds up, each one wins over `--base-url URL` for its service, and `--opt=value`
    /// reads as `--opt value`.
    @Test(arguments: [
        (["--base-url", "Shop=BASE/shop", "--base-url=Stock=BASE/stock"], ["/shop/item", "/stock/item"]),
        (["--base-url=BASE/all", "--base-url", "Stock=BASE/stock", "--jobs=1"], ["/all/item", "/stock/item"]),
    ])
    func baseURLsRepeatPerService(options: [String], paths: [String]) throws {
        let seen = SeenRequests()
        let server = try MockServer { request in
            seen.record(request)
            return .json(#"{"id": 1}"#)
        }
        let folder = try twoServices()
        let withServer = options.map { $0.replacingOccurrences(of: "BASE", with: server.baseURL) }
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"] + withServer)
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(seen.all.map(\.path).sorted() == paths)
    }

    /// Each `--filter` adds a pattern: a target passes when it matches any of them.
    /// The executable starts libcurl's set-up from the arguments alone, before it reads anything else: only when the
    /// first one names a command that sends requests, and always the same set-up, the one the command's run waits for.
    @Test func libcurlsSetUpStartsFromTheArgumentsOnlyForACommandThatSends() {
        let tool = CommandLineTool(commands: [VerifyCommand.self, RecordCommand.self, MergeReportsCommand.self])
        let started = tool.startUp(for: ["verify", "contracts"])
        #expect(started != nil)
        #expect(started === tool.startUp(for: ["verify", "--list"]))  // once per process
        for arguments in [
            [], ["record"], ["merge-reports", "a.xml"], ["--help"], ["--version"], ["verfy"], ["contracts", "verify"],
        ] {
            #expect(tool.startUp(for: arguments) == nil, "\(arguments)")
        }
        started?.wait()
    }

    @Test func filtersAddUp() throws {
        let server = try MockServer { _ in .json(#"{"id": 1}"#) }
        let folder = try twoServices()
        let both = try TetherBinary.run([
            "verify", folder.path, "--no-color", "--base-url", server.baseURL, "--filter", "Shop.*",
            "--filter=Stock.item",
        ])
        #expect(both.exitCode == 0, "\(both.stdout)\(both.stderr)")
        #expect(both.stdout.contains("PASS  Shop.item") && both.stdout.contains("PASS  Stock.item"), "\(both.stdout)")
        let none = try TetherBinary.run(["verify", folder.path, "--filter", "a*", "--filter=b"])
        #expect(none.exitCode == 2)
        #expect(
            none.stderr
                == "tether: error: --filter a* b matches none of the 2 targets "
                + "(patterns match Service.target or target, with * and ?)\n")
    }

    /// `--color` and `--no-color` (and their British spellings) set color; the last one given wins.
    @Test(arguments: [
        (["--color"], true), (["--no-color"], false), (["--colour"], true), (["--no-colour"], false),
        (["--no-color", "--color"], true), (["--color", "--no-color"], false), ([], false),
    ])
    func colorFlagsTheLastOneWins(flags: [String], isColored: Bool) throws {
        let server = try MockServer { _ in .json(#"{"id": 1}"#) }
        let folder = try twoServices()
        let run = try TetherBinary.run(["verify", folder.path, "--base-url", server.baseURL] + flags)
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("\u{1B}[") == isColored, "\(run.stdout)")
    }

    /// Help and parser cannot drift apart: `tether verify --help` and `tether mock --help` list each option form
    /// once, every listed spelling is accepted with a value of the kind its help names, and a typo of it is
    /// answered with that spelling.
    @Test(arguments: ["verify", "mock"])
    func everyOptionInHelpParses(command: String) throws {
        let folder = try ContractFolder([
            "shop.json": #"{"service": "Shop", "baseURL": "https://shop.invalid", "targets": [{"name": "item"}]}"#,
            "file.txt": "",
        ])
        let samples = [
            "URL": "http://127.0.0.1:1", "SERVICE=URL": "Shop=http://127.0.0.1:1",
            "FILE.har": FixturePaths.packageRoot.appendingPathComponent("contracts/github.har").path,
            "PATTERN": "Nothing.*", "N": "2", "N/s": "2/s", "K/N": "1/2", "PATH": "$.email", "SECONDS": "5",
            "BYTES": "1M", "FILE": folder.file("file.txt"), "FILE|-": folder.file("out.jsonl"),
            "[SERVICE=]FILE": folder.file("file.txt"), "CULPRITS": "stub,spec", "REF": "v1.0.0",
        ]
        // `--ref` and `--last` stop at git (the folder is in no repository) instead of at the filter.
        let stoppedAt = ["--ref": "from git", "--last": "--last N takes the newest of the tags"]
        // Past the parser, each command stops before sending or serving anything, with an error of its own.
        let operands =
            command == "verify"
            ? [folder.path, "--filter", "none.such"] : [folder.file("missing.har")]
        let parsed = command == "verify" ? "matches none of the only target" : "cannot read the HAR file"

        let help = try TetherBinary.run([command, "--help"])
        #expect(help.exitCode == 0)
        let rows = optionRows(help.stdout)
        #expect(!rows.isEmpty)
        let labels = rows.map { ($0.names + [$0.value ?? ""]).joined(separator: " ") }
        #expect(Set(labels).count == labels.count, "\(labels)")

        for row in rows {
            for name in row.names {
                var arguments = [command, name]
                if let value = row.value {
                    let sample = try #require(samples[value], "no sample value for \(name) \(value)")
                    arguments.append(sample)
                }
                let run = try TetherBinary.run(arguments + operands)
                #expect(
                    run.exitCode == 2 && run.stderr.contains(stoppedAt[name] ?? parsed), "\(arguments): \(run.stderr)")

                // "Did you mean" offers names of more than one letter (as `TetherCommand.suggestions`).
                guard name.count > 2 else { continue }
                let typo = try TetherBinary.run([command, name + "x"])
                #expect(
                    typo.stderr
                        == "tether: error: unknown option '\(name)x' (did you mean '\(name)'?); "
                        + "run 'tether \(command) --help'\n")
            }
        }
    }
}

/// Two services of one target each, `Shop.item` and `Stock.item`, whose base URLs resolve nowhere.
private func twoServices() throws -> ContractFolder {
    try ContractFolder([
        "shop.json": manifest("Shop"),
        "stock.json": manifest("Stock"),
    ])
}

private func manifest(_ service: String) -> String {
    #"{"service": "\#(service)", "baseURL": "https://\#(service.lowercased()).invalid", "targets": [{"name": "item", "path": "/item", "sampleData": {"json": {"id": 1}}}]}"#
}

/// The option rows of a help text: a line indented by two spaces that starts with `-`, its spellings separated by
/// `, `, then a value name, then two spaces and the help (wrapped lines are indented further).
private func optionRows(_ help: String) -> [(names: [String], value: String?)] {
    help.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("  -"),
            let end = line.range(of: "  ", range: line.index(line.startIndex, offsetBy: 2)..<line.endIndex)
        else { return nil }
        var words = line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound].components(separatedBy: ", ")
        let last = words.removeLast().split(separator: " ", maxSplits: 1).map(String.init)
        return (words + [last[0]], last.count > 1 ? last[1] : nil)
    }
}
