import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// The built binary writing every report format from a real run against a server on 127.0.0.1: JSON lines read
/// back by Python, annotations and the step summary under GitHub's variables, diagnostics, JUnit file attributes,
/// and the HTML report rendered by Chromium.
@Suite(.serialized) struct VerifyReportsTests {
    /// /items drifts (a price turned string, a `</script>` and a secret in live values); /user holds.
    static func server() throws -> MockServer {
        try MockServer { request in
            switch request.path {
            case "/items":
                return .json(
                    #"[{"id": 1, "name": "</script><script>document.title='owned'</script>", "price": "12.50", "#
                        + #""note": "key \#(secret)"}]"#)
            case "/user": return .json(#"{"id": 7, "login": "octocat"}"#)
            default: return .json(#"{"message": "not found"}"#, status: 404)
            }
        }
    }

    static let secret = "k3y-abcdef-123456"

    /// The manifest; `items` is declared on line 4 (its `"name"` at column 7), `user` on line 6.
    static func folder(_ server: MockServer) throws -> ContractFolder {
        try ContractFolder([
            "shop.json": """
            {"service": "Shop", "baseURL": "\(server.baseURL)",
             "headers": {"X-Key": "${SHOP_KEY}"},
             "targets": [
                 {"name": "items", "path": "/items",
                  "sampleData": {"json": [{"id": 1, "name": "Mug", "price": 12.5, "note": "n"}]}},
                 {"name": "user", "path": "/user", "sampleData": {"json": {"id": 1, "login": "x"}}}
             ]}
            """
        ])
    }

    static let environment = ["SHOP_KEY": secret]

    /// The binary, run off the cooperative pool (`offPool`), so a long serialized suite never starves async tests.
    static func tether(_ arguments: [String], environment: [String: String]) async throws -> TetherRun {
        try await offPool { try TetherBinary.run(arguments, environment: environment) }
    }

    /// `runTool`, off the cooperative pool.
    static func tool(_ executable: String, _ arguments: [String], input: Data? = nil) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await offPool { try runTool(executable, arguments, input: input) }
    }

    @Test func jsonLinesOnStandardOutputAreReadBackByPythonLineByLine() async throws {
        let python = try #require(executableOnPath("python3"), "python3 is needed to read the JSON lines back")
        let server = try Self.server()
        let folder = try Self.folder(server)
        let run = try await Self.tether(
            ["verify", folder.path, "--json", "-", "--no-color"], environment: Self.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("DRIFT Shop.items"), "the console goes to stderr: \(run.stderr)")
        #expect(!run.stdout.contains("DRIFT"), "stdout holds JSON lines alone: \(run.stdout)")
        #expect(!run.stdout.contains(Self.secret))
        let script = """
            import json, sys
            lines = sys.stdin.read().split("\\n")
            assert lines[-1] == "", "the output ends with a newline"
            objects = [json.loads(line) for line in lines[:-1]]
            results = [o for o in objects if o["type"] == "result"]
            summary = objects[-1]
            assert summary["type"] == "summary", summary
            assert summary["total"] == len(results) == 2, objects
            assert summary["drifted"] == 1 and summary["passed"] == 1 and summary["exitCode"] == 1, summary
            items = next(r for r in results if r["target"] == "items")
            assert items["outcome"] == "drifted" and items["status"] == 200, items
            assert items["url"].endswith("/items") and isinstance(items["duration"], float), items
            assert items["declaration"] == {"file": items["declaration"]["file"], "line": 4, "column": 7}, items
            drift = [f for f in items["findings"] if f["kind"] == "drift"]
            assert drift[0]["path"] == "$[0].price", drift
            assert drift[0]["expected"] and drift[0]["actual"] and drift[0]["expected"] != drift[0]["actual"], drift
            assert items["attempts"] == 1 and items["flaky"] is False and items["pending"] is False, items
            print("ok", len(objects))
            """
        let read = try await Self.tool(python, ["-c", script], input: Data(run.stdout.utf8))
        #expect(read.status == 0, "python: \(read.stderr)\n\(run.stdout)")
        #expect(read.stdout == "ok 3\n")
    }

    @Test func withJSONLinesOnStandardOutputAnnotationsGoWithTheConsole() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        var environment = Self.environment
        environment["GITHUB_ACTIONS"] = "true"
        let run = try await Self.tether(
            ["verify", folder.path, "--json", "-", "--diagnostics", "--no-color"], environment: environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("{\"type\":") }, "\(run.stdout)")
        #expect(run.stderr.contains("::error file="), "\(run.stderr)")
        #expect(run.stderr.contains(":4:7: error: Shop.items drifted"), "\(run.stderr)")
    }

