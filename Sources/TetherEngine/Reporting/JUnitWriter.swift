#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JUnit XML report, written with `XMLTextWriter` (byte for byte what libxml2's `xmlTextWriter` writes).
///
/// The document validates against both the Jenkins xUnit plugin's `junit-10.xsd` and the Ant JUnit schema
/// (windyroad `JUnit.xsd`, the one Azure DevOps and junitparser cite), which is why:
/// - the root `<testsuites>` carries no attributes: the Ant schema allows none there (totals are on each suite, and
///   every consumer recomputes run totals from the suites);
/// - each `<testsuite>` has, in this order, `<properties>`, its `<testcase>`s, `<system-out>` and `<system-err>`, and
///   the attributes `name tests failures errors skipped time timestamp hostname id package`;
/// - a `<testcase>` holds at most one of `<failure>`, `<error>`, `<skipped>` and nothing else, so the notes of passing
///   targets go to the suite's `<system-out>` (the Ant schema has no `<system-out>` in a test case).
///
/// All free text is redacted (`Redactor(report:)`), has its control characters escaped as `\u{1B}` (see
/// `ReportText.escapingControls`) and is cut to 4 KiB per field. No CDATA: the writer escapes `<`, `&` and `]]>`.
public enum JUnitWriter {
    /// The report as UTF-8 XML.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - isFileAttributes: add `file` and `line` to each `<testcase>` of a target declared in a manifest (the line
    ///     of its `name`). GitLab, CircleCI and action-junit-report read them, and so do junitparser and
    ///     xunitparser; but both strict schemas, the Jenkins xUnit `junit-10.xsd` and the Ant (windyroad) `JUnit.xsd`,
    ///     reject them (only the older xUnit `junit-9.xsd` allows them), so they are off by default
    ///     (`--junit-file-attributes`).
    /// - Returns: the document, `<?xml version="1.0" encoding="UTF-8"?>` first, indented by two spaces.
    /// - Throws: `ReportError.xml` if the writer fails.
    public static func xml(for report: RunReport, isFileAttributes: Bool = false) throws(ReportError) -> Data {
        try xml(for: report, redactor: Redactor(report: report), isFileAttributes: isFileAttributes)
    }

    /// `xml(for:isFileAttributes:)` with the redactor the caller has made for `report` already
    /// (`Redactor(report:)`).
    @_spi(Testing) public static func xml(for report: RunReport, redactor: Redactor, isFileAttributes: Bool = false)
        throws(ReportError) -> Data
    {
        var data = Data()
        try write(report, redactor: redactor, isFileAttributes: isFileAttributes) { bytes in
            data.append(contentsOf: bytes)
        }
        return data
    }

    /// Writes the document in pieces to `output` (a piece whenever a megabyte is written, and the rest at the end),
    /// so that a report of 100,000 targets is never held whole in memory.
    /// - Parameter parallelResults: For how many results several suites are written side by side (tests widen it,
    ///   or set it to `0...0` to write everything one after the other: the suites, and a long suite's chunks).
    static func write(
        _ report: RunReport, redactor: Redactor? = nil, isFileAttributes: Bool,
        parallelResults: ClosedRange<Int> = parallelSuitesResults,
        to output: (UnsafeRawBufferPointer) throws(ReportError) -> Void
    ) throws(ReportError) {
        let redactor = redactor ?? Redactor(report: report)
        let suites = report.suites
        let writer = XMLTextWriter()
        writer.startDocument()
        writer.startElement("testsuites")
        if suites.count > 1 && parallelResults.contains(report.results.count) {
            // Each suite written on a core of its own, into memory, then handed on in order: a run at 5 refs is five
            // suites of 2,000, and its report was the longest step after the requests (106 M instructions on one
            // core, beside the console's closing on the other).
            writer.openForChildren()
            let written = DeepStack.concurrentMap(name: "tether-junit", iterations: suites.count) { index in
                let suiteWriter = XMLTextWriter(inside: ["testsuites"])
                let result = Result { () throws(ReportError) in
                    try writeSuite(
                        suites[index].service, suites[index].results, id: index, report: report, redactor: redactor,
                        isFileAttributes: isFileAttributes, sideBySide: false, to: suiteWriter, afterEachPiece: {})
                }
                return result.map { suiteWriter.writtenBytes() }
            }
            // Each suite handed on as it is, after what the writer holds (the document's start): appended to the
            // writer first, a 5-version run's megabyte of suites was copied once more, into memory first touched
            // there, on one core while the other had nothing left to do.
            for suite in written {
                try writer.drain(ifAtLeast: 0, into: output)
                let bytes = try suite.get()
                try bytes.withUnsafeBytes { raw in Result { () throws(ReportError) in try output(raw) } }.get()
            }
        } else {
            for (index, suite) in suites.enumerated() {
                try writeSuite(
                    suite.service, suite.results, id: index, report: report, redactor: redactor,
                    isFileAttributes: isFileAttributes, sideBySide: parallelResults.upperBound > 0, to: writer
                ) { () throws(ReportError) in
                    try writer.drain(ifAtLeast: 1 << 20, into: output)
                }
            }
        }
        try writer.endElement()
        try writer.finish()
        try writer.drain(ifAtLeast: 0, into: output)
    }

