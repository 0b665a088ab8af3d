internal import CLibXML2
import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// `XMLTextWriter` writes what libxml2's text writer writes, byte for byte, for every call Tether makes: random
/// documents (nested elements, attributes, text, empty elements ended both ways, escapes, characters past ASCII,
/// controls) through both.
@Suite struct XMLTextWriterTests {
    /// The same calls on both writers.
    private enum Call {
        case start(String)
        case attribute(String, String)
        case text(String)
        case textElement(String, String)
        case end
        case fullEnd
    }

    private static let pieces = [
        "a", "testcase", "x y", "<", ">", "&", "\"", "'", "\n", "\r", "\t", "\r\n", "é", "中文", "😀", "\u{FFFD}",
        "\u{E000}", "\u{10FFFF}", "\u{1}", "\u{0}", "\u{7F}", "\u{85}", "\u{FFFE}", "&amp;", "]]>", " ", "0.001",
        "GET http://127.0.0.1:1/a?b=c&d=e",
    ]

    private static func text(_ generator: inout SplitMix) -> String {
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// A random element and its content, as calls.
    private static func element(depth: Int, _ generator: inout SplitMix) -> [Call] {
        let names = ["testsuites", "testsuite", "testcase", "failure", "system-out", "property"]
        var calls: [Call] = [.start(names.randomElement(using: &generator)!)]
        for number in 0..<Int.random(in: 0...3, using: &generator) {
            calls.append(.attribute("a\(number)", text(&generator)))
        }
        for _ in 0..<(depth < 4 ? Int.random(in: 0...4, using: &generator) : 0) {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: calls.append(.text(text(&generator)))
            case 1: calls.append(.textElement("system-err", text(&generator)))
            default: calls += element(depth: depth + 1, &generator)
            }
        }
        calls.append(Bool.random(using: &generator) ? .end : .fullEnd)
        return calls
    }

    @Test func randomDocumentsAreWrittenAsLibxml2WritesThem() throws {
        var generator = SplitMix(state: 1)  // the same documents on every run
        for _ in 0..<2_000 {
            var calls = Self.element(depth: 0, &generator)
            let isFinished = Bool.random(using: &generator)  // leave the last end tags to `finish`
            if isFinished { calls.removeLast(Int.random(in: 0...min(2, calls.count - 1), using: &generator)) }
            let ours = XMLTextWriter()
            let theirs = try LibXML2TextWriter()
            ours.startDocument()
            try theirs.startDocument()
            var open = 0
            for call in calls {
                switch call {
                case .start(let name):
                    ours.startElement(name)
                    try theirs.startElement(name)
                    open += 1
                case .attribute(let name, let value):
                    try ours.attribute(name, value)
                    try theirs.attribute(name, value)
                case .text(let text):
                    ours.text(text)
                    try theirs.text(text)
                case .textElement(let name, let text):
                    try ours.textElement(name, text)
                    try theirs.textElement(name, text)
                case .end:
                    guard open > 0 else { continue }
                    try ours.endElement()
                    try theirs.endElement()
                    open -= 1
                case .fullEnd:
                    guard open > 0 else { continue }
                    try ours.fullEndElement()
                    try theirs.fullEndElement()
                    open -= 1
                }
            }
            try ours.finish()
            try theirs.finish()
            var (mine, reference) = (Data(), Data())
            try ours.drain(ifAtLeast: 0) { mine.append(contentsOf: $0) }
            try theirs.drain(ifAtLeast: 0) { reference.append(contentsOf: $0) }
            #expect(
                String(decoding: mine, as: UTF8.self) == String(decoding: reference, as: UTF8.self),
                "calls: \(calls)")
            if mine != reference { return }
        }
    }

    /// Draining hands the bytes written so far and starts over; what is drained in parts is the whole document.
    @Test func aDocumentDrainedInPartsIsTheWholeDocument() throws {
        let writer = XMLTextWriter()
        var parts = Data()
        writer.startDocument()
        writer.startElement("testsuites")
        for number in 0..<300 {
            writer.startElement("testcase")
            try writer.attribute("name", "case \(number) é")
            try writer.endElement()
            try writer.drain(ifAtLeast: 1 << 10) { parts.append(contentsOf: $0) }
        }
        try writer.finish()
        try writer.drain(ifAtLeast: 0) { parts.append(contentsOf: $0) }
        let text = String(decoding: parts, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testcase name=\"case 0 é\"/>\n"))
        #expect(text.hasSuffix("  <testcase name=\"case 299 é\"/>\n</testsuites>\n"))
        #expect(text.components(separatedBy: "<testcase ").count == 301)
    }

    /// An attribute outside a start tag, and an end tag with nothing open, are refused as libxml2 refuses them.
    @Test func callsOutOfPlaceAreErrors() {
        let writer = XMLTextWriter()
        writer.startElement("a")
        writer.text("t")
        #expect(throws: ReportError.self) { try writer.attribute("b", "c") }
        #expect(throws: Never.self) { try writer.endElement() }
        #expect(throws: ReportError.self) { try writer.endElement() }
        #expect(throws: ReportError.self) { try writer.fullEndElement() }
    }
}

