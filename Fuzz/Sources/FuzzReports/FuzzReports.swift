import Foundation
import FuzzSupport
import TetherKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

// The JUnit and console writers on arbitrary text. Input: fields separated by the byte 0x1F (ASCII unit separator),
// read in turn as the run's hostname, then per result a control field (outcome, finding count, duration,
// status) and texts: service, target name, request URL, authorization header, source, finding paths and messages,
// the error or skip reason, the live URL. Every text can hold anything: controls, invalid UTF-8 (decoded as U+FFFD),
// XML markup, `]]>`, very long lines. The writers must keep their promises:
// - the JUnit file is well-formed XML (read back with Foundation's `XMLParser`, which is libxml2's strict SAX parser),
//   with one `<testsuite>` per service and one `<testcase>` per result, each holding at most one element;
// - the file holds exactly `JUnitWriter.xml(for:)` (the output is deterministic);
// - the console without color holds no control character but tab, line feed and carriage return, and with color
//   no escape sequence but its own;
// - streamed results, added in any order, print the report's lines in contract order.

private let junitPath = (scratchFolder as NSString).appendingPathComponent("reports/junit.xml")
private let separator: UInt8 = 0x1F

/// libFuzzer's entry: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = FieldReader(fields: fields(fuzzData(bytes, size), separator: separator))
    let report = reader.report()
    checkJUnit(report)
    checkConsole(report)
    return 0
}

/// Reads the input's fields in turn; past the end every field is empty.
private struct FieldReader {
    let fields: [Data]
    var next = 0

    mutating func data() -> Data {
        defer { next += 1 }
        return next < fields.count ? fields[next] : Data()
    }

    mutating func text() -> String { String(decoding: data(), as: UTF8.self) }

    var isAtEnd: Bool { next >= fields.count }

    mutating func report() -> RunReport {
        let hostname = text()
        var results: [ContractResult] = []
        while !isAtEnd && results.count < 32 {
            results.append(result())
        }
        // The run's secrets are its contracts' secrets, as `ContractRunner` collects them.
        return RunReport(
            results: results, startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 1.5,
            hostname: hostname, secrets: Array(Set(results.flatMap(\.contract.secrets))).sorted())
    }

    mutating func result() -> ContractResult {
        let control = [UInt8](data())
        func byte(_ index: Int) -> UInt8 { index < control.count ? control[index] : 0 }
        let service = text()
        let name = text()
        let url = text()
        let authorization = text()
        let source = text()
        let contract = Contract(
            service: service, name: name, baseURL: url,
            request: HTTPRequest(
                method: byte(1) % 2 == 0 ? "GET" : text(), url: url,
                headers: authorization.isEmpty ? [] : [HTTPHeader("Authorization", authorization)]),
            sampleData: .none, source: source, secrets: [authorization])
        var findings: [Finding] = []
        for index in 0..<Int(byte(2) % 6) {
            // Any rule, at any kind of place, with any names in it.
            let place = byte(13 + index)
            let location: Finding.Location =
                switch place % 5 {
                case 0: .status
                case 1: .header(text())
                case 2: .body
                case 3: .json(JSONLocation([.key(text()), .index(Int(place)), .key(text())]))
                default: .xml(XMLLocation(steps: [.init(name: text(), position: Int(place % 3))], attribute: text()))
                }
            let rule = Finding.Rule.allCases[Int(place) % Finding.Rule.allCases.count]
            findings.append(
                Finding(
                    byte(3) &>> UInt8(index % 8) & 1 == 0 ? .drift : .note, rule, at: location, text(),
                    expected: place % 2 == 0 ? text() : nil))
        }
        let outcome: Outcome =
            switch byte(0) % 4 {
            case 0: .passed
            case 1: .drifted
            case 2: .error(text())
            default: .skipped(text())
            }
        var duration = Double(byte(4)) / 7
        if control.count >= 13 {
            // Any bit pattern: NaN, infinities, negative zero, subnormals.
            duration = Double(bitPattern: control[5..<13].reduce(0) { $0 &<< 8 | UInt64($1) })
        }
        return ContractResult(
            contract: contract, outcome: outcome, findings: findings,
            liveStatusCode: byte(1) % 3 == 0 ? nil : Int(byte(1)) * 4, liveURL: byte(1) % 5 == 0 ? nil : text(),
            duration: duration)
    }
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

/// The escape sequences the console writes itself (ConsoleWriter's styles and reset).
private let ownSequences = [
    "\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[32m", "\u{1B}[1;31m", "\u{1B}[1;35m", "\u{1B}[33m",
]

private func checkConsole(_ report: RunReport) {
    let plain = ConsoleWriter.render(report, color: false)
    if let bad = plain.unicodeScalars.first(where: isUnsafeForTerminal) {
        violated(
            "the console without color holds no control character", "U+\(String(bad.value, radix: 16)) in\n\(plain)")
    }
    let colored = withoutOwnSequences(ConsoleWriter.render(report, color: true))
    if let bad = colored.first(where: isUnsafeForTerminal) {
        violated("the console with color writes only its own escapes", "U+\(String(bad.value, radix: 16))")
    }

    var stream = ConsoleWriter.Stream(contracts: report.results.map(\.contract), color: false)
    var streamed = ""
    for (index, result) in report.results.enumerated().reversed() {
        streamed += stream.add(result, at: index)
    }
    let closing = ConsoleWriter.closing(for: report, color: false)
    if streamed + closing != plain {
        violated("streamed results print the report's lines in contract order", "\(streamed)\nvs\n\(plain)")
    }
}

/// The console's scalars without its own escape sequences. Compared scalar by scalar, not as `String`s: a text that
/// begins with a combining mark joins the sequence's final `m` into one `Character`, and a `Character`-wise search (as
/// `replacingOccurrences` does) would not find the sequence there.
private func withoutOwnSequences(_ text: String) -> [Unicode.Scalar] {
    let scalars = Array(text.unicodeScalars)
    let sequences = ownSequences.map { Array($0.unicodeScalars) }
    var kept: [Unicode.Scalar] = []
    kept.reserveCapacity(scalars.count)
    var index = 0
    while index < scalars.count {
        if scalars[index] == "\u{1B}",
            let own = sequences.first(where: { scalars[index...].starts(with: $0) })
        {
            index += own.count
        } else {
            kept.append(scalars[index])
            index += 1
        }
    }
    return kept
}

private func isUnsafeForTerminal(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: false
    case 0x0..<0x20, 0x7F...0x9F: true
    default: false
    }
}
