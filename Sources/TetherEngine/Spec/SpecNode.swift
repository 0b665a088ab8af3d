#if canImport(FoundationEssentials) && !canImport(Darwin)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value of an OpenAPI document with its place: the value itself, and a way to reach every part of it with theirs,
/// so that any value a check looks at can be named (`openapi.yaml:812:9`,
/// `#/components/schemas/repository/properties/owner`).
///
/// Navigation does not follow `$ref`: a reference is an object with a `$ref` member, which
/// `SpecDocument.resolve(_:at:)` turns into the node it names. A YAML alias is followed (its parts have the places
/// where the anchored value is written; the pointer is the path through the document, as a JSON reader sees it).
public struct SpecNode: Sendable {
    /// The value.
    public let value: JSONValue
    /// Its JSON pointer in its file, with `#`: `#/paths/~1users/get`.
    public var pointer: String {
        guard let token else { return parentPointer }
        return parentPointer + "/" + SpecNode.escape(token)
    }
    /// The pointer, or its parent's when `token` is not `nil`: a node's pointer is joined when it is asked for, so
    /// that listing an object's members (a thousand path items, a hundred schemas) makes no string for each.
    private let parentPointer: String
    private let token: String?
    let origin: Origin

    enum Origin: Sendable {
        /// A value of a file, numbered in pre-order.
        case source(SpecSource, Int)
        /// A value the model made (a Swagger 2.0 parameter's schema, from the parameter's own keywords): it and its
        /// parts are placed where the value it was made from is.
        case made(file: String, line: Int, column: Int)
    }

    init(value: JSONValue, pointer: String, origin: Origin) {
        self.value = value
        self.parentPointer = pointer
        self.token = nil
        self.origin = origin
    }

    /// The node of a member or element named `token`, under the node whose pointer is `parent`.
    private init(value: JSONValue, parent: String, token: String, origin: Origin) {
        self.value = value
        self.parentPointer = parent
        self.token = token
        self.origin = origin
    }

    /// Reads one file into a node with places, without the OpenAPI model: JSON (`JSONReader`) when `file` ends in
    /// `.json`, YAML (libyaml, the YAML 1.2 core schema) otherwise.
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - file: Its name, for places and messages.
    ///   - limits: Bounds on nesting and YAML aliases.
    /// - Returns: The root value, placed.
    /// - Throws: `SpecError` with the line and column of the first problem.
    public static func read(_ bytes: Data, file: String, limits: SpecLimits = SpecLimits()) throws(SpecError)
        -> SpecNode
    {
        SpecNode(root: try SpecSource.read(bytes, file: file, limits: limits))
    }

    /// The root of a file.
    init(root source: SpecSource) {
        self.init(value: source.root, pointer: "#", origin: .source(source, 0))
    }

    /// The file the value is in.
    public var file: String {
        switch origin {
        case .source(let source, _): source.file
        case .made(let file, _, _): file
        }
    }

    /// Where the value is: file, pointer, line and column of its first character.
    public var place: SpecPlace {
        switch origin {
        case .source(let source, let index):
            let (line, column) = source.lineAndColumn(of: index)
            return SpecPlace(file: source.file, pointer: pointer, line: line, column: column)
        case .made(let file, let line, let column):
            return SpecPlace(file: file, pointer: pointer, line: line, column: column)
        }
    }

    /// Where the value's key is, when it is an object member (else where the value is).
    public var keyPlace: SpecPlace {
        switch origin {
        case .source(let source, let index):
            let (line, column) = source.lineAndColumn(of: index, key: true)
            return SpecPlace(file: source.file, pointer: pointer, line: line, column: column)
        case .made: return place
        }
    }

    /// The member `key` of an object, or `nil` (not an object, or no such member).
    public subscript(key: String) -> SpecNode? {
        guard case .object(let members) = value, let position = members.firstIndex(where: { $0.key == key }) else {
            return nil
        }
        return child(position, value: members[position].value, token: key)
    }

    /// The member `key`'s string value, or `nil` (no member, or not a string); read from the value, without making
    /// the member's node (no pointer, no place).
    func string(_ key: String) -> String? {
        if case .string(let text)? = value[key] { return text }
        return nil
    }

    /// The member `key`'s Boolean value, or `nil`.
    func bool(_ key: String) -> Bool? {
        if case .bool(let flag)? = value[key] { return flag }
        return nil
    }

    /// The element `index` of an array, or `nil`.
    public subscript(index: Int) -> SpecNode? {
        guard case .array(let elements) = value, elements.indices.contains(index) else { return nil }
        return child(index, value: elements[index], token: String(index))
    }

    /// An object's members in document order, each with its node (empty for anything else).
    public var members: [(key: String, node: SpecNode)] {
        guard case .object(let members) = value else { return [] }
        var result: [(key: String, node: SpecNode)] = []
        result.reserveCapacity(members.count)
        let pointer = pointer
        forEachChild(count: members.count) { position, origin in
            let member = members[position]
            result.append(
                (member.key, SpecNode(value: member.value, parent: pointer, token: member.key, origin: origin)))
        }
        return result
    }

    /// An array's elements in order, each with its node (empty for anything else).
    public var elements: [SpecNode] {
        guard case .array(let elements) = value else { return [] }
        var result: [SpecNode] = []
        result.reserveCapacity(elements.count)
        let pointer = pointer
        forEachChild(count: elements.count) { position, origin in
            result.append(
                SpecNode(value: elements[position], parent: pointer, token: String(position), origin: origin))
        }
        return result
    }

    /// The string value, or `nil`.
    public var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    /// The Boolean value, or `nil`.
    public var bool: Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    /// A JSON pointer token, escaped (RFC 6901).
    static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.utf8.count + 8)
        for byte in token.utf8 {
            switch byte {
            case UInt8(ascii: "~"): bytes += [UInt8(ascii: "~"), UInt8(ascii: "0")]
            case UInt8(ascii: "/"): bytes += [UInt8(ascii: "~"), UInt8(ascii: "1")]
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func child(_ position: Int, value: JSONValue, token: String) -> SpecNode {
        var found = origin
        if case .source(let source, let index) = origin {
            found = .source(source, source.child(of: index, at: position))
        }
        return SpecNode(value: value, parent: pointer, token: token, origin: found)
    }

    private func forEachChild(count: Int, _ body: (Int, Origin) -> Void) {
        switch origin {
        case .source(let source, let index):
            var child = source.firstChild(of: index)
            for position in 0..<count {
                body(position, .source(source, child))
                child = source.value(after: child)
            }
        case .made:
            for position in 0..<count { body(position, origin) }
        }
    }
}
