/// A loaded document as the schema compiler reads it: a `$ref` resolved through the document's files, and each part
/// of a schema placed at its own line and column (found by its pointer in its file).
struct SpecSchemaSource: SchemaSource {
    let document: SpecDocument

    func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue {
        let node = try document.resolve(reference, at: place)
        return SchemaValue(node.value, at: node.place)
    }

    func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace {
        placed(parent.pointer + "/" + SpecPlace.escaped(key), in: parent)
    }

    func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace {
        placed(parent.pointer + "/\(index)", in: parent)
    }

    /// The place of the value at `pointer` in `parent`'s file, or the parent's line and column with that pointer
    /// when the file has no such value (a schema the model made, a Swagger 2.0 parameter's).
    private func placed(_ pointer: String, in parent: SpecPlace) -> SpecPlace {
        if let node = try? document.resolve(pointer, at: parent), node.pointer == pointer {
            return node.place
        }
        return SpecPlace(file: parent.file, pointer: pointer, line: parent.line, column: parent.column)
    }
}
