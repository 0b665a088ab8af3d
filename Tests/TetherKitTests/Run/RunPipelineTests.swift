import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
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

/// Events from sinks that finish on threads of their own, in the order they happened.
private final class SharedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ event: String) { lock.withLock { list.append(event) } }
    var events: [String] { lock.withLock { list } }
}

/// A sink that prints: it says so once it has finished.
private struct PrintingSink: ReportSink {
    let events: SharedEvents
    let finished: DispatchSemaphore

    mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        events.append("printing finished")
        finished.signal()
        return "printing"
    }
}

/// A sink that only writes its own file: it waits (10 s at most) for the printing sink to finish first, which it can
/// only do if the two finish side by side.
private struct FileSink: ReportSink {
    let events: SharedEvents
    let printed: DispatchSemaphore
    var failsToFinish = false
    var finishesAlone: Bool { true }

    mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        let isBeside = printed.wait(timeout: .now() + 10) == .success
        events.append("file finished \(isBeside ? "beside" : "alone") with \(report.results.count)")
        if failsToFinish { throw .write(path: "z", reason: "full") }
        return "file"
    }
}

/// A sink that says whether it finished on the thread that ran the pipeline.
private struct ThreadSink: ReportSink {
    let events: SharedEvents
    let name: String
    let caller: pthread_t
    let finishesAlone: Bool

    mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        events.append("\(name) on \(pthread_equal(pthread_self(), caller) != 0 ? "the caller's" : "another") thread")
        return name
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

    /// The sinks that only write their own file (JUnit, HTML, CTRF) finish beside the console once the run is over;
    /// the lines still come in the order of the sinks, and a failure is still the first in that order.
    @Test func fileSinksFinishBesideThePrintingOnesInTheSinksOrder() {
        var pipeline = RunPipeline(
            plan: RunPlan(), runner: ContractRunner(transport: Self.transport, hostname: "test"))
        pipeline.resultsForThreadedFinish = 3  // as a run of 256 results or more does
        let events = SharedEvents()
        let printed = DispatchSemaphore(value: 0)
        let sinks: [any ReportSink] = [
            FileSink(events: events, printed: printed), PrintingSink(events: events, finished: printed),
        ]
        let lines = try? pipeline.run(Self.contracts(), sinks: sinks).lines
        #expect(lines == ["file", "printing"])
        #expect(events.events == ["printing finished", "file finished beside with 3"])
        #expect(JUnitFile(path: "x.xml").finishesAlone)
        #expect(HTMLReportFile(path: "x.html").finishesAlone && CTRFFile(path: "x.json").finishesAlone)
        #expect(!ConsoleOutput(contracts: [], color: false, write: { _ in }).finishesAlone)

        let failing = SharedEvents()
        let done = DispatchSemaphore(value: 0)
        let error = #expect(throws: RunPipelineError.self) {
            try pipeline.run(
                Self.contracts(),
                sinks: [
                    PrintingSink(events: failing, finished: done),
                    FileSink(events: failing, printed: done, failsToFinish: true),
                ])
        }
        #expect(error?.lines == ["printing"])
        guard case .write(let path, _) = error?.error else {
            Issue.record("expected the file sink's error, got \(String(describing: error))")
            return
        }
        #expect(path == "z")
        #expect(failing.events.sorted() == ["file finished beside with 3", "printing finished"])
    }

    /// A run of fewer than 256 results finishes its sinks one after the other, in their order, on the caller's
    /// thread: no thread is started for a small report.
    @Test func aSmallRunFinishesItsSinksInTurnOnTheCallersThread() {
        let pipeline = RunPipeline(
            plan: RunPlan(), runner: ContractRunner(transport: Self.transport, hostname: "test"))
        let events = SharedEvents()
        let caller = pthread_self()
        let sinks: [any ReportSink] = [
            ThreadSink(events: events, name: "file", caller: caller, finishesAlone: true),
            ThreadSink(events: events, name: "printing", caller: caller, finishesAlone: false),
        ]
        let lines = try? pipeline.run(Self.contracts(), sinks: sinks).lines
        #expect(lines == ["file", "printing"])
        #expect(events.events == ["file on the caller's thread", "printing on the caller's thread"])
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
