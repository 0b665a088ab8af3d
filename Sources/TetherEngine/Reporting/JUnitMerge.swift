#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `tether merge-reports`: the JUnit reports of a sharded run (`--shard K/N`) joined into the report of the whole run.
///
/// Suites of the same service are combined into one, in order of first appearance (files in the order given);
/// their test cases are copied as they are, in file order; each suite's counts (`tests`, `failures`, `errors`,
/// `skipped`), `time` (the sum), `timestamp` (the earliest) and `id` are recomputed, its properties' values united,
/// and the totals line of its `<system-out>` recounted. The result is written as `JUnitWriter` writes (and validates
/// against both schemas it does). A target (`classname` + `name`) reported by two files is an error: the shards
/// overlapped, and the merge would count it twice.
public enum JUnitMerge {
    /// The merged report and its counts.
    public struct Merged: Sendable {
        /// The merged document, UTF-8 XML.
        public var xml: Data
        /// The counts of the whole run.
        public var counts: OutcomeCounts
        /// How many suites (services).
        public var suiteCount: Int
    }

    /// Merges the reports at `paths`.
    /// - Parameter paths: JUnit XML files, in the order their suites and test cases should appear.
    /// - Returns: The merged report.
    /// - Throws: `JUnitReadError` for a file that cannot be read, is not JUnit, or repeats a target of another.
    public static func merge(_ paths: [String]) throws(JUnitReadError) -> Merged {
        var order: [String] = []
        var suites: [String: MergedSuite] = [:]
        var reportedIn: [String: String] = [:]
        for path in paths {
            let document = try JUnitDocument.read(path)
            for suite in document.suites {
                for testCase in suite.cases {
                    let key = "\(testCase.attribute("classname") ?? suite.name).\(testCase.attribute("name") ?? "")"
                    if let other = reportedIn[key] {
                        throw JUnitReadError(
                            path: path, line: testCase.line,
                            message: "\(key) is also in \(other): the shards overlap; give each shard's report once, "
                                + "from one run split with the same --shard N")
                    }
                    reportedIn[key] = path
                }
                if suites[suite.name] == nil {
                    order.append(suite.name)
                    suites[suite.name] = MergedSuite(first: suite.element)
                }
                suites[suite.name]?.add(suite)
            }
        }
        var counts = OutcomeCounts()
        let xml: Data
        do {
            let writer = XMLTextWriter()
            writer.startDocument()
            writer.startElement("testsuites")
            for (id, name) in order.enumerated() {
                guard let suite = suites[name] else { continue }
                counts.add(suite.counts)
                try suite.write(id: id, to: writer)
            }
            try writer.endElement()
            try writer.finish()
            var bytes = Data()
            try writer.drain(ifAtLeast: 0) { bytes.append(contentsOf: $0) }
            xml = bytes
        } catch {
            throw JUnitReadError(path: paths.last ?? "", line: nil, message: "cannot write the merged report: \(error)")
        }
        return Merged(xml: xml, counts: counts, suiteCount: order.count)
    }

    /// One service's suite, gathered from every file.
    private struct MergedSuite {
        var first: XMLElementNode
        var properties: [(name: String, values: [String])] = []
        var cases: [XMLElementNode] = []
        var outLines: [String] = []
        var errText: [String] = []
        var time: Double = 0
        var timestamp: String?

        init(first: XMLElementNode) {
            self.first = first
        }

        mutating func add(_ suite: JUnitDocument.Suite) {
            cases += suite.cases
            time += suite.cases.reduce(0) { $0 + (Double($1.attribute("time") ?? "") ?? 0) }
            if let stamp = suite.element.attribute("timestamp"), timestamp.map({ stamp < $0 }) ?? true {
                timestamp = stamp
            }
            for property in suite.element.elements.filter({ $0.name == "properties" }).flatMap(\.elements)
            where property.name == "property" {
                let name = property.attribute("name") ?? ""
                // Values Tether joined with ", " (several base URLs) are united value by value.
                let values = (property.attribute("value") ?? "").componentsOfText(separatedBy: ", ")
                if name == "tether.coverage", let index = properties.firstIndex(where: { $0.name == name }) {
                    // Each shard's targets with a body contract / its targets: the merged suite's is the sum.
                    properties[index].values = [Self.coverageSum(properties[index].values[0], values[0])]
                } else if let index = properties.firstIndex(where: { $0.name == name }) {
                    for value in values where !properties[index].values.contains(value) {
                        properties[index].values.append(value)
                    }
                    if Self.isListed(name) { properties[index].values = Self.listed(properties[index].values) }
                } else {
                    properties.append((name, Self.isListed(name) ? Self.listed(values) : values))
                }
            }
            for element in suite.element.elements {
                if element.name == "system-out" {
                    outLines += element.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                        .filter { !$0.isEmpty && !MergedSuite.isTotalsLine($0) }
                } else if element.name == "system-err", !element.text.isEmpty {
                    errText.append(element.text)
                }
            }
        }

        /// Whether the property lists a suite's distinct values as `JUnitWriter` cuts them (`listed(_:)`).
        static func isListed(_ name: String) -> Bool { name == "baseURL" || name == "source" }

        /// United base URLs or sources as the writer lists a suite's (`JUnitWriter.listedValues`): the first ones,
        /// then `…` where a part had more or the union has.
        static func listed(_ values: [String]) -> [String] {
            let named = values.filter { $0 != JUnitWriter.moreValues }
            guard named.count > JUnitWriter.listedValues || named.count < values.count else { return values }
            return named.prefix(JUnitWriter.listedValues) + [JUnitWriter.moreValues]
        }

