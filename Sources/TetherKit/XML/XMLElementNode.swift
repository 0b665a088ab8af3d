internal import CLibXML2
import Foundation

/// An XML element as libxml2 read it: name (with its namespace URI), attributes in order, children (elements and
/// text) in order. The one home for reading XML: JUnit reports and XML bodies both come through `read`.
struct XMLElementNode: Sendable {
    enum Child: Sendable {
        case element(XMLElementNode)
        case text(String)
    }

    /// The name as written, with its prefix: `atom:entry`.
    var name: String
    /// The local name, without the prefix: `entry`.
    var localName: String
    /// The namespace URI, or `nil` outside any namespace: names compare by URI, not by prefix.
    var namespace: String?
    var attributes: [(name: String, value: String, localName: String, namespace: String?)]
    var children: [Child]
    /// The line of its start tag.
    var line: Int

    /// The value of attribute `name`, if present.
    func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

    /// The child elements, in order.
    var elements: [XMLElementNode] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// The text children, joined.
    var text: String {
        children.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
    }

    /// Writes the element and everything inside it.
    func write(to writer: XMLTextWriter) throws(ReportError) {
        try writer.startElement(name)
        for attribute in attributes { try writer.attribute(attribute.name, attribute.value) }
        for child in children {
            switch child {
            case .element(let element): try element.write(to: writer)
            case .text(let text): try writer.text(text)
            }
        }
        try writer.endElement()
    }

    /// Why a document could not be read.
    enum ReadError: Error, Equatable {
        /// No bytes, or only whitespace.
        case empty
        /// libxml2's message and where (1-based line and column).
        case malformed(line: Int, column: Int, message: String)
        /// The document has a DTD that declares entities (or libxml2 stopped on an entity loop): refused, not
        /// expanded.
        case declaresEntities
        /// Parsed, but there is no root element.
        case noRoot
    }

    /// libxml2's set-up, plus an external-entity loader that refuses every resource: nothing Tether reads may
    /// make libxml2 open a file or a URL (XXE), whatever options a caller passes.
    static let isReaderReady: Bool = {
        _ = XMLTextWriter.isLibraryReady
        xmlSetExternalEntityLoader { _, _, _ in nil }
        return true
    }()

