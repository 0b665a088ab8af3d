import CLibXML2
import Foundation
import FuzzSupport
@_spi(Testing) import TetherKit

// The JUnit writer on arbitrary text (the input: `runReport(fromFields:)`; the console writer has its own fuzzer,
// `console`, on the same inputs). The writer must keep its promises:
// - the JUnit file is well-formed XML (read back with libxml2's strict parser: no recovery, any error or namespace
//   error fails), with one `<testsuite>` per service and one `<testcase>` per result, each holding at most one element.

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
        written = try JUnitWriter.xml(for: report, redactor: RedactorCache.redactor(for: report))
    } catch {
        violated("the JUnit report is built", "\(error)")
    }
    let check = parse(written)
    if let error = check.error {
        violated(
            "the JUnit report is well-formed XML", "\(error)\n" + String(decoding: written, as: UTF8.self))
    }
    if let problem = check.problem { violated("the JUnit report has the JUnit structure", problem) }
    if check.suites != report.suites.count || check.cases != report.results.count {
        violated(
            "one testsuite per service and one testcase per result",
            "\(check.suites) suites, \(check.cases) cases for \(report.suites.count) services, "
                + "\(report.results.count) results")
    }
}

/// The document read by libxml2's SAX parser itself, the structure checked in its callbacks. Foundation's `XMLParser`
/// (libxml2's SAX parser too) made a `String` of every name and a dictionary of every element's attributes for its
/// delegate: a thousand of the seven thousand allocations of a typical input, each costly under AddressSanitizer.
/// It was also more lenient: it recovers from errors (failing only on the error code it is left with) and never
/// tells libxml2 the document has ended, so an unclosed element passed. Here every error, namespace errors
/// included, fails.
private func parse(_ document: Data) -> JUnitStructure {
    var check = JUnitStructure()
    var handler = xmlSAXHandler()
    handler.initialized = 0xDEED_BEAF  // XML_SAX2_MAGIC: the SAX2 callbacks (and namespace checks) are used
    handler.startElementNs = { context, name, prefix, _, _, _, _, _, _ in
        context?.assumingMemoryBound(to: JUnitStructure.self).pointee.start(name, prefix: prefix)
    }
    handler.endElementNs = { context, _, _, _ in
        context?.assumingMemoryBound(to: JUnitStructure.self).pointee.open.removeLast()
    }
    handler.serror = { context, error in
        guard let error, let check = context?.assumingMemoryBound(to: JUnitStructure.self) else { return }
        check.pointee.report(error.pointee)
    }
    let parsed: Bool = document.withUnsafeBytes { raw in
        guard let base = raw.baseAddress, raw.count > 0 else { return false }  // an empty document is not XML
        guard let context = xmlCreateMemoryParserCtxt(base.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        else { return false }
        defer {
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            xmlFreeParserCtxt(context)
        }
        // Strict: no recovery, no entity substitution, no network; then our callbacks instead of the tree builder.
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        context.pointee.sax.pointee = handler
        return withUnsafeMutablePointer(to: &check) { check in
            context.pointee.userData = UnsafeMutableRawPointer(check)
            let status = xmlParseDocument(context)
            return status == 0 && context.pointee.wellFormed != 0 && context.pointee.nsWellFormed != 0
        }
    }
    if !parsed && check.error == nil { check.error = "libxml2 reports no well-formed document, and no error" }
    return check
}

/// Counts suites and cases, and that a case holds at most one element and nothing nests deeper.
private struct JUnitStructure {
    var suites = 0
    var cases = 0
    var problem: String?
    /// The first error libxml2 reported, with its place.
    var error: String?
    var open: [Element] = []
    private var childrenOfCase = 0

    enum Element: String {
        case testsuites, testsuite, properties, property, testcase, failure, error, skipped
        case systemOut = "system-out"
        case systemErr = "system-err"
        case other = "an element out of place"
    }

    /// The element names the structure knows, compared as C strings: no `String` is made for a name that is right.
    private static let names: [(Element, StaticString)] = [
        (.testsuites, "testsuites"), (.testsuite, "testsuite"), (.properties, "properties"), (.property, "property"),
        (.systemOut, "system-out"), (.systemErr, "system-err"), (.testcase, "testcase"), (.failure, "failure"),
        (.error, "error"), (.skipped, "skipped"),
    ]

    mutating func start(_ name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) {
        var element = Element.other
        if let name, prefix == nil {
            for (known, text) in Self.names where isNamed(name, text) {
                element = known
                break
            }
        }
        switch (open.last, element) {
        case (nil, .testsuites): break
        case (.testsuites, .testsuite): suites += 1
        case (.testsuite, .properties), (.testsuite, .systemOut), (.testsuite, .systemErr): break
        case (.properties, .property): break
        case (.testsuite, .testcase):
            cases += 1
            childrenOfCase = 0
        case (.testcase, .failure), (.testcase, .error), (.testcase, .skipped):
            childrenOfCase += 1
            if childrenOfCase > 1 { problem = problem ?? "a testcase holds more than one element" }
        default:
            let parent = open.last?.rawValue ?? "nothing"
            let qualified = [prefix, name].compactMap { $0.map { String(cString: $0) } }.joined(separator: ":")
            problem = problem ?? "<\(qualified)> inside <\(parent)>"
        }
        open.append(element)
    }

    /// Keeps the first error. Warnings are not failures: `XMLParser`'s `parse()` did not fail on them either.
    mutating func report(_ error: xmlError) {
        guard self.error == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.message.map { String(cString: $0) } ?? "no message"
        self.error = "line \(error.line), column \(error.int2): \(message) (libxml2 error \(error.code))"
    }
}

/// Whether libxml2's name is `text`.
private func isNamed(_ name: UnsafePointer<xmlChar>, _ text: StaticString) -> Bool {
    strcmp(
        UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self),
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
}
