import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// `JSONInputScan.count` reads eight bytes at a time; its places must be those of a walk one byte at a time, and at
/// each character's first byte those of a walk over characters.
@Suite struct LineAndColumnTests {
    /// The place of every byte offset, one byte at a time: a line feed starts a line, a byte that does not continue
    /// a UTF-8 sequence is a character (so at a character's first byte, the column is the editor's).
    private static func bytewisePlaces(_ bytes: [UInt8]) -> [(line: Int, column: Int)] {
        var places: [(line: Int, column: Int)] = [(1, 1)]
        var (line, column) = (1, 1)
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            places.append((line, column))
        }
        return places
    }

    /// The place of each character's first byte, as an editor counts them.
    private static func characterPlaces(_ text: String) -> [Int: (line: Int, column: Int)] {
        var places: [Int: (line: Int, column: Int)] = [:]
        var (offset, line, column) = (0, 1, 1)
        for scalar in text.unicodeScalars {
            places[offset] = (line, column)
            offset += String(scalar).utf8.count
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        places[offset] = (line, column)
        return places
    }

    @Test func everyOffsetOfMixedTextHasItsCharacterPlace() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "{", "\"key\": ", "\n", "é", "€", "😀", "\r\n", "  ", "x\ny", "ü\n", "0123456789"]
        for _ in 0..<200 {
            let text = (0..<Int.random(in: 0...60, using: &generator)).map { _ in pieces.randomElement()! }.joined()
            let data = Data(text.utf8)
            let expected = Self.bytewisePlaces(Array(text.utf8))
            let characters = Self.characterPlaces(text)
            for offset in 0...data.count {
                let place = JSONInputScan.lineAndColumn(ofByte: offset, in: data)
                #expect(place == expected[offset], "offset \(offset) of \(text.debugDescription)")
                if let character = characters[offset] {
                    #expect(place == character, "offset \(offset) of \(text.debugDescription)")
                }
            }
        }
    }

    @Test func aByteOrderMarkIsNotCounted() {
        let data = Data([0xEF, 0xBB, 0xBF] + Array("{\n  \"é\": 1}".utf8))
        #expect(JSONInputScan.lineAndColumn(ofByte: 3, in: data) == (1, 1))
        #expect(JSONInputScan.lineAndColumn(ofByte: 5, in: data) == (2, 1))
        #expect(JSONInputScan.lineAndColumn(ofByte: 11, in: data) == (2, 6))
    }

    /// A document's checkpoints (every 256 bytes) give the same places as counting from the start.
    @Test func documentPlacesMatchCountingFromTheStart() throws {
        let line = #"{"name": "é😀 target", "path": "/items/1"},"#
        let text = "[\n" + String(repeating: line + "\n", count: 300) + "{}]"
        let document = try JSONReader().document(Data(text.utf8))
        let data = Data(text.utf8)
        for index in stride(from: 0, to: 600, by: 7) {
            let offset = document.positions.offset(of: index, key: false)
            #expect(
                document.lineAndColumn(ofValue: index) == JSONInputScan.lineAndColumn(ofByte: offset, in: data),
                "value \(index)")
        }
    }
}