/// libxml2's own text writer over a memory buffer (what `XMLTextWriter` wrote through until it wrote the bytes
/// itself): the reference it is held to. Owns both, frees both.
///
/// Every string passes through `ReportText.escapingControls` here, so nothing XML 1.0 forbids can reach libxml2
/// (libxml2 2.9 would copy it into the document as is). Every status goes through `check`.
final class LibXML2TextWriter {
    private let buffer: xmlBufferPtr
    private let writer: xmlTextWriterPtr

    /// libxml2's global set-up must run once before any thread uses the library.
    static let isLibraryReady: Bool = {
        xmlInitParser()
        return true
    }()

    init() throws(ReportError) {
        guard Self.isLibraryReady, let buffer = xmlBufferCreate() else {
            throw .xml(message: "xmlBufferCreate: \(Self.lastError())")
        }
        guard let writer = xmlNewTextWriterMemory(buffer, 0) else {
            xmlBufferFree(buffer)
            throw .xml(message: "xmlNewTextWriterMemory: \(Self.lastError())")
        }
        self.buffer = buffer
        self.writer = writer
        try check(xmlTextWriterSetIndent(writer, 1), "xmlTextWriterSetIndent")
        try check(Self.withXMLString("  ") { xmlTextWriterSetIndentString(writer, $0) }, "xmlTextWriterSetIndentString")
    }

    deinit {
        xmlFreeTextWriter(writer)
        xmlBufferFree(buffer)
    }

    func startDocument() throws(ReportError) {
        try check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil), "xmlTextWriterStartDocument")
    }

    func startElement(_ name: String) throws(ReportError) {
        try check(Self.withXMLString(name) { xmlTextWriterStartElement(writer, $0) }, "xmlTextWriterStartElement")
    }

    func attribute(_ name: String, _ value: String) throws(ReportError) {
        let status = Self.withXMLString(name) { name in
            Self.withXMLString(ReportText.escapingControls(value)) { xmlTextWriterWriteAttribute(writer, name, $0) }
        }
        try check(status, "xmlTextWriterWriteAttribute \(name)")
    }

    func text(_ text: String) throws(ReportError) {
        let status = Self.withXMLString(ReportText.escapingControls(text)) { xmlTextWriterWriteString(writer, $0) }
        try check(status, "xmlTextWriterWriteString")
    }

    /// `<name>text</name>`, written with an end tag even when empty.
    func textElement(_ name: String, _ content: String) throws(ReportError) {
        try startElement(name)
        if !content.isEmpty { try text(content) }
        try fullEndElement()
    }

    /// Closes the element with an end tag even when it is empty (`<a></a>`, not `<a/>`).
    func fullEndElement() throws(ReportError) {
        try check(xmlTextWriterFullEndElement(writer), "xmlTextWriterFullEndElement")
    }

    func endElement() throws(ReportError) {
        try check(xmlTextWriterEndElement(writer), "xmlTextWriterEndElement")
    }

    /// Closes every open element (what is left to write is then in the buffer: see `drain`).
    func finish() throws(ReportError) {
        try check(xmlTextWriterEndDocument(writer), "xmlTextWriterEndDocument")
    }

    /// Hands what is written so far to `output` and empties the buffer, when it holds at least `bytes` bytes
    /// (flushing the writer first: libxml2 keeps up to 4 KB of its own).
    func drain(ifAtLeast bytes: Int, into output: (UnsafeRawBufferPointer) throws(ReportError) -> Void)
        throws(ReportError)
    {
        guard Int(xmlBufferLength(buffer)) >= bytes || bytes == 0 else { return }
        try check(xmlTextWriterFlush(writer), "xmlTextWriterFlush")
        guard let content = xmlBufferContent(buffer), xmlBufferLength(buffer) > 0 else { return }
        try output(UnsafeRawBufferPointer(start: content, count: Int(xmlBufferLength(buffer))))
        xmlBufferEmpty(buffer)
    }

    /// The one place a libxml2 status becomes an error: negative means failure.
    /// `call` is an autoclosure: its text (`xmlTextWriterWriteAttribute name`) is built only on failure, not for
    /// each of a report's tens of thousands of calls.
    private func check(_ status: Int32, _ call: @autoclosure () -> String) throws(ReportError) {
        if status < 0 { throw .xml(message: "\(call()): \(Self.lastError())") }
    }

    private static func lastError() -> String {
        guard let error = xmlGetLastError(), let message = error.pointee.message else { return "unknown error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `text` as the NUL-terminated `xmlChar` string libxml2 takes (escaped text holds no NUL).
    private static func withXMLString<Result>(_ text: String, _ body: (UnsafePointer<xmlChar>) -> Result) -> Result {
        text.withCString { body(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) }
    }
}
