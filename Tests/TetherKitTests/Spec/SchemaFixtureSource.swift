import Foundation
import TetherKit

/// A `SchemaSource` over JSON documents for the tests: `#/...` pointers (RFC 6901, percent-escapes too) within a
/// document, and relative files in the document's folder (`common.json#/User`, `user.json`). Places carry each
/// value's real line and column. Counts how often it is asked to resolve, so a test can see that checking never
/// does.
final class SchemaFixtureSource: SchemaSource {
    struct Document {
        var value: JSONValue
        var positions: [String: (line: Int, column: Int)]
    }

    enum Failure: Error, CustomStringConvertible {
        case noFile(String)
        case noValue(pointer: String, file: String)
        case remote(String)
        case anchor(String)

        var description: String {
            switch self {
            case .noFile(let file): "no file \(file)"
            case .noValue(let pointer, let file): "\(file) has no value at \(pointer)"
            case .remote(let reference): "\(reference) is not a relative reference"
            case .anchor(let reference): "\(reference) names an anchor, not a JSON pointer"
            }
        }
    }

    private var documents: [String: Document] = [:]
    private let folder: URL?
    /// How many `$ref`s it resolved.
    private(set) var resolveCount = 0

    /// A source whose root document is `text`, named `file`; relative references are read from `folder`.
    init(file: String, text: String, folder: URL? = nil) throws {
        self.folder = folder
        documents[file] = try Self.document(Data(text.utf8))
    }

    /// A source whose root document is the file `file` in `folder`.
    init(file: String, folder: URL) throws {
        self.folder = folder
        documents[file] = try Self.document(Data(contentsOf: folder.appendingPathComponent(file)))
    }

    /// A source over one value (a test suite's schema): places have the pointer, at line 1, column 1.
    init(file: String, value: JSONValue) {
        self.folder = nil
        documents[file] = Document(value: value, positions: [:])
    }

    /// The root document's value and place.
    func root(_ file: String) -> SchemaValue {
        SchemaValue(documents[file]?.value ?? .null, at: place(file: file, pointer: "#"))
    }

    /// The value at `pointer` in `file`, with its place.
    func value(_ file: String, _ pointer: String) throws -> SchemaValue {
        try resolve(pointer, at: place(file: file, pointer: "#"))
    }

    func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue {
        resolveCount += 1
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        var file = place.file
        if !parts[0].isEmpty {
            guard !parts[0].contains(":") else { throw Failure.remote(reference) }
            let directory = (place.file as NSString).deletingLastPathComponent
            file = directory.isEmpty ? String(parts[0]) : directory + "/" + parts[0]
            if documents[file] == nil {
                guard let folder, let data = try? Data(contentsOf: folder.appendingPathComponent(file)) else {
                    throw Failure.noFile(file)
                }
                documents[file] = try Self.document(data)
            }
        }
        guard let document = documents[file] else { throw Failure.noFile(file) }
        let fragment = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
        guard fragment.isEmpty || fragment.hasPrefix("/") else { throw Failure.anchor(reference) }
        var value = document.value
        var pointer = "#"
        for token in fragment.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object(let members):
                guard let member = members.first(where: { $0.key == key }) else {
                    throw Failure.noValue(pointer: "#" + fragment, file: file)
                }
                value = member.value
            case .array(let items):
                guard let index = Int(key), items.indices.contains(index) else {
                    throw Failure.noValue(pointer: "#" + fragment, file: file)
                }
                value = items[index]
            default:
                throw Failure.noValue(pointer: "#" + fragment, file: file)
            }
            pointer += "/" + SpecPlace.escaped(key)
        }
        return SchemaValue(value, at: self.place(file: file, pointer: pointer))
    }

    func place(ofMember key: String, in parent: SpecPlace) -> SpecPlace {
        place(file: parent.file, pointer: parent.pointer + "/" + SpecPlace.escaped(key))
    }

    func place(ofElement index: Int, in parent: SpecPlace) -> SpecPlace {
        place(file: parent.file, pointer: parent.pointer + "/\(index)")
    }

    private func place(file: String, pointer: String) -> SpecPlace {
        let position = documents[file]?.positions[pointer] ?? (1, 1)
        return SpecPlace(file: file, pointer: pointer, line: position.line, column: position.column)
    }

    // MARK: Where each value is

    private static func document(_ data: Data) throws -> Document {
        let value = try JSONValue.parse(data)
        var scanner = PositionScanner(bytes: Array(data))
        scanner.value(pointer: "#")
        return Document(value: value, positions: scanner.positions)
    }

    /// Walks JSON text (already known to be valid) and records where each value starts, by JSON pointer.
    private struct PositionScanner {
        let bytes: [UInt8]
        var offset = 0
        var line = 1
        var lineStart = 0
        var positions: [String: (line: Int, column: Int)] = [:]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) {
                if bytes[offset] == 0x0A {
                    line += 1
                    lineStart = offset + 1
                }
                offset += 1
            }
        }

        mutating func value(pointer: String) {
            skipSpace()
            guard offset < bytes.count else { return }
            let column = bytes[lineStart..<offset].filter { $0 & 0xC0 != 0x80 }.count + 1
            positions[pointer] = (line, column)
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                offset += 1
                skipSpace()
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "}") {
                    let key = string()
                    skipSpace()
                    offset += 1  // :
                    value(pointer: pointer + "/" + SpecPlace.escaped(key))
                    skipSpace()
                    if offset < bytes.count, bytes[offset] == UInt8(ascii: ",") { offset += 1 }
                    skipSpace()
                }
                offset += 1
            case UInt8(ascii: "["):
                offset += 1
                skipSpace()
                var index = 0
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "]") {
                    value(pointer: pointer + "/\(index)")
                    index += 1
                    skipSpace()
                    if offset < bytes.count, bytes[offset] == UInt8(ascii: ",") { offset += 1 }
                    skipSpace()
                }
                offset += 1
            case UInt8(ascii: "\""):
                _ = string()
            default:
                while offset < bytes.count, !",}] \t\r\n".utf8.contains(bytes[offset]) { offset += 1 }
            }
        }

        /// The string at `offset` (its quote), decoded; leaves `offset` after its closing quote.
        mutating func string() -> String {
            let start = offset
            offset += 1
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                offset += bytes[offset] == UInt8(ascii: "\\") ? 2 : 1
            }
            offset += 1
            let text = Data(bytes[start..<min(offset, bytes.count)])
            if case .string(let decoded)? = try? JSONValue.parse(text) { return decoded }
            return ""
        }
    }
}