    @Test func jsonLinesToAFileAreWrittenAsResultsComplete() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let path = folder.file("out/results.jsonl")
        let run = try await Self.tether(
            ["verify", folder.path, "--json", path, "--no-color"], environment: Self.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("DRIFT Shop.items"))
        #expect(run.stdout.contains("JSON lines: \(path)"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines { _ = try JSONValue.parse(Data(line.utf8)) }
    }

    @Test func onGitHubActionsAnnotationsPointAtTheTargetsNameAndTheStepSummaryIsAppended() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let summary = folder.file("step-summary.md")
        try Data("earlier step\n".utf8).write(to: URL(fileURLWithPath: summary))
        var environment = Self.environment
        environment["GITHUB_ACTIONS"] = "true"
        environment["GITHUB_STEP_SUMMARY"] = summary
        let run = try await Self.tether(["verify", folder.path, "--no-color"], environment: environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let manifest = GitHubAnnotations.escapedProperty(folder.file("shop.json"))
        let annotations = run.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }
        #expect(annotations.count == 1, "\(run.stdout)")
        #expect(
            annotations.first?.hasPrefix(
                "::error file=\(manifest),line=4,col=7,title=Shop.items drifted::$[0].price: expected number") == true,
            "\(run.stdout)")
        #expect(!run.stdout.contains(Self.secret))
        let text = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(text.hasPrefix("earlier step\n### ❌ Tether: 1 passed, 1 failed, 0 errors, 0 skipped"), "\(text)")
        #expect(text.contains("| `Shop.items` | DRIFT | `$[0].price`: expected number"), "\(text)")
    }

    @Test func withoutGitHubsVariablesThereAreNoAnnotations() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let run = try await Self.tether(["verify", folder.path, "--no-color"], environment: Self.environment)
        #expect(run.exitCode == 1)
        #expect(!run.stdout.contains("::error"))
        #expect(!run.stdout.contains(": error: "))
    }

    @Test func diagnosticsAreCompilerStyleLinesAtTheTargetsName() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let summary = folder.file("out/summary.md")
        let run = try await Self.tether(
            ["verify", folder.path, "--diagnostics", "--summary", summary, "--no-color"], environment: Self.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(
            run.stdout.contains(
                "\(folder.file("shop.json")):4:7: error: Shop.items drifted: $[0].price: expected number, got string"),
            "\(run.stdout)")
        #expect(run.stdout.contains("Markdown summary: \(summary)"))
        #expect(try String(contentsOfFile: summary, encoding: .utf8).contains("| `Shop.items` | DRIFT |"))
    }

    @Test func junitFileAttributesAreReadByParsersAndRejectedByTheStrictSchemas() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let run = try await Self.tether(
            ["verify", folder.path, "--junit-file-attributes", "--junit", folder.file("junit.xml")],
            environment: Self.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let junit = try String(contentsOfFile: folder.file("junit.xml"), encoding: .utf8)
        #expect(junit.contains(#"name="items""#) && junit.contains(#"line="4""#), "\(junit)")
        let result = try await offPool { try JUnitValidator.validate(junit) }
        #expect(result.countErrors.isEmpty, "\(result)")
        for schema in JUnitValidator.schemaNames {
            #expect(!result.accepts(schema), "\(result)")
            #expect(result.error(schema)?.description.contains("attribute 'file'") == true, "\(result)")
        }
        // Without the flag the same run validates against both strict schemas, as before.
        let plain = try await Self.tether(["verify", folder.path], environment: Self.environment)
        let plainJUnit = try #require(plain.junit)
        let strict = try await offPool { try JUnitValidator.validate(plainJUnit) }
        #expect(strict.isValid, "\(strict)")
    }

    /// A report path that takes bytes instead of holding a file (a pipe, the process's own output) is written into,
    /// as a shell's `>>` writes it: until now a report was renamed into its place, which turned `/dev/null`,
    /// `/dev/stdout` or a named pipe into a regular file for every later program.
    @Test func aReportToAPipeOrToTheOutputIsWrittenIntoIt() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        // A named pipe, its reading end open (without waiting) before the run, so that neither side blocks.
        let fifo = folder.file("reports.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let piped = try await Self.tether(["verify", folder.path, "--junit", fifo], environment: Self.environment)
        #expect(piped.exitCode == 1, "\(piped.stdout)\(piped.stderr)")
        var bytes = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &bytes, bytes.count)
        let received = String(decoding: bytes[..<max(count, 0)], as: UTF8.self)
        #expect(received.hasPrefix("<?xml") && received.contains("</testsuites>"), "\(received)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe was replaced")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["reports.fifo", "shop.json"])
        // The process's own output (a CI log): the report follows the console's lines, which stay.
        let logged = try await Self.tether(
            ["verify", folder.path, "--junit", "/dev/fd/1"], environment: Self.environment)
        #expect(logged.exitCode == 1, "\(logged.stdout)\(logged.stderr)")
        let console = try #require(logged.stdout.range(of: "DRIFT Shop.items"))
        let report = try #require(logged.stdout.range(of: "<?xml"))
        #expect(console.lowerBound < report.lowerBound, "\(logged.stdout)")
        #expect(logged.stdout.contains("</testsuites>"), "\(logged.stdout)")
        #expect(!logged.stdout.contains(Self.secret))
    }

    @Test func anUnwritableReportPathStopsTheRunBeforeAnythingIsSent() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        for option in ["--html", "--json", "--summary"] {
            let run = try await Self.tether(
                ["verify", folder.path, option, folder.path], environment: Self.environment)
            #expect(run.exitCode == 2, "\(option): \(run.stdout)\(run.stderr)")
            #expect(
                run.stderr.contains("tether: error: \(option) \(folder.path): cannot write the file: it is a folder"),
                "\(run.stderr)")
        }
        // A report path that is the manifest the run reads (through another spelling too) would replace it.
        let manifest = try String(contentsOfFile: folder.file("shop.json"), encoding: .utf8)
        for (option, path) in [("--junit", folder.file("shop.json")), ("--html", folder.path + "/./shop.json")] {
            let run = try await Self.tether(["verify", folder.path, option, path], environment: Self.environment)
            #expect(run.exitCode == 2, "\(option): \(run.stdout)\(run.stderr)")
            #expect(
                run.stderr.contains("tether: error: \(option) \(path): the run reads this file"), "\(run.stderr)")
            #expect(try String(contentsOfFile: folder.file("shop.json"), encoding: .utf8) == manifest)
        }
    }

    /// The check above compares names first without case, as a Mac's disk does; then the files themselves.
    @Test func aReportsNameIsComparedWithoutCaseBeforeItsFile() {
        #expect(RunPipeline.endsWith("api.json", "contracts/API.json"))
        #expect(RunPipeline.endsWith("API.JSON", "contracts/api.json"))
        #expect(!RunPipeline.endsWith("api.json", "contracts/api.jsonx"))
        #expect(!RunPipeline.endsWith("a-long-name.json", "name.json"))
        #expect(!RunPipeline.endsWith("é.json", "É.json"))
    }

    // MARK: HTML in a real browser

    static let chromium = executableOnPath("chromium")

    /// Chromium headless, kept off every network: no background services, every host name unresolvable, and every
    /// address but 127.0.0.1 when `loopback` lets a page reach servers the test started there.
    static func chromiumRun(_ arguments: [String], profile: String, loopback: Bool = false) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await tool(
            chromium ?? "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
                "--host-resolver-rules=MAP * ~NOTFOUND" + (loopback ? ", EXCLUDE 127.0.0.1" : ""),
                "--user-data-dir=\(profile)",
            ] + arguments)
    }

    @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium); HTML rendering skipped"))
    func theHTMLReportRendersInChromiumWithTheDriftHighlighted() async throws {
        let server = try Self.server()
        let folder = try Self.folder(server)
        let html = folder.file("reports/tether.html")
        let run = try await Self.tether(
            ["verify", folder.path, "--html", html, "--no-color"], environment: Self.environment)
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("HTML report: \(html)"))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(!page.contains(Self.secret))

        // After scripts ran: ours set the filter; the live `</script>` stayed text, so the title is still ours.
        let dom = try await Self.chromiumRun(
            ["--dump-dom", "file://\(html)#filter=drifted"], profile: folder.file("p1"))
        #expect(dom.status == 0, "\(dom.stderr)")
        #expect(dom.stdout.contains(#"<html lang="en" data-filter="drifted">"#), "our script did not run")
        #expect(dom.stdout.contains("<title>Tether report: 1 passed, 1 failed"), "a live value ran as script")
        #expect(dom.stdout.contains(#"<section class="target passed" data-outcome="passed" id="target-1" hidden="">"#))
        #expect(
            dom.stdout.contains(
                #"<li class="node drift" data-path="$[0].price"><span class="sign">+</span><span class="key">price</span>: <span class="value string">"12.50"</span>"#
            ), "no highlighted drift on the live side")
        #expect(dom.stdout.contains("&lt;/script&gt;&lt;script&gt;document.title='owned'&lt;/script&gt;"))

        // The screenshot shows both highlights: the stub's red and the live side's green behind the drifted value.
        let shot = folder.file("shot.png")
        let render = try await Self.chromiumRun(
            ["--screenshot=\(shot)", "--window-size=1200,900", "file://\(html)"], profile: folder.file("p2"))
        #expect(render.status == 0, "\(render.stderr)")
        let python = try #require(executableOnPath("python3"), "python3 is needed to read the screenshot")
        let counted = try await Self.tool(python, ["-c", Self.pngColorCounter, shot, "ff8182", "4ac26b"])
        #expect(counted.status == 0, "\(counted.stderr)")
        let counts = counted.stdout.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 50 }, "highlight pixels (red, green): \(counted.stdout)")
    }

    /// Counts the pixels of each given colour in a PNG (8-bit RGB or RGBA, not interlaced), with Python's zlib only.
    static let pngColorCounter = """
        import sys, zlib, struct
        data = open(sys.argv[1], "rb").read()
        assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", "not a PNG"
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            chunk = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            elif kind == b"IDAT":
                idat += chunk
            pos += 12 + length
        assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
        bpp = 3 if color == 2 else 4
        raw, stride = zlib.decompress(idat), width * bpp
        previous, rows, at = bytearray(stride), [], 0
        for _ in range(height):
            kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
            at += 1 + stride
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                if kind == 1: line[i] = (line[i] + a) & 255
                elif kind == 2: line[i] = (line[i] + b) & 255
                elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
                elif kind == 4:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            rows.append(line)
            previous = line
        wanted = [bytes.fromhex(h) for h in sys.argv[2:]]
        counts = [0] * len(wanted)
        for line in rows:
            for x in range(0, stride, bpp):
                pixel = bytes(line[x:x + 3])
                for k, w in enumerate(wanted):
                    if all(abs(pixel[j] - w[j]) <= 6 for j in range(3)):
                        counts[k] += 1
        print(" ".join(str(n) for n in counts))
        """
}
