#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The structure of an XML stub, compared through libxml2 as JSON stubs are through `JSONShape`: element names and
/// nesting, attributes present (values are data, not structure), text versus element content. Repeated elements
/// are merged as the elements of a JSON array are: every live `<entry>` must fit the union of the stub's `<entry>`s,
/// where an attribute or child element that only some of them have may be absent (as a key that only some elements
/// of a JSON array have), so a stub always holds against itself.
/// Names compare by namespace URI and local name, never by prefix. Live attributes and elements that the stub lacks
/// are notes, or drifts when strict. Paths are XPath-like and 1-based: `/feed/entry[3]/title`, `/feed/@version`.
struct XMLShape {
    /// What an element holds, as far as structure goes.
    enum Content: Equatable {
        /// Nothing, or only whitespace: anything may be there.
        case empty
        /// Text (or CDATA) and no child elements.
        case text
        /// Child elements (text between them, mixed content, is ignored).
        case elements
    }

    struct Name: Hashable {
        var namespace: String?
        var localName: String
    }

    /// The name as the stub writes it (with its prefix), for paths and messages.
    var name: String
    var key: Name
    /// Attribute names in first-seen order, written as the stub writes them; required when every merged element has it.
    var attributes: [(key: Name, name: String, isRequired: Bool)] = []
    var content: Content = .empty
    /// Whether some merged stub element holds text, and whether some holds child elements: a repeated element whose
    /// stub copies differ accepts both (as a JSON array whose elements differ in type).
    var hasText = false
    var hasElements = false
    /// Child element shapes, one per distinct name, in first-seen order; each merges every stub element of that name.
    var children: [XMLShape] = []
    /// Whether every element merged into the parent's shape has this child (always true for the root).
    var isRequired = true

    /// The shape of a stub's root element.
    init(_ element: XMLElementNode) {
        self.init(merging: [element])
    }

    /// The union of elements that share a name.
    private init(merging elements: [XMLElementNode]) {
        let first = elements[0]
        name = first.name
        key = Name(namespace: first.namespace, localName: first.localName)
        var groups: [Name: [XMLElementNode]] = [:]
        var order: [Name] = []
        var attributeCounts: [Name: Int] = [:]
        var childCounts: [Name: Int] = [:]
        for element in elements {
            var seenAttributes: Set<Name> = []
            for attribute in element.attributes {
                let name = Name(namespace: attribute.namespace, localName: attribute.localName)
                if !attributes.contains(where: { $0.key == name }) { attributes.append((name, attribute.name, true)) }
                if seenAttributes.insert(name).inserted { attributeCounts[name, default: 0] += 1 }
            }
            let kind = Self.content(of: element)
            if kind == .elements || (kind == .text && content == .empty) { content = kind }
            if kind == .text { hasText = true }
            if kind == .elements { hasElements = true }
            var seenChildren: Set<Name> = []
            for child in element.elements {
                let name = Name(namespace: child.namespace, localName: child.localName)
                if groups[name] == nil { order.append(name) }
                groups[name, default: []].append(child)
                if seenChildren.insert(name).inserted { childCounts[name, default: 0] += 1 }
            }
        }
        for index in attributes.indices {
            attributes[index].isRequired = attributeCounts[attributes[index].key] == elements.count
        }
        children = order.compactMap { name in
            groups[name].map { group in
                var child = XMLShape(merging: group)
                child.isRequired = childCounts[name] == elements.count
                return child
            }
        }
    }

    static func content(of element: XMLElementNode) -> Content {
        if !element.elements.isEmpty { return .elements }
        return element.text.allSatisfy(\.isWhitespace) ? .empty : .text
    }

