import Foundation
import Testing

@testable import TetherContracts
@testable import TetherKit

/// A sink that keeps what it was handed, for checking the pipeline's calls.
private final class Calls: @unchecked Sendable {
    var events: [String] = []
}

private struct RecordingSink: ReportSink {
    let calls: Calls
    var failsToPrepare = false
    var failsToFinish = false

    func prepare() throws(ReportError) {
        calls.events.append("prepare")
        if failsToPrepare { throw .write(path: "x", reason: "no") }
    }

    mutating func add(_ result: ContractResult, at index: Int) {
        calls.events.append("add \(index) \(result.contract.name)")
    }

    mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        calls.events.append("finish \(report.results.count)")
        if failsToFinish { throw .write(path: "y", reason: "full") }
        return "recorded"
    }
}

@Suite struct RunPipelineTests {
    private static func contracts() -> [Contract] {
        ["a", "b", "c"].map { name in
            Contract(
                service: "S", name: name, baseURL: "http://127.0.0.1:9",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1:9/\(name)"),
                sampleData: .json(.object([JSONMember("id", .integer(1))])), source: "test")
        }
    }

    private static let transport = StubTransport { request in
        let body = request.url.hasSuffix("/b") ? #"{"id": "x"}"# : #"{"id": 2}"#
        return .success(HTTPResponse(statusCode: 200, headers: [], body: Data(body.utf8), url: request.url))
    }