    /// For how many results a report of several suites is written a suite per core, each whole in memory (about 100
    /// bytes a passed target); past it, one suite after the other, handed on a megabyte at a time. Below it the
    /// threads would cost more than they save (the reports fuzzer, writing small reports, ran 1,308 → 484 a second
    /// when every report of several suites took them).
    static let parallelSuitesResults = 1_000...50_000

    /// Writes the report to `path` atomically (a temporary file beside it, then a rename), creating parent folders.
    /// - Parameters:
    ///   - report: the finished run.
    ///   - path: where the file goes, e.g. `reports/junit.xml`.
    ///   - isFileAttributes: see `xml(for:isFileAttributes:)`.
    /// - Throws: `ReportError.write` naming `path` and the system's reason, or `ReportError.xml`.
    public static func write(_ report: RunReport, to path: String, isFileAttributes: Bool = false) throws(ReportError) {
        try ReportFile.write(to: path, durability: .report) { (output) throws(ReportError) in
            try write(report, isFileAttributes: isFileAttributes, to: output)
        }
    }

    /// Checks that `write(_:to:)` will be able to write `path`, before a run sends anything (its folders are made).
    /// - Parameter path: The report path, e.g. `reports/junit.xml`.
    /// - Throws: `ReportError.write` naming the path and the reason: a folder cannot be made, the path is a folder,
    ///   no file can be created there.
    public static func checkWritable(_ path: String) throws(ReportError) {
        try ReportFile.checkWritable(path)
    }

    // MARK: Elements

    private static func writeSuite(
        _ service: String, _ results: [ContractResult], id: Int, report: RunReport, redactor: Redactor,
        isFileAttributes: Bool, sideBySide: Bool, to writer: XMLTextWriter,
        afterEachPiece: () throws(ReportError) -> Void
    ) throws(ReportError) {
        let name = nonBlank(service, or: "unnamed")
        writer.startElement("testsuite")
        try writer.attribute("name", name)
        let counts = OutcomeCounts(results)
        try writer.attribute("tests", String(results.count))
        try writer.attribute("failures", String(counts.drifted))
        try writer.attribute("errors", String(counts.errors))
        try writer.attribute("skipped", String(counts.skipped))
        try writer.attribute("time", ReportText.seconds(results.reduce(0) { $0 + max(0, $1.duration) }))
        try writer.attribute("timestamp", ReportText.timestamp(report.startedAt))
        try writer.attribute("hostname", nonBlank(report.hostname, or: "localhost"))
        try writer.attribute("id", String(id))
        try writer.attribute("package", name)

        writer.startElement("properties")
        // One pass over the suite for both.
        var baseURLs = DistinctValues()
        var sources = DistinctValues()
        for index in results.indices {
            baseURLs.add(results[index].contract.baseURL)
            sources.add(results[index].contract.source)
        }
        var properties = [
            ("baseURL", baseURLs.joined(redactor: redactor)),
            ("source", sources.joined(redactor: redactor)),
            ("tether.version", tetherVersion),
            // Targets with a body contract / all targets of the suite (`BodyCoverage`).
            ("tether.coverage", BodyCoverage(results: results).description),
        ]
        // What the gate and the retries say, as properties (the Ant schema has none on a test case), each only when
        // it names a target: the test cases' names, comma-separated.
        let fixed = report.fixed.filter { $0.service == service }
        let marked = [
            ("tether.flaky", results.filter { $0.isFlaky }),
            ("tether.retried", results.filter { $0.attempts > 1 }),
            ("tether.knownDrift", results.filter { $0.isKnownDrift }),
            ("tether.pending", results.filter { $0.isPending }),
        ]
        for (key, marked) in marked where !marked.isEmpty {
            let names = marked.map { nonBlank($0.contract.name, or: "unnamed") }
            properties.append((key, ReportText.escapingControls(names.joined(separator: ", "))))
        }
        if !fixed.isEmpty {
            let lines = fixed.map { ReportText.fixedLine($0, redactor: redactor) }
            properties.append(("tether.fixed", lines.joined(separator: ", ")))
        }
        if !report.specCoverage.isEmpty {
            properties.append(
                (
                    "tether.specCoverage",
                    ReportText.escapingControls(report.specCoverage.map(\.line).joined(separator: "; "))
                ))
        }
        for (key, value) in properties {
            writer.startElement("property")
            try writer.attribute("name", key)
            try writer.attribute("value", value)
            try writer.endElement()
        }
        try writer.endElement()

        try writeEach(
            results, sideBySide: sideBySide, inside: ["testsuites", "testsuite"], to: writer,
            afterEachPiece: afterEachPiece
        ) { (result, writer) throws(ReportError) in
            try writeCase(result, redactor: redactor, isFileAttributes: isFileAttributes, to: writer)
        }

        // Line by line, not one joined string: a run of 100,000 targets has ~150,000 note lines, and the string and
        // its escaped copies were ~25 MB at once. Handed on as they are written, as the test cases are, so the
        // writer's buffer stays near a megabyte.
        writer.startElement("system-out")
        writer.text(ReportText.totalsLine(counts))
        for result in results {
            let marks = ReportText.marks(result)
            if !marks.isEmpty {
                writer.text("\n" + ReportText.qualifiedName(result.contract) + ": " + marks.joined(separator: "; "))
                try afterEachPiece()
            }
        }
        for fixed in fixed {
            writer.text("\nfixed since the baseline: " + ReportText.fixedLine(fixed, redactor: redactor))
            try afterEachPiece()
        }
        try writeEach(
            results, sideBySide: sideBySide, inside: ["testsuites", "testsuite", "system-out"], to: writer,
            afterEachPiece: afterEachPiece
        ) { result, writer in
            guard result.outcome != .drifted else { return }
            let lines = ReportText.noteLines(result, redactor: redactor)
            if lines.isEmpty { return }
            let target = ReportText.qualifiedName(result.contract)
            for line in lines {  // in pieces: the escapes are the same, with no string made for each line
                writer.text("\n")
                writer.text(target)
                writer.text(": ")
                writer.text(line)
            }
        }
        try writer.fullEndElement()
        try writer.textElement("system-err", "")
        try writer.endElement()
    }

