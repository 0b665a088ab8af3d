import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// A long manifest's targets read in two halves, on two threads (`JSONReader.document(_:deferring:inTwoAt:)`): the
/// document (values, places, deferred stubs) and every error must be exactly those of one reader.
@Suite struct JSONReaderInTwoTests {
    static let stubs: [JSONPathPattern.Step] = [.key("targets"), .any, .key("sampleData"), .key("json")]

    /// A manifest of `count` targets, over `SecondHalf.minimumBytes` from about 1,500 on. Their stubs hold arrays of
    /// objects (`, {` inside a stub), some names hold `,{` inside a string, and the targets are written in three
    /// ways (`,{`, `, {`, `,\n  {`): the middle's guess may land on any of these.
    static func manifest(targets count: Int, seed: Int) -> String {
        var text = #"{"service": "Two", "baseURL": "https://two.test", "targets": ["# + "\n"
        for index in 0..<count {
            let separator = index == 0 ? "" : [",", ", ", ",\n  "][(index + seed) % 3]
            let name = (index + seed) % 7 == 0 ? #"t\#(index),{odd}"# : "t\(index)"
            text += separator + #"{"name": "\#(name)", "path": "/r/\#(index)", "sampleData": {"json": "#
            text += #"{"id": \#(index), "items": [{"a": 1}, {"b": [{"c": null}, {"d": "x,{y"}]}], "#
            text += #""text": "Dépôt ✓ \#(String(repeating: "p", count: 80 + index % 40))", "n": -1.5e3}}"#
            text += (index + seed) % 5 == 0 ? #", "headers": {"X-A": "b"}}"# : "}"
        }
        return text + "\n], \"description\": \"after the targets\"}\n"
    }

    /// The document read both ways, or the error each gives.
    static func readBothWays(_ bytes: Data) -> (
        one: Result<JSONDocument, JSONParseError>, two: Result<JSONDocument, JSONParseError>
    ) {
        let one = Result { () throws(JSONParseError) in try JSONReader().document(bytes, deferring: stubs) }
        let two = Result { () throws(JSONParseError) in
            try JSONReader().document(bytes, deferring: stubs, inTwoAt: "targets")
        }
        return (one, two)
    }

    static func expectSame(_ one: JSONDocument, _ two: JSONDocument) {
        #expect(one.root == two.root)
        #expect(one.positions == two.positions)
        #expect(one.deferredValues == two.deferredValues)
        for index in one.deferredValues.prefix(50) + one.deferredValues.suffix(50) {
            #expect(one.deferredText(of: index) == two.deferredText(of: index))
            #expect(one.lineAndColumn(ofValue: index) == two.lineAndColumn(ofValue: index))
        }
    }

    @Test(arguments: 0..<6) func aLongManifestReadInTwoIsTheManifestReadInOne(seed: Int) throws {
        let bytes = Data(Self.manifest(targets: 2_500 + seed * 97, seed: seed).utf8)
        #expect(bytes.count >= 256 << 10)
        let (one, two) = Self.readBothWays(bytes)
        let first = try one.get()
        let second = try two.get()
        #expect(!first.isReadInTwo)
        Self.expectSame(first, second)
        if case .array(let targets) = first.root["targets"] { #expect(targets.count == 2_500 + seed * 97) }
    }

    @Test func theSecondHalfIsTakenWhenTheGuessIsATarget() throws {
        // Found by the seeds above: at least one of them guesses a target's start, and the others read on alone.
        let taken = try (0..<6).filter { seed in
            try JSONReader().document(
                Data(Self.manifest(targets: 2_500 + seed * 97, seed: seed).utf8), deferring: Self.stubs,
                inTwoAt: "targets"
            ).isReadInTwo
        }
        #expect(!taken.isEmpty)
    }

    @Test func aGuessInsideAStringIsNotTaken() throws {
        // Every `,{` from the middle to the first target after it is inside a string: the guess is there.
        var text = Self.manifest(targets: 1_800, seed: 1)
        let middle = text.utf8.count / 2
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: middle)
        let cut = try #require(text[start...].range(of: "\"path\""))
        text.insert(contentsOf: #""note": ",{\"name\": 1}", "#, at: cut.lowerBound)
        let (one, two) = Self.readBothWays(Data(text.utf8))
        Self.expectSame(try one.get(), try two.get())
    }

    @Test(arguments: [0.1, 0.45, 0.5, 0.55, 0.75, 0.98])
    func anErrorAnywhereIsTheOneReadersError(at fraction: Double) throws {
        // A broken byte (a value where a key must be) in the first half, at the guess, in the second half, near
        // the end: the same error, at the same place.
        var bytes = Array(Self.manifest(targets: 2_600, seed: 2).utf8)
        var at = Int(Double(bytes.count) * fraction)
        while bytes[at] != UInt8(ascii: "\"") || bytes[at - 1] != UInt8(ascii: "{") { at += 1 }
        bytes[at] = UInt8(ascii: "7")
        let (one, two) = Self.readBothWays(Data(bytes))
        guard case .failure(let first) = one, case .failure(let second) = two else {
            Issue.record("the broken manifest was read")
            return
        }
        #expect(first == second)
        #expect(first.line != nil)
    }

    @Test func aManifestWhoseTargetsAreNotTheLongArrayIsReadAlone() throws {
        // The long array is another key's: the guess is an element of it, never of `targets`.
        let elements = (0..<4_000).map { #"{"k": \#($0), "v": "\#(String(repeating: "w", count: 60))"}"# }
        let text = #"{"targets": [], "other": ["# + elements.joined(separator: ",") + "]}"
        let (one, two) = Self.readBothWays(Data(text.utf8))
        let second = try two.get()
        #expect(!second.isReadInTwo)
        Self.expectSame(try one.get(), second)
    }
}