        /// `2/3` and `1/2` make `3/5`; a value that is not `covered/total` is kept as the first one.
        static func coverageSum(_ first: String, _ second: String) -> String {
            let parse = { (text: String) -> (Int, Int)? in
                let parts = text.split(separator: "/")
                guard parts.count == 2, let covered = Int(parts[0]), let total = Int(parts[1]) else { return nil }
                return (covered, total)
            }
            guard let one = parse(first), let two = parse(second) else { return first }
            return BodyCoverage(covered: one.0 + two.0, total: one.1 + two.1).description
        }

        /// `3 passed, 1 failed, 0 errors, 0 skipped`: the line `ReportText.totalsLine` writes.
        static func isTotalsLine(_ line: String) -> Bool {
            let words = line.split(separator: " ")
            guard words.count == 8, Int(words[0]) != nil, Int(words[2]) != nil, Int(words[4]) != nil,
                Int(words[6]) != nil
            else { return false }
            return words[1] == "passed," && words[3] == "failed," && ["error,", "errors,"].contains(words[5])
                && words[7] == "skipped"
        }

        var counts: OutcomeCounts {
            var counts = OutcomeCounts()
            for testCase in cases {
                let children = Set(testCase.elements.map(\.name))
                // A failure or error that did not fail its shard's gate (a known drift, a pending target) says so
                // in its type (`JUnitWriter.gateType`).
                let isExcused = testCase.elements.contains {
                    ["failure", "error"].contains($0.name)
                        && [JUnitWriter.pendingType, JUnitWriter.knownDriftType].contains($0.attribute("type") ?? "")
                }
                if children.contains("failure") {
                    counts.drifted += 1
                    if isExcused { counts.excusedDrifted += 1 }
                } else if children.contains("error") {
                    counts.errors += 1
                    if isExcused { counts.excusedErrors += 1 }
                } else if children.contains("skipped") {
                    counts.skipped += 1
                } else {
                    counts.passed += 1
                }
            }
            return counts
        }

        func write(id: Int, to writer: XMLTextWriter) throws(ReportError) {
            let counts = counts
            let name = first.attribute("name") ?? "unnamed"
            var attributes: [(String, String)] = [
                ("name", name), ("tests", String(cases.count)), ("failures", String(counts.drifted)),
                ("errors", String(counts.errors)), ("skipped", String(counts.skipped)),
                ("time", ReportText.seconds(time)),
            ]
            if let timestamp { attributes.append(("timestamp", timestamp)) }
            attributes += [
                ("hostname", first.attribute("hostname") ?? "localhost"), ("id", String(id)),
                ("package", first.attribute("package") ?? name),
            ]
            let known = Set(attributes.map(\.0))
            attributes += first.attributes.filter { !known.contains($0.name) }.map { ($0.name, $0.value) }
            writer.startElement("testsuite")
            for (key, value) in attributes { try writer.attribute(key, value) }
            writer.startElement("properties")
            for property in properties {
                writer.startElement("property")
                try writer.attribute("name", property.name)
                try writer.attribute("value", property.values.joined(separator: ", "))
                try writer.endElement()
            }
            try writer.endElement()
            for testCase in cases { try testCase.write(to: writer) }
            let totals =
                "\(counts.passed) passed, \(counts.drifted) failed, "
                + (counts.errors == 1 ? "1 error" : "\(counts.errors) errors") + ", \(counts.skipped) skipped"
            try writer.textElement("system-out", ([totals] + outLines).joined(separator: "\n"))
            try writer.textElement("system-err", errText.joined(separator: "\n"))
            try writer.endElement()
        }
    }
}

/// A JUnit report as read back: its suites, each with its test cases, as the XML holds them.
struct JUnitDocument {
    struct Suite {
        /// The suite's `name`.
        var name: String
        /// The whole `<testsuite>` element.
        var element: XMLElementNode
        /// Its `<testcase>` elements, in order.
        var cases: [XMLElementNode]
    }

    var suites: [Suite]

    /// Reads a JUnit file: a `<testsuites>` root of `<testsuite>`s, or a single `<testsuite>` root.
    static func read(_ path: String) throws(JUnitReadError) -> JUnitDocument {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JUnitReadError(path: path, line: nil, message: "cannot read it: \(fileErrorReason(error))")
        }
        let root = try XMLElementNode.parse(data, path: path)
        let suiteElements: [XMLElementNode]
        switch root.name {
        case "testsuites": suiteElements = root.elements.filter { $0.name == "testsuite" }
        case "testsuite": suiteElements = [root]
        default:
            throw JUnitReadError(
                path: path, line: root.line,
                message: "the root element is <\(root.name)>, not <testsuites> or <testsuite>: not a JUnit report")
        }
        return JUnitDocument(
            suites: suiteElements.map { element in
                Suite(
                    name: element.attribute("name") ?? "unnamed", element: element,
                    cases: element.elements.filter { $0.name == "testcase" })
            })
    }
}

/// A report that could not be read or merged: the file, the line where known, and what to do.
public struct JUnitReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The 1-based line, where known.
    public var line: Int?
    /// What is wrong.
    public var message: String
    /// The 1-based column on `line`, where known.
    public var column: Int?

    /// - Parameters: as the properties.
    public init(path: String, line: Int?, column: Int? = nil, message: String) {
        (self.path, self.line, self.column, self.message) = (path, line, column, message)
    }

    /// `path:line:column: message`.
    public var description: String { "\(ContractError.place(path, line: line, column: column)): \(message)" }
}
