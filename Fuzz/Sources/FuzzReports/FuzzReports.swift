import Foundation
import FuzzSupport
import TetherKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

// The JUnit writer on arbitrary text (the input: `runReport(fromFields:)`; the console writer has its own fuzzer,
// `console`, on the same inputs). The writer must keep its promises:
// - the JUnit file is well-formed XML (read back with Foundation's `XMLParser`, which is libxml2's strict SAX parser),
//   with one `<testsuite>` per service and one `<testcase>` per result, each holding at most one element.

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkJUnit(runReport(fromFields: fuzzData(bytes, size)))
    return 0
}

private func checkJUnit(_ report: RunReport) {
    // The text `ContractReport.writeJUnit(to:)` writes (its tests check the file holds exactly this): writing a file
    // per input was a quarter of the fuzzer's time, in renames.
    let written: Data
    do {
        written = try JUnitWriter.xml(for: report)
    } catch {
        violated("the JUnit report is built", "\(error)")
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
    if check.suites != report.suites.count || check.cases != report.results.count {
        violated(
            "one testsuite per service and one testcase per result",
            "\(check.suites) suites, \(check.cases) cases for \(report.suites.count) services, "
                + "\(report.results.count) results")
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