    /// Writes `piece` of each result, in order, then `afterEachPiece`. With `sideBySide`, a suite of more than
    /// `resultsPerChunk` results goes in rounds of two chunks, each written on a core of its own into memory by a
    /// writer inside the same elements (`path`), then handed on in order: the same bytes. At the end of a run of
    /// 100,000 targets, its test cases and notes were one core's work while the other had nothing left to do.
    private static func writeEach(
        _ results: [ContractResult], sideBySide: Bool, inside path: [String], to writer: XMLTextWriter,
        afterEachPiece: () throws(ReportError) -> Void,
        _ piece: (ContractResult, XMLTextWriter) throws(ReportError) -> Void
    ) throws(ReportError) {
        guard sideBySide, results.count > resultsPerChunk else {
            for result in results {
                try piece(result, writer)
                try afterEachPiece()
            }
            return
        }
        var start = 0
        while start < results.count {
            let chunks = stride(from: start, to: min(results.count, start + 2 * resultsPerChunk), by: resultsPerChunk)
                .map { $0..<min(results.count, $0 + resultsPerChunk) }
            let written = DeepStack.concurrentMap(name: "tether-junit", iterations: chunks.count) { index in
                let chunkWriter = XMLTextWriter(inside: path)
                let result = Result { () throws(ReportError) in
                    for result in results[chunks[index]] { try piece(result, chunkWriter) }
                }
                return result.map { chunkWriter.writtenBytes() }
            }
            for chunk in written {
                writer.append(try chunk.get())
                try afterEachPiece()
            }
            start = chunks[chunks.count - 1].upperBound
        }
    }

    /// How many results a chunk of `writeEach` writes: about 250 KB of passed test cases.
    static let resultsPerChunk = 4096