    /// Every finding for a live body against this shape, in document order; findings repeated across the
    /// elements of a repeated element are counted on the first.
    /// - Parameters:
    ///   - live: The live body's bytes.
    ///   - isStrict: Whether live attributes and elements the stub lacks are drifts rather than notes.
    func findings(live: Data, isStrict: Bool) -> [Finding] {
        let root: XMLElementNode
        do {
            root = try XMLElementNode.read(live, name: "response body")
        } catch {
            return [Self.unreadable(live, error)]
        }
        var walk = Walk(isStrict: isStrict)
        let rootPath = XMLLocation(steps: [XMLLocation.Step(name: name)])
        if Name(namespace: root.namespace, localName: root.localName) != key {
            return [
                Finding(
                    .drift, .rootElement, at: .xml(rootPath),
                    "expected root element \(describe()), got \(Self.describe(root)): "
                        + "check the request's path, or fix the stub", expected: describe(), actual: Self.describe(root)
                )
            ]
        }
        walk.check(root, against: self, path: rootPath, generic: "/" + name)
        return walk.result()
    }

    /// `<entry>`, with its namespace when it has one: `<entry> (namespace http://www.w3.org/2005/Atom)`.
    func describe() -> String { Self.describe(localName: key.localName, namespace: key.namespace) }

    static func describe(_ element: XMLElementNode) -> String {
        describe(localName: element.localName, namespace: element.namespace)
    }

    static func describe(localName: String, namespace: String?) -> String {
        "<\(localName)>" + (namespace.map { " (namespace \($0))" } ?? " (no namespace)")
    }

    /// The finding for a live body that is not XML Tether will read.
    static func unreadable(_ live: Data, _ error: XMLElementNode.ReadError) -> Finding {
        switch error {
        case .empty:
            Finding(
                .drift, .notXML, at: .body,
                "expected an XML body, got an empty body: make sampleData empty, or fix the stub",
                expected: "XML", actual: "empty")
        case .malformed(let line, let column, let message):
            Finding(
                .drift, .notXML, at: .body,
                "expected an XML body, got \(Finding.textExcerpt(live)) (line \(line), column \(column): \(message)): "
                    + "check the request's path (an error page?), or fix the stub", expected: "XML", actual: "not XML")
        case .declaresEntities:
            Finding(
                .drift, .xmlEntities, at: .body,
                "the XML body declares entities in its DTD: refused, not expanded (no external DTDs, "
                    + "no entity expansion): make the service answer without <!ENTITY> declarations",
                expected: "XML", actual: "XML with <!ENTITY>")
        case .noRoot:
            Finding(
                .drift, .notXML, at: .body, "expected an XML body, got a document with no root element: fix the stub",
                expected: "XML", actual: "no root element")
        }
    }

    /// The walk over one live document: findings plus counts of repeats, keyed by the path without indexes.
    private struct Walk {
        let isStrict: Bool
        var findings: [Finding] = []
        var repeats: [Int] = []
        var hints: [String?] = []
        var firstByKey: [String: Int] = [:]

        init(isStrict: Bool) { self.isStrict = isStrict }

