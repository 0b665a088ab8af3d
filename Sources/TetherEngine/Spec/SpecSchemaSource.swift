/// A loaded OpenAPI document as the schema compiler's source: references resolve through its files, and places have
/// the line and column of the value in its file.
struct SpecSchemaSource: SchemaSource {
    let document: SpecDocument
    /// The values whose places were asked for lately, so that a child's place is found from its parent's value in
    /// one step.
    private let recent = RecentNodes()

    init(document: SpecDocument) {
        self.document = document
    }

    func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue {
        let node = try document.resolve(reference, at: place)
        remember(node)
        return SchemaValue(node.value, at: node.place)
    }

    /// Keeps `node`'s value for the places of its children (a schema about to be compiled, a reference's target),
    /// which are then found without a walk from the root.
    func remember(_ node: SpecNode) {
        guard case .source(let source, let index) = node.origin else { return }
        recent.add(RecentNodes.Node(source: source, index: index, value: node.value), at: node.pointer)
    }

    func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace {
        let pointer = parent.pointer + "/" + SpecPlace.escaped(key)
        // A `%` in the key would be percent-decoded by the walk from the root, which the step does not do.
        guard !key.utf8.contains(UInt8(ascii: "%")) else { return placed(pointer, in: parent) }
        return placed(pointer, in: parent) { source, index, value in
            guard case .object(let members) = value, let (position, child) = source.member(key, of: index, in: members)
            else { return nil }
            return (child, members[position].value)
        }
    }

    func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace {
        placed(parent.pointer + "/\(index)", in: parent) { source, container, value in
            guard case .array(let elements) = value, elements.indices.contains(index) else { return nil }
            return (source.child(of: container, at: index), elements[index])
        }
    }

    /// The place of the value at `pointer`, a child of `parent`'s value that `step` finds from the parent's number
    /// and value: what following `pointer` from the root of the file finds (`placed(_:in:)`, which took half of
    /// compiling a large document's schemas, a walk of every token for every keyword of every schema), in one step
    /// when the parent's value is known. A reference object is left to that walk, which follows it on.
    private func placed(
        _ pointer: String, in parent: SpecPlace, step: (SpecSource, Int, JSONValue) -> (index: Int, value: JSONValue)?
    ) -> SpecPlace {
        guard let node = recent.node(at: parent) ?? walked(parent) else { return placed(pointer, in: parent) }
        guard let (index, value) = step(node.source, node.index, node.value) else {
            return SpecPlace(file: parent.file, pointer: pointer, line: parent.line, column: parent.column)
        }
        recent.add(RecentNodes.Node(source: node.source, index: index, value: value), at: pointer)
        guard document.store.references.followedReference(value) == nil else { return placed(pointer, in: parent) }
        let (line, column) = node.source.lineAndColumn(of: index)
        return SpecPlace(file: node.source.file, pointer: pointer, line: line, column: column)
    }

    /// The value at `place` found from the root of its file, when the walk ends on it (not on a reference's target).
    private func walked(_ place: SpecPlace) -> RecentNodes.Node? {
        guard let node = try? document.resolve(place.pointer, at: place), node.pointer == place.pointer,
            case .source(let source, let index) = node.origin, source.file == place.file
        else { return nil }
        let found = RecentNodes.Node(source: source, index: index, value: node.value)
        recent.add(found, at: place.pointer)
        return found
    }

    /// The place of the value at `pointer` in `parent`'s file, following the pointer from the root, or the parent's
    /// line and column with that pointer when the file has no such value (a schema the model made, a Swagger 2.0
    /// parameter's) or the walk ends elsewhere (a reference followed on).
    private func placed(_ pointer: String, in parent: SpecPlace) -> SpecPlace {
        if let node = try? document.resolve(pointer, at: parent), node.pointer == pointer {
            return node.place
        }
        return SpecPlace(file: parent.file, pointer: pointer, line: parent.line, column: parent.column)
    }
}

/// The values at the places a schema's compilation asked for lately, by pointer (the place's file is its source's);
/// forgotten all at once when there are many (a compilation asks for the children of the places it has just been
/// given).
private final class RecentNodes {
    struct Node {
        var source: SpecSource
        var index: Int
        var value: JSONValue
    }

    private var nodes: [String: Node] = [:]

    func node(at place: SpecPlace) -> Node? {
        guard let node = nodes[place.pointer], node.source.file == place.file else { return nil }
        return node
    }

    func add(_ node: Node, at pointer: String) {
        if nodes.count >= 32_768 { nodes.removeAll(keepingCapacity: true) }
        nodes[pointer] = node
    }
}
