import Foundation
import FuzzSupport
import TetherKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

// The JUnit writer on arbitrary text (the input: `runReport(fromFields:)`; the console writer has its own fuzzer,
// `console`, on the same inputs). The writer must keep its promises:
// - the JUnit file is well-formed XML (read back with Foundation's `XMLParser`, which is libxml2's strict SAX parser),
//   with one `<testsuite>` per service and one `<testcase>` per result, each holding at most one element;
// - the file holds exactly `JUnitWriter.xml(for:)` (the output is deterministic).

private let junitPath = (scratchFolder as NSString).appendingPathComponent("reports/junit.xml")

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkJUnit(runReport(fromFields: fuzzData(bytes, size)))
    return 0
}

private func checkJUnit(_ report: RunReport) {
    do {
        try ContractReport(run: report).writeJUnit(to: junitPath)
    } catch {
        violated("the JUnit report is written", "\(error)")
    }
    guard let written = FileManager.default.contents(atPath: junitPath) else {
        violated("the JUnit report can be read back")
    }
    let check = JUnitStructure()
    let parser = XMLParser(data: written)
    parser.delegate = check
    parser.shouldResolveExternalEntities = false
    if !parser.parse() {
        let error = parser.parserError.map { "\($0)" } ?? "no error given"
        violated(
            "the JUnit report is well-formed XML",
            "line \(parser.lineNumber), column \(parser.columnNumber): \(error)\n"
                + String(decoding: written, as: UTF8.self))
    }
    if let problem = check.problem { violated("the JUnit report has the JUnit structure", problem) }
    if check.suites != max(1, report.suites.count) || check.cases != max(1, report.results.count) {
        violated(
            "one testsuite per service and one testcase per result",
            "\(check.suites) suites, \(check.cases) cases for \(report.suites.count) services, "
                + "\(report.results.count) results")
    }
    guard !report.results.isEmpty else { return }
    do {
        if try JUnitWriter.xml(for: report) != written { violated("the JUnit report is the same every time") }
    } catch {
        violated("the JUnit report is built", "\(error)")
    }
}

/// Counts suites and cases, and that a case holds at most one element and nothing nests deeper.
private final class JUnitStructure: NSObject, XMLParserDelegate {
    var suites = 0
    var cases = 0
    var problem: String?
    private var open: [String] = []
    private var childrenOfCase = 0

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let parent = open.last
        switch (parent, elementName) {
        case (nil, "testsuites"): break
        case ("testsuites", "testsuite"): suites += 1
        case ("testsuite", "properties"), ("testsuite", "system-out"), ("testsuite", "system-err"): break
        case ("properties", "property"): break
        case ("testsuite", "testcase"):
            cases += 1
            childrenOfCase = 0
        case ("testcase", "failure"), ("testcase", "error"), ("testcase", "skipped"):
            childrenOfCase += 1
            if childrenOfCase > 1 { problem = problem ?? "a testcase holds more than one element" }
        default:
            problem = problem ?? "<\(elementName)> inside <\(parent ?? "nothing")>"
        }
        open.append(elementName)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }
}