        mutating func check(_ live: XMLElementNode, against shape: XMLShape, path: XMLLocation, generic: String) {
            for attribute in shape.attributes
            where attribute.isRequired
                && !live.attributes.contains(where: {
                    Name(namespace: $0.namespace, localName: $0.localName) == attribute.key
                })
            {
                append(
                    .drift, .missingAttribute, path.attribute(attribute.name), generic: generic + "/@" + attribute.name,
                    "missing attribute (the stub has it)", hint: "make the app tolerate its absence, or fix the stub",
                    expected: "present", actual: "absent")
            }
            for attribute in live.attributes
            where !shape.attributes.contains(where: {
                $0.key == Name(namespace: attribute.namespace, localName: attribute.localName)
            }) {
                append(
                    isStrict ? .drift : .note, .extraAttribute, path.attribute(attribute.name),
                    generic: generic + "/@" + attribute.name, "attribute not in stub",
                    hint: isStrict ? "add it to the stub, or drop --strict" : nil,
                    expected: "absent", actual: "present")
            }
            let liveContent = XMLShape.content(of: live)
            switch (shape.content, liveContent) {
            case (.text, .elements) where !shape.hasElements:
                let names = Self.list(live.elements.map(\.name))
                append(
                    .drift, .content, path, generic: generic, "expected text, got child elements \(names)",
                    hint: "change the app's model, or fix the stub", expected: "text", actual: "elements")
                return
            case (.elements, .text) where !shape.hasText:
                append(
                    .drift, .content, path, generic: generic,
                    "expected child elements \(Self.list(shape.children.map(\.name))), got text "
                        + "\"\(Self.excerpt(live.text))\"",
                    hint: "change the app's model, or fix the stub", expected: "elements", actual: "text")
                return
            default:
                break
            }
            // Text where some stub copy holds text is that copy's case: its children are not asked for.
            guard shape.content == .elements, !(liveContent == .text && shape.hasText) else { return }
            let liveElements = live.elements
            for child in shape.children {
                let matching = liveElements.filter {
                    Name(namespace: $0.namespace, localName: $0.localName) == child.key
                }
                let childGeneric = generic + "/" + child.name
                guard !matching.isEmpty else {
                    // A live element of the same local name that no other stub child names either: the namespace
                    // differs. (One that another stub child names is that child's: repeated stub elements may hold
                    // `<s>` in different namespaces.)
                    if let other = liveElements.first(where: { element in
                        element.localName == child.key.localName
                            && !shape.children.contains {
                                $0.key == Name(namespace: element.namespace, localName: element.localName)
                            }
                    }) {
                        append(
                            .drift, .namespace, path.appending(child.name), generic: childGeneric,
                            "expected \(child.describe()), got \(XMLShape.describe(other))",
                            hint: "names compare by namespace URI: fix the namespace in the stub or the service",
                            expected: child.describe(), actual: XMLShape.describe(other))
                    } else if child.isRequired {
                        append(
                            .drift, .missingElement, path.appending(child.name), generic: childGeneric,
                            "missing element (the stub has \(child.describe()))",
                            hint: "make it optional in the app's model, or fix the stub", expected: "present",
                            actual: "absent")
                    }
                    continue
                }
                for (offset, element) in matching.enumerated() {
                    let position = matching.count > 1 ? offset + 1 : nil
                    check(
                        element, against: child, path: path.appending(child.name, position: position),
                        generic: childGeneric)
                }
            }
            var reported: Set<Name> = []
            for element in liveElements {
                let name = Name(namespace: element.namespace, localName: element.localName)
                guard !shape.children.contains(where: { $0.key == name || $0.key.localName == name.localName }),
                    reported.insert(name).inserted
                else { continue }
                append(
                    isStrict ? .drift : .note, .extraElement, path.appending(element.name),
                    generic: generic + "/" + element.name, "element not in stub (\(XMLShape.describe(element)))",
                    hint: isStrict ? "add it to the stub, or drop --strict" : nil, expected: "absent",
                    actual: "present")
            }
        }

        /// Adds a finding, or counts it on the first one found at the same place across repeated elements.
        mutating func append(
            _ kind: Finding.Kind, _ rule: Finding.Rule, _ path: XMLLocation, generic: String, _ message: String,
            hint: String?, expected: String, actual: String
        ) {
            let key = "\(kind) \(generic) \(message)"
            if let first = firstByKey[key] {
                repeats[first] += 1
                return
            }
            firstByKey[key] = findings.count
            findings.append(Finding(kind, rule, at: .xml(path), message, expected: expected, actual: actual))
            repeats.append(0)
            hints.append(hint)
        }

        func result() -> [Finding] {
            Finding.completed(findings, repeats: repeats, hints: hints)
        }

        static func list(_ names: [String]) -> String {
            var seen: Set<String> = []
            let unique = names.filter { seen.insert($0).inserted }
            let shown = unique.prefix(3).map { "<\($0)>" }.joined(separator: ", ")
            return unique.count > 3 ? shown + ", …" : shown
        }

        static func excerpt(_ text: String) -> String {
            let oneLine = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return oneLine.count <= 40 ? oneLine : oneLine.prefix(40) + "…"
        }
    }
}