    /// Parses a document with libxml2's strict parser into its root element. Hostile documents are refused: no
    /// network, no DTD loading, no entity substitution (no `XML_PARSE_NOENT`, so no billion laughs), external
    /// entities never loaded, and a document whose DTD declares entities is an error rather than a tree.
    /// Whitespace between elements is dropped; text inside an element with no child elements is kept as it is.
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - name: The file or URL, for libxml2's own messages.
    /// - Throws: `ReadError`.
    static func read(_ data: Data, name: String) throws(ReadError) -> XMLElementNode {
        _ = isReaderReady
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { throw .empty }
        xmlResetLastError()
        let options = Int32(
            bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        // libxml2 goes on after the first error and its "last error" is the last one; the first is where the
        // document goes wrong. The handler is per thread in libxml2, so setting it around one parse is safe.
        let first = FirstError()
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(first).toOpaque()) { context, error in
            guard let context, let error else { return }
            let box = Unmanaged<FirstError>.fromOpaque(context).takeUnretainedValue()
            guard box.error == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            box.error = (
                Int(error.pointee.code), Int(error.pointee.line), Int(error.pointee.int2),
                error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            )
        }
        // The parse keeps the document libxml2 built even when the text is not well-formed (`xmlReadMemory` frees
        // it), so that the DTD read before the failure can still be looked at: a declared entity is the finding
        // then, not the undefined entity or broken tag it leads to (`%remote;` never loaded leaves `&xxe;`
        // undefined).
        let (document, isWellFormed) = data.withUnsafeBytes {
            (bytes: UnsafeRawBufferPointer) -> (xmlDocPtr?, Bool) in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                let context = xmlCreateMemoryParserCtxt(base, Int32(clamping: bytes.count))
            else { return (nil, false) }
            defer { xmlFreeParserCtxt(context) }
            _ = xmlCtxtUseOptions(context, options)
            if let input = context.pointee.input, input.pointee.filename == nil {
                // libxml2 frees it with the context (its xmlFree is `free`, as below).
                input.pointee.filename = UnsafePointer(strdup(name))
            }
            _ = xmlParseDocument(context)
            let document = context.pointee.myDoc
            context.pointee.myDoc = nil
            return (document, context.pointee.wellFormed != 0)
        }
        xmlSetStructuredErrorFunc(nil, nil)
        withExtendedLifetime(first) {}
        defer { xmlFreeDoc(document) }
        if let document {
            if let subset = document.pointee.intSubset,
                subset.pointee.entities != nil || subset.pointee.pentities != nil
            {
                throw .declaresEntities
            }
            if document.pointee.extSubset != nil { throw .declaresEntities }
        }
        guard let document, isWellFormed else {
            guard let error = first.error else { throw .empty }
            // libxml2's own guard against billion laughs stops the parse: the same refusal as a declared entity.
            if error.code == Int(XML_ERR_ENTITY_LOOP.rawValue) { throw .declaresEntities }
            throw .malformed(
                line: error.line, column: error.column,
                message: error.message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let root = xmlDocGetRootElement(document) else { throw .noRoot }
        return element(root)
    }

    /// The first error of one parse, kept by the structured error handler.
    private final class FirstError {
        var error: (code: Int, line: Int, column: Int, message: String)?
    }

    /// Reads a JUnit report: `read`, with its errors in the words of `merge-reports`.
    static func parse(_ data: Data, path: String) throws(JUnitReadError) -> XMLElementNode {
        do {
            return try read(data, name: path)
        } catch {
            switch error {
            case .empty: throw JUnitReadError(path: path, line: nil, message: "empty file: not a JUnit report")
            case .malformed(let line, _, let message):
                throw JUnitReadError(path: path, line: line, message: "not well-formed XML: " + message)
            case .declaresEntities:
                throw JUnitReadError(
                    path: path, line: nil,
                    message: "declares entities or an external DTD, which are refused: not a JUnit report")
            case .noRoot: throw JUnitReadError(path: path, line: nil, message: "no root element: not a JUnit report")
            }
        }
    }

    /// Recursive: libxml2 itself refuses documents deeper than 256 levels.
    private static func element(_ node: xmlNodePtr) -> XMLElementNode {
        var attributes: [(name: String, value: String, localName: String, namespace: String?)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let local = string(current.pointee.name)
            let namespace = current.pointee.ns.map { string($0.pointee.href) }
            let prefix = current.pointee.ns.flatMap { $0.pointee.prefix.map { string($0) } }
            let value = xmlNodeListGetString(node.pointee.doc, current.pointee.children, 1)
            attributes.append(
                (prefix.map { "\($0):\(local)" } ?? local, value.map { string($0) } ?? "", local, namespace))
            // libxml2's xmlFree is a C global that Swift 6 will not read; it is `free` unless a program swaps
            // libxml2's allocator, which Tether never does.
            free(value)
            attribute = current.pointee.next
        }
        var children: [Child] = []
        var child = node.pointee.children
        var hasElements = false
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                hasElements = true
                children.append(.element(element(current)))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { children.append(.text(string(content))) }
            case XML_ENTITY_REF_NODE:
                // Never substituted: the reference stays as written.
                children.append(.text("&\(string(current.pointee.name));"))
            default:
                break
            }
            child = current.pointee.next
        }
        if hasElements {
            children = children.filter {
                if case .text(let text) = $0 { !text.allSatisfy(\.isWhitespace) } else { true }
            }
        }
        let local = string(node.pointee.name)
        let prefix = node.pointee.ns.flatMap { $0.pointee.prefix.map { string($0) } }
        return XMLElementNode(
            name: prefix.map { "\($0):\(local)" } ?? local, localName: local,
            namespace: node.pointee.ns.map { string($0.pointee.href) }, attributes: attributes, children: children,
            line: Int(xmlGetLineNo(node)))
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }
}
