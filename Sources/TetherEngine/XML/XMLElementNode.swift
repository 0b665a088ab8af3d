// The one Swift file that imports CLibXML2: libxml2's reader (`XMLElementNode.read`), its text writer
// (`XMLTextWriter`) and its XML Schema validation (`XMLSchema`).
internal import CLibXML2
internal import CLibraryLoader

#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
        writer.startElement(name)
        for attribute in attributes { try writer.attribute(attribute.name, attribute.value) }
        for child in children {
            switch child {
            case .element(let element): try element.write(to: writer)
            case .text(let text): writer.text(text)
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

    /// Opens libxml2 now where it is opened at its first use (Linux's release build, `Sources/CLibraryLoader`): a
    /// missing one ends the run here, with what to install (exit status 127).
    static func openLibrary() {
        tether_library_open(tether_libxml2)
    }

    /// libxml2's set-up, plus an external-entity loader that refuses every resource: nothing Tether reads may
    /// make libxml2 open a file or a URL (XXE), whatever options a caller passes.
    static let isReaderReady: Bool = {
        xmlInitParser()  // libxml2's global set-up, before any thread uses the library
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
        try withDocument(data, name: name) { (document) throws(ReadError) in
            guard let root = xmlDocGetRootElement(document) else { throw .noRoot }
            return element(root)
        }
    }

    /// Parses `data` as `read` does (the same refusals) and hands libxml2's tree to `body`, freeing it afterwards.
    /// For `XMLSchema`, in this file: the tree never leaves it.
    fileprivate static func withDocument<Result>(
        _ data: Data, name: String, _ body: (xmlDocPtr) throws(ReadError) -> Result
    ) throws(ReadError) -> Result {
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
                message: error.message.trimmingWhitespaceAndNewlines())
        }
        return try body(document)
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
            case .malformed(let line, let column, let message):
                throw JUnitReadError(
                    path: path, line: line, column: column,
                    message:
                        "not well-formed XML: \(message); a report cut short (its run stopped before writing it whole, "
                        + "or its copy did) cannot be read: write it again")
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

/// An XML Schema (XSD 1.0) compiled by libxml2, to check documents against; owns the schema and the schema's own
/// document, frees both. Not `Sendable`; lives inside one call.
///
/// Both the schema and the documents it checks are read as `XMLElementNode.read` reads: no network, no entity
/// substitution, every external resource refused (so a schema that imports or includes another file does not
/// compile), a DTD that declares entities refused.
final class XMLSchema {
    /// One complaint of libxml2's: its own text, and the line of the schema or document it names (0 when none).
    struct Problem: Equatable, Sendable {
        var line: Int
        var message: String
    }

    /// Why a schema cannot be used, or a document does not satisfy it.
    enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The schema could not be read as XML.
        case unreadableSchema(file: String, XMLElementNode.ReadError)
        /// The schema is XML that libxml2 cannot compile as a schema: its messages, in order.
        case unusableSchema(file: String, problems: [Problem])
        /// The document could not be read as XML.
        case unreadable(file: String, XMLElementNode.ReadError)
        /// The document breaks the schema: libxml2's messages, in order.
        case invalid(file: String, schema: String, problems: [Problem])

        /// One line naming the file and what is wrong, then libxml2's messages, `file:line: message`, one a line.
        var description: String {
            switch self {
            case .unreadableSchema(let file, let error): "\(Self.describe(error, file: file)) (an XML schema)"
            case .unusableSchema(let file, let problems):
                "\(file): not a usable XML schema:\n" + Self.lines(problems, file: file)
            case .unreadable(let file, let error): Self.describe(error, file: file)
            case .invalid(let file, let schema, let problems):
                "\(file): does not satisfy the schema \(schema):\n" + Self.lines(problems, file: file)
            }
        }

        /// `file:line: message`, one a line, the first ten and a count of the rest.
        private static func lines(_ problems: [Problem], file: String) -> String {
            var lines = problems.prefix(10).map { "  \(file):\($0.line): \($0.message)" }
            if problems.count > 10 { lines.append("  … and \(problems.count - 10) more") }
            return lines.joined(separator: "\n")
        }

        private static func describe(_ error: XMLElementNode.ReadError, file: String) -> String {
            switch error {
            case .empty: "\(file): empty document"
            case .malformed(let line, let column, let message):
                "\(file):\(line):\(column): not well-formed XML: \(message)"
            case .declaresEntities: "\(file): declares entities or an external DTD, which are refused"
            case .noRoot: "\(file): no root element"
            }
        }
    }

    /// The schema's name, e.g. its file name: `junit-10.xsd`.
    let name: String
    private let document: xmlDocPtr
    private let schema: xmlSchemaPtr

    /// libxml2 2.9 builds its table of built-in types on the first schema it compiles, unguarded: two threads
    /// compiling their first schemas at once race. Built once here instead.
    private static let isTypesReady: Bool = {
        _ = XMLElementNode.isReaderReady
        xmlSchemaInitTypes()  // void in libxml2 2.9, an int (discarded) from 2.11
        return true
    }()

    /// Compiles a schema.
    /// - Parameters:
    ///   - data: The schema document's bytes.
    ///   - name: Its file name or path, for messages.
    /// - Throws: `Error.unreadableSchema` or `Error.unusableSchema` with libxml2's messages and lines.
    init(_ data: Data, name: String) throws(Error) {
        _ = Self.isTypesReady
        let document: xmlDocPtr
        do {
            document = try XMLElementNode.withDocument(data, name: name) {
                (document) throws(XMLElementNode.ReadError) in
                // Kept: the compiled schema points into it. `withDocument` frees the one it hands over, so a copy.
                guard let copy = xmlCopyDoc(document, 1) else { throw .empty }
                return copy
            }
        } catch {
            throw .unreadableSchema(file: name, error)
        }
        let problems = Problems()
        guard let context = xmlSchemaNewDocParserCtxt(document) else {
            xmlFreeDoc(document)
            throw .unusableSchema(file: name, problems: [Problem(line: 0, message: "libxml2 made no parser context")])
        }
        xmlSchemaSetParserStructuredErrors(context, Problems.handler, Unmanaged.passUnretained(problems).toOpaque())
        let schema = xmlSchemaParse(context)
        xmlSchemaFreeParserCtxt(context)
        withExtendedLifetime(problems) {}
        guard let schema, problems.list.isEmpty else {
            if let schema { xmlSchemaFree(schema) }
            xmlFreeDoc(document)
            throw .unusableSchema(
                file: name,
                problems: problems.list.isEmpty
                    ? [Problem(line: 0, message: "libxml2 compiled nothing")] : problems.list)
        }
        self.name = name
        self.document = document
        self.schema = schema
    }

    deinit {
        xmlSchemaFree(schema)
        xmlFreeDoc(document)
    }

    /// Checks a document against the schema.
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - name: Its file name or path, for messages.
    /// - Throws: `Error.unreadable` when it is not XML `XMLElementNode.read` accepts, `Error.invalid` with every
    ///   message and line of libxml2's when it breaks the schema.
    func validate(_ data: Data, name: String) throws(Error) {
        let problems = Problems()
        let status: Int32
        do {
            status = try XMLElementNode.withDocument(data, name: name) { (document) throws(XMLElementNode.ReadError) in
                guard let context = xmlSchemaNewValidCtxt(schema) else { return -1 }
                defer { xmlSchemaFreeValidCtxt(context) }
                xmlSchemaSetValidStructuredErrors(
                    context, Problems.handler, Unmanaged.passUnretained(problems).toOpaque())
                return xmlSchemaValidateDoc(context, document)
            }
        } catch {
            throw .unreadable(file: name, error)
        }
        withExtendedLifetime(problems) {}
        if status == 0 && problems.list.isEmpty { return }
        throw .invalid(
            file: name, schema: self.name,
            problems: problems.list.isEmpty
                ? [Problem(line: 0, message: "libxml2 could not validate (status \(status))")] : problems.list)
    }

    /// The messages of one compilation or validation, gathered by libxml2's structured error handler.
    private final class Problems {
        var list: [Problem] = []

        static let handler: xmlStructuredErrorFunc = { context, error in
            guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let problems = Unmanaged<Problems>.fromOpaque(context).takeUnretainedValue()
            let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            problems.list.append(
                Problem(line: Int(error.pointee.line), message: message.trimmingWhitespaceAndNewlines())
            )
        }
    }
}
