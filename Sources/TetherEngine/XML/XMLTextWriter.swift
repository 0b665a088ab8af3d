/// Writes an XML document (JUnit's) into memory, byte for byte as libxml2's text writer
/// (`xmlNewTextWriterMemory`, indented with two spaces) writes it, for the calls Tether makes. Not `Sendable`; lives
/// inside one call.
///
/// Our own rather than libxml2's: its writer took 1,263 instructions an attribute, and a JUnit file is three
/// attributes a test case (192 M instructions of a 5-version run of 2,000 targets, the longest step after the
/// requests). `XMLTextWriterTests` holds it to libxml2's output on random documents. libxml2 still reads every XML
/// Tether is given (`XMLElementNode`) and checks schemas.
///
/// What libxml2's writer does, and so this one:
/// - an element's start tag is closed (`>` and a line feed) when a child starts, and its text begins (`>` only);
/// - a start tag is indented by two spaces a level; an end tag after text is not, after a child it is;
/// - an element with nothing in it ends `/>` (`endElement`) or `></name>` (`fullEndElement`);
/// - text escapes `<`, `>`, `&`, `"` and carriage return; an attribute value also line feed and tab. Everything
///   else, every character past ASCII included, is written as it is (UTF-8).
///
/// Every string passes through `ReportText.escapingControls` first, so nothing XML 1.0 forbids is written.
final class XMLTextWriter {
    /// An open element: its name, and whether its start tag is still open (`<name a="1"`).
    private struct Open {
        var name: String
        var isTagOpen: Bool
    }

    // Unchecked: the writer lives inside one call on one thread; the checks were a tenth of its time.
    @exclusivity(unchecked) private var bytes = ByteBuffer()
    @exclusivity(unchecked) private var open: [Open] = []
    /// Whether an end tag after a child element is indented: cleared by text, set by every end tag (libxml2's
    /// `doindent`).
    private var indentsEndTag = true

    init() {}