    private static func writeCase(
        _ result: ContractResult, redactor: Redactor, isFileAttributes: Bool, to writer: XMLTextWriter
    ) throws(ReportError) {
        writer.startElement("testcase")
        try writer.attribute("classname", nonBlank(result.contract.service, or: "unnamed"))
        try writer.attribute("name", nonBlank(result.contract.name, or: "unnamed"))
        try writer.attribute("time", maxLength: ReportText.maximumSecondsLength) {
            ReportText.writeSeconds(result.duration, into: $0)
        }
        if isFileAttributes, let place = result.contract.declaration {
            try writer.attribute("file", ReportText.clean(place.file, redactor: redactor))
            try writer.attribute("line", String(place.line))
        }
        switch result.outcome {
        case .passed:
            break
        case .drifted:
            var lines = ReportText.findingLines(result, redactor: redactor)
            lines.append(ReportText.requestLine(result, redactor: redactor))
            lines.append(ReportText.liveStatusLine(result))
            lines += ReportText.marks(result)
            if let liveURL = result.liveURL, liveURL != result.contract.request.url {
                lines.append("live URL: " + ReportText.clean(liveURL, redactor: redactor))
            }
            writer.startElement("failure")
            try writer.attribute("message", ReportText.driftSummary(result, redactor: redactor))
            try writer.attribute("type", gateType(result, otherwise: "drift"))
            writer.text(lines.joined(separator: "\n"))
            try writer.endElement()
        case .error:
            let reason = ReportText.reason(result.outcome, redactor: redactor) ?? ""
            writer.startElement("error")
            try writer.attribute("message", ReportText.firstLine(reason))
            try writer.attribute("type", gateType(result, otherwise: "transport"))
            let requestLine = ReportText.requestLine(result, redactor: redactor)
            writer.text(([reason, requestLine] + ReportText.marks(result)).joined(separator: "\n"))
            try writer.endElement()
        case .skipped:
            writer.startElement("skipped")
            try writer.attribute("message", ReportText.reason(result.outcome, redactor: redactor) ?? "")
            try writer.endElement()
        }
        try writer.endElement()
    }

    // MARK: Values

    /// The `type` of a `<failure>` or `<error>`: `pending` or `known-drift` when the result does not fail the gate
    /// (`merge-reports` reads it, so the merged run gates as each shard did), else `otherwise`.
    static func gateType(_ result: ContractResult, otherwise: String) -> String {
        if result.isPending { return pendingType }
        if result.isKnownDrift { return knownDriftType }
        return otherwise
    }

    /// The `type` of a pending target's `<failure>` or `<error>`.
    static let pendingType = "pending"
    /// The `type` of a `<failure>` whose every drift the baseline records.
    static let knownDriftType = "known-drift"

    /// Names are `xs:token` with a minimum length of one in the Ant schema: a blank one gets a stand-in.
    private static func nonBlank(_ text: String, or fallback: String) -> String {
        // A visible ASCII first byte starts a character that is not whitespace (the usual name, checked per case).
        if let first = text.utf8.first, first > 0x20 && first < 0x7F { return text }
        return text.allSatisfy(\.isWhitespace) ? fallback : text
    }

    /// A suite's distinct base URLs or sources, in the order met, cleaned and joined by `, `: at most
    /// `JUnitWriter.listedValues` of them, then `…` when there are more. A manifest's suite has one or a few; a suite
    /// of Swift targets has a source per target (`Service.name`, which its test cases name already), and 2,000 of them
    /// were a 40 KB property, a sixth of the report.
    private struct DistinctValues {
        private var values: [String] = []
        private var isCut = false

        mutating func add(_ value: String) {
            // Mostly the last value again: compared with it first, then with the few before it.
            guard !isCut, values.last != value, !values.contains(value) else { return }
            if values.count == JUnitWriter.listedValues { isCut = true } else { values.append(value) }
        }

        /// Appended in a loop: the generic `joined(separator:)` looked its conformance up at its first use in a
        /// process (0.17 M instructions of a one-contract run's 17 M).
        func joined(redactor: Redactor) -> String {
            var text = ""
            for (position, value) in values.enumerated() {
                if position > 0 { text += ", " }
                text += ReportText.clean(value, redactor: redactor)
            }
            return isCut ? text + ", " + JUnitWriter.moreValues : text
        }
    }

    /// How many base URLs or sources a suite's property lists before `moreValues` (`DistinctValues`).
    static let listedValues = 20
    /// What stands for the base URLs or sources a suite's property does not list.
    static let moreValues = "…"
}

/// The JUnit XML file of a run, as a report sink: its path is checked before anything is sent, and it is written
/// (atomically) once the run is over.
public struct JUnitFile: ReportSink {
    /// Where the report goes, e.g. `reports/junit.xml`; parent folders are created.
    public var path: String
    /// `file` and `line` on each `<testcase>` (`--junit-file-attributes`; see `JUnitWriter.xml`).
    public var isFileAttributes: Bool

    /// - Parameters:
    ///   - path: Where the report goes.
    ///   - isFileAttributes: `file` and `line` on each `<testcase>`.
    public init(path: String, isFileAttributes: Bool = false) {
        self.path = path
        self.isFileAttributes = isFileAttributes
    }

    /// Checks that the path can be written (its folders are made), before anything is sent.
    public func prepare() throws(ReportError) {
        try JUnitWriter.checkWritable(path)
    }

    /// Writes its file and nothing else: it finishes beside the console.
    public var finishesAlone: Bool { true }

    /// Writes the report; returns `JUnit report: PATH` for the console.
    public mutating func finish(_ report: RunReport) throws(ReportError) -> String? {
        try JUnitWriter.write(report, to: path, isFileAttributes: isFileAttributes)
        return "JUnit report: \(path)"
    }
}
