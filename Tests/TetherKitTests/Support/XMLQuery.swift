@testable import TetherEngine
@testable import TetherKit

/// XPath's abbreviated location paths, enough of them for tests to point into a document read by the product's own
/// reader (`XMLElementNode.read`): steps `/name`, `//name`, `/*`, each with at most one predicate, `[n]` (1-based,
/// among the matching children of one parent) or `[@name='value']`, and a last step `/@name` or `/@*` for attributes.
/// Results come in document order, as in XPath.
extension XMLElementNode {
    /// The elements `path` selects in the document whose root element is `self`.
    func nodes(_ path: String) -> [XMLElementNode] {
        select(path).elements.map(\.element)
    }

    /// What `path` selects, as strings: attribute values for a path that ends in `/@name` or `/@*`, else each
    /// element's string value (all the text inside it, in order).
    func strings(_ path: String) -> [String] {
        let selection = select(path)
        guard let attribute = selection.attribute else { return selection.elements.map(\.element.stringValue) }
        return selection.elements.flatMap { located in
            located.element.attributes.filter { attribute == "*" || $0.name == attribute }.map(\.value)
        }
    }

    /// XPath's string value: the text of every descendant, in order.
    var stringValue: String {
        children.map { child in
            switch child {
            case .text(let text): text
            case .element(let element): element.stringValue
            }
        }
        .joined()
    }

    /// An element and where it is: the child indices from the document down, which order elements as the document
    /// does.
    private struct Located {
        var position: [Int]
        var element: XMLElementNode
    }

    private func select(_ path: String) -> (elements: [Located], attribute: String?) {
        precondition(path.hasPrefix("/"), "an absolute path: \(path)")
        // The document node: a parent whose one child is the root element.
        var context = [
            Located(
                position: [],
                element: XMLElementNode(
                    name: "", localName: "", namespace: nil, attributes: [], children: [.element(self)], line: 0))
        ]
        var rest = Substring(path)
        while !rest.isEmpty {
            let isDescendant = rest.hasPrefix("//")
            rest = rest.dropFirst(isDescendant ? 2 : 1)
            let step = rest.prefix { $0 != "/" }
            rest = rest.dropFirst(step.count)
            if step.hasPrefix("@") {
                precondition(rest.isEmpty, "an attribute step comes last: \(path)")
                return (context, String(step.dropFirst()))
            }
            let parents = isDescendant ? context.flatMap(Self.selfAndDescendants) : context
            context = parents.flatMap { Self.children($0, step: step) }
            // `//a//b` can reach one element from two parents: keep it once, in document order.
            context.sort { $0.position.lexicographicallyPrecedes($1.position) }
            var unique: [Located] = []
            for located in context where unique.last?.position != located.position { unique.append(located) }
            context = unique
        }
        return (context, nil)
    }

    private static func selfAndDescendants(_ located: Located) -> [Located] {
        [located]
            + located.element.elementsWithIndices.flatMap { index, element in
                selfAndDescendants(Located(position: located.position + [index], element: element))
            }
    }

    /// The children of `parent` that `step` (`name`, `*`, either with one predicate) selects.
    private static func children(_ parent: Located, step: Substring) -> [Located] {
        let name = step.prefix { $0 != "[" }
        var matching = parent.element.elementsWithIndices.filter { name == "*" || $0.element.name == name }
        let predicate = step.dropFirst(name.count)
        if !predicate.isEmpty {
            precondition(predicate.hasPrefix("[") && predicate.hasSuffix("]"), "a predicate in brackets: \(step)")
            let inside = predicate.dropFirst().dropLast()
            if let position = Int(inside) {
                matching = matching.indices.contains(position - 1) ? [matching[position - 1]] : []
            } else {
                let parts = inside.dropFirst().split(separator: "=", maxSplits: 1)
                precondition(inside.hasPrefix("@") && parts.count == 2, "[n] or [@name='value']: \(step)")
                let value = parts[1].dropFirst().dropLast()
                matching = matching.filter { $0.element.attribute(String(parts[0])) == String(value) }
            }
        }
        return matching.map { Located(position: parent.position + [$0.index], element: $0.element) }
    }

    /// The child elements with their places among the element children.
    private var elementsWithIndices: [(index: Int, element: XMLElementNode)] {
        Array(elements.enumerated()).map { ($0.offset, $0.element) }
    }
}