    @Test func everySinkGetsEveryResultThenTheRun() throws {
        let calls = Calls()
        var responses: [(Int, String)] = []
        let pipeline = RunPipeline(
            plan: RunPlan(), runner: ContractRunner(transport: Self.transport, hostname: "test"))
        let (report, lines) = try pipeline.run(
            Self.contracts(), sinks: [RecordingSink(calls: calls), RecordingSink(calls: calls)],
            onResponse: { index, response in responses.append((index, String(decoding: response.body, as: UTF8.self))) }
        )
        #expect(report.results.map(\.outcome) == [.passed, .drifted, .passed])
        #expect(lines == ["recorded", "recorded"])
        #expect(
            calls.events == [
                "add 0 a", "add 0 a", "add 1 b", "add 1 b", "add 2 c", "add 2 c", "finish 3", "finish 3",
            ])
        // Each live response reaches the caller before its body is dropped, with its contract's index.
        #expect(responses.map(\.0) == [0, 1, 2])
        #expect(responses[1].1 == #"{"id": "x"}"#)
    }

    /// A plan whose report cannot be written stops before anything is sent, naming the option; so does a baseline
    /// that cannot be read. The exit code of a run always speaks of its contracts.
    @Test func aReportThatCannotBeWrittenStopsThePlanBeforeAnythingIsSent() throws {
        let folder = try ContractFolder([
            "api.json": #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [{"name": "a", "path": "/a"}]}"#
        ])
        let transport = StubTransport(status: 200)
        var plan = RunPlan(inputs: RunInputs(paths: [folder.path]))
        plan.reports.paths["junit"] = "/proc/tether-none/junit.xml"
        let pipeline = RunPipeline(plan: plan, runner: ContractRunner(transport: transport, hostname: "test"))
        #expect {
            try pipeline.run(write: { _ in })
        } throws: { error in
            guard case .report(let option, _) = error as? RunError else { return false }
            return option == "--junit"
        }
        plan.reports.paths = [:]
        plan.gate.baselinePath = folder.file("missing-baseline.json")
        let unread = RunPipeline(plan: plan, runner: ContractRunner(transport: transport, hostname: "test"))
        #expect {
            try unread.run(write: { _ in })
        } throws: { error in
            guard case .baseline = error as? RunError else { return false }
            return true
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aSinkThatCannotFinishDoesNotStopTheOthers() {
        let calls = Calls()
        let pipeline = RunPipeline(
            plan: RunPlan(), runner: ContractRunner(transport: Self.transport, hostname: "test"))
        let sinks: [any ReportSink] = [RecordingSink(calls: calls, failsToFinish: true), RecordingSink(calls: calls)]
        let error = #expect(throws: RunPipelineError.self) { try pipeline.run(Self.contracts(), sinks: sinks) }
        #expect(error?.report.results.count == 3)
        #expect(error?.lines == ["recorded"])
        #expect(calls.events.filter { $0.hasPrefix("finish") }.count == 2)
    }

    @Test func everyFileFormatIsRegisteredOnceWithItsOption() {
        let options = ReportFormat.all.map(\.option)
        #expect(options == ["junit", "html", "json", "ctrf", "summary", "github-annotations", "diagnostics"])
        #expect(Set(options).count == options.count)
        #expect(ReportFormat.all.first?.sink(ReportDestination(path: "reports/x.xml")) is JUnitFile)
    }

    @Test func aRunWritesTheFormatsAskedForWithDefaultsAndThoseTheEnvironmentTurnsOn() {
        func chosen(_ given: [String: String], _ environment: [String: String] = [:]) -> [String] {
            ReportFormat.selection(given: given, environment: environment).map {
                $0.format.option + ($0.path.map { "=" + $0 } ?? "")
            }
        }
        #expect(chosen([:]) == ["junit=reports/junit.xml"])
        #expect(chosen(["json": "-", "diagnostics": ""]) == ["junit=reports/junit.xml", "json=-", "diagnostics"])
        #expect(
            chosen([:], ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/tmp/s"])
                == ["junit=reports/junit.xml", "summary", "github-annotations"])
        #expect(chosen([:], ["GITHUB_ACTIONS": "false", "GITHUB_STEP_SUMMARY": ""]) == ["junit=reports/junit.xml"])
    }

    @Test func onlyASinkThatShowsLiveBodiesIsHandedResponses() throws {
        let pipeline = RunPipeline(
            plan: RunPlan(), runner: ContractRunner(transport: Self.transport, hostname: "test"))
        #expect(!JUnitFile(path: NSTemporaryDirectory() + "tether-\(UUID().uuidString).xml").wantsResponses)
        let path = NSTemporaryDirectory() + "tether-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let html = HTMLReportFile(path: path)
        #expect(html.wantsResponses)
        let (report, lines) = try pipeline.run(Self.contracts(), sinks: [html])
        #expect(lines == ["HTML report: \(path)"])
        let page = try String(contentsOfFile: path, encoding: .utf8)
        #expect(page.components(separatedBy: "<section class=\"target").count == report.results.count + 1)
        // The live body was kept for the tree: /b answered {"id": "x"}, highlighted on the live side.
        #expect(
            page.contains(
                #"<li class="node drift" data-path="$.id"><span class="sign">+</span><span class="key">id</span>: <span class="value string">&quot;x&quot;</span>"#
            ), "\(page)")
    }
}

@Suite struct StubSourceTests {
    @Test func everyStubKnowsWhereItsBodyIsWritten() throws {
        let folder = try ContractFolder([
            "api.json": """
            {"service": "S", "baseURL": "https://x.test", "targets": [
              {"name": "file", "sampleData": {"file": "samples/a.json"}},
              {"name": "inline", "sampleData": {"json": {"id": 1}}},
              {"name": "none"}
            ]}
            """,
            "samples/a.json": #"{"id": 1}"#,
        ])
        let contracts = try ManifestLoader(environment: [:]).load(paths: [folder.path])
        let manifest = folder.file("api.json")
        #expect(
            contracts[0].stubSource
                == StubSource(
                    file: folder.path + "/samples/a.json", location: "", manifest: manifest,
                    manifestLocation: "targets[0].sampleData", line: 2, column: 34))
        #expect(
            contracts[1].stubSource
                == StubSource(
                    file: manifest, location: "targets[1].sampleData.json", manifest: manifest,
                    manifestLocation: "targets[1].sampleData", line: 3, column: 36))
        #expect(contracts[2].stubSource == nil)
        #expect(contracts.allSatisfy { $0.rules.isEmpty })
    }
}