    /// A writer for children of an element another writer has open, with its start tag ended (`openForChildren`, or
    /// a child or text written already): what it writes is what that writer would have written there, to be handed
    /// on in its place (`append`).
    /// - Parameter parents: The open elements' names, the outermost first (`"testsuites", "testsuite"`).
    init(inside parents: [String]) {
        open = parents.map { Open(name: $0, isTagOpen: false) }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>` and a line feed.
    func startDocument() {
        bytes.append(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n")
    }

    func startElement(_ name: String) {
        closeStartTag(lineFeed: true)
        open.append(Open(name: name, isTagOpen: true))
        indent()
        bytes.append(UInt8(ascii: "<"))
        bytes.append(name)
    }

    /// ` name="value"` in the open start tag.
    /// - Throws: `ReportError.xml` when no start tag is open (after text or a child): libxml2 refuses it too.
    func attribute(_ name: String, _ value: String) throws(ReportError) {
        try startAttribute(name)
        if !appendPlain(value, isAttribute: true) {
            escape(ReportText.escapingControls(value), isAttribute: true)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// ` name="value"` in the open start tag, the value's bytes written in place by `write` (at most `maxLength`
    /// of them; it returns how many), which needs no escape (digits and a point: a test case's `time`).
    /// - Throws: `ReportError.xml` when no start tag is open.
    func attribute(
        _ name: String, maxLength: Int, writing write: (UnsafeMutableBufferPointer<UInt8>) -> Int
    ) throws(ReportError) {
        try startAttribute(name)
        bytes.append(maxLength: maxLength, write)
        bytes.append(UInt8(ascii: "\""))
    }

    /// ` name="` in the open start tag (its open flag read in place: a copy of the element's name for each of a
    /// report's attributes was a tenth of writing it).
    private func startAttribute(_ name: String) throws(ReportError) {
        guard let last = open.indices.last, open[last].isTagOpen else {
            throw .xml(message: "attribute \(name) outside a start tag")
        }
        bytes.append(UInt8(ascii: " "))
        bytes.append(name)
        bytes.append("=\"" as StaticString)
    }

    func text(_ text: String) {
        closeStartTag(lineFeed: false)
        indentsEndTag = false
        if !appendPlain(text, isAttribute: false) {
            escape(ReportText.escapingControls(text), isAttribute: false)
        }
    }

    /// `<name>text</name>`, written with an end tag even when empty.
    func textElement(_ name: String, _ content: String) throws(ReportError) {
        startElement(name)
        if !content.isEmpty { text(content) }
        try fullEndElement()
    }

    /// Closes the element with an end tag even when it is empty (`<a></a>`, not `<a/>`).
    /// - Throws: `ReportError.xml` when no element is open.
    func fullEndElement() throws(ReportError) {
        guard let last = open.indices.last else { throw .xml(message: "an end tag with no element open") }
        if open[last].isTagOpen {
            bytes.append(UInt8(ascii: ">"))
            indentsEndTag = false
        }
        endTag()
    }

    /// Closes the element: `/>` when it is empty, else its end tag.
    /// - Throws: `ReportError.xml` when no element is open.
    func endElement() throws(ReportError) {
        guard let last = open.indices.last else { throw .xml(message: "an end tag with no element open") }
        if open[last].isTagOpen {
            indentsEndTag = true
            bytes.append("/>\n" as StaticString)
            open.removeLast()
        } else {
            endTag()
        }
    }

    /// Closes every open element.
    func finish() throws(ReportError) {
        while !open.isEmpty { try endElement() }
    }

    /// Ends the innermost element's start tag as its first child would (`>` and a line feed), for children written by
    /// other writers (`init(inside:)`).
    func openForChildren() {
        closeStartTag(lineFeed: true)
    }

    /// Adds what another writer wrote (`init(inside:)`, `writtenBytes`) as it is.
    func append(_ written: [UInt8]) {
        written.withUnsafeBufferPointer { bytes.append($0) }
    }

    /// What is written so far, as bytes.
    func writtenBytes() -> [UInt8] { Array(bytes.written) }

    /// Hands what is written so far to `output` and empties the buffer, when it holds at least `count` bytes (or
    /// anything at all, for 0).
    func drain(ifAtLeast count: Int, into output: (UnsafeRawBufferPointer) throws(ReportError) -> Void)
        throws(ReportError)
    {
        guard bytes.count >= count || count == 0, bytes.count > 0 else { return }
        try output(bytes.written)
        bytes.removeAll()  // its memory is reused by the next part
    }

    // MARK: - Bytes

    /// `</name>` of the innermost element and a line feed, indented when its last content was a child element.
    private func endTag() {
        if indentsEndTag { indent() }
        indentsEndTag = true
        bytes.append("</" as StaticString)
        bytes.append(open[open.count - 1].name)
        bytes.append(">\n" as StaticString)
        open.removeLast()
    }

    /// Ends the open start tag of the innermost element, if it is open: `>`, and a line feed before a child.
    private func closeStartTag(lineFeed: Bool) {
        guard let last = open.indices.last, open[last].isTagOpen else { return }
        open[last].isTagOpen = false
        bytes.append(UInt8(ascii: ">"))
        if lineFeed { bytes.append(UInt8(ascii: "\n")) }
    }

    /// Two spaces for each open element but the innermost.
    private func indent() {
        for _ in 0..<max(0, open.count - 1) {
            bytes.append(UInt8(ascii: " "))
            bytes.append(UInt8(ascii: " "))
        }
    }

    /// Appends `text` as it is, in one pass, when nothing in it is escaped (most names, times and counts): no markup
    /// character, no control character but tab and line feed in text, and no byte that may start a scalar
    /// `ReportText.escapingControls` escapes (`C2` of the C1 controls, `EF` of U+FFFE and U+FFFF). False, with
    /// nothing appended, for anything else (`escape` then writes it).
    private func appendPlain(_ text: String, isAttribute: Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { input in
            // One table lookup a byte (a `switch` over the byte was 20 instructions a byte).
            let (escapes, stop): ([UInt8], UInt8) = (Self.escapes, isAttribute ? 3 : 1)
            for byte in input where escapes[Int(byte)] & stop != 0 { return false }
            bytes.append(input)
            return true
        } ?? false
    }

    /// For each byte, what `appendPlain` does not write as it is: bit 0, in text and attribute values (markup,
    /// controls but tab and line feed, DEL, and `C2` and `EF`, which may start a scalar `escapingControls`
    /// escapes); bit 1, in attribute values only (tab and line feed).
    private static let escapes: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), 0x7F, 0xC2, 0xEF: 1
        case 0x09, 0x0A: 2
        case ..<0x20: 1
        default: 0
        }
    }

    /// `text` escaped as libxml2's writer escapes text or an attribute value, copying the runs between escapes (each
    /// escaped character is one ASCII byte, so no run splits a UTF-8 sequence).
    private func escape(_ text: String, isAttribute: Bool) {
        var text = text
        text.withUTF8 { input in
            var copied = 0  // input[copied..<index] is not yet in `bytes`
            for index in input.indices {
                let replacement: StaticString
                switch input[index] {
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case 0x0D: replacement = "&#13;"
                case 0x0A where isAttribute: replacement = "&#10;"
                case 0x09 where isAttribute: replacement = "&#9;"
                default: continue
                }
                bytes.append(UnsafeBufferPointer(rebasing: input[copied..<index]))
                replacement.withUTF8Buffer { bytes.append($0) }
                copied = index + 1
            }
            bytes.append(UnsafeBufferPointer(rebasing: input[copied...]))
        }
    }
}

/// The bytes written so far, in memory of our own: appending copies with `memcpy`, without an array's uniqueness
/// and exclusivity checks on each of a report's hundreds of thousands of small pieces.
private struct ByteBuffer: ~Copyable {
    private var start = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
    private var capacity = 1 << 16
    private(set) var count = 0

    deinit { start.deallocate() }

    /// What is written, until the next change.
    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    mutating func removeAll() { count = 0 }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let base = piece.baseAddress, piece.count > 0 else { return }
        reserve(piece.count)
        (start + count).update(from: base, count: piece.count)
        count += piece.count
    }

    mutating func append(_ text: String) {
        // In place, with no copy of the string for `withUTF8` (a bridged string, not contiguous, is copied).
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            var text = text
            text.withUTF8 { append($0) }
        }
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Appends what `write` writes in place, at most `maxLength` bytes (it returns how many).
    mutating func append(maxLength: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        reserve(maxLength)
        count += write(UnsafeMutableBufferPointer(start: start + count, count: maxLength))
    }

    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let grown = max(capacity * 2, count + more)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: start, count: count)
        start.deallocate()
        (start, capacity) = (moved, grown)
    }
}
