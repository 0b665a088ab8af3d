import Foundation
import Testing

@testable import TetherContracts
@_spi(Testing) @testable import TetherCore

@Suite struct JSONReaderTests {
    private func readError(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONReader().value(Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("[1, 2,]", 1, 6, "not valid JSON: a comma before ']' (remove the trailing comma)"),
        ("{\n  \"a\": 1,\n}", 2, 9, "not valid JSON: a comma before '}' (remove the trailing comma)"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "not valid JSON: expected ',' or '}' after an object member, got '\"'"),
        ("{a: 1}", 1, 2, "not valid JSON: expected a key in double quotes, got 'a'"),
        ("{\"a\" 1}", 1, 6, "not valid JSON: expected ':' after the key \"a\", got '1'"),
        ("[tru]", 1, 2, "not valid JSON: malformed literal 'tru' (expected true)"),
        ("[1.]", 1, 2, "not valid JSON: malformed number 1."),
        ("[-]", 1, 2, "not valid JSON: malformed number -"),
        ("[1x]", 1, 2, "not valid JSON: malformed number 1x"),
        ("[\"a\tb\"]", 1, 4, "not valid JSON: control character U+0009 inside a string (it must be escaped)"),
        ("[\"\\x\"]", 1, 3, "not valid JSON: malformed string (a bad escape sequence: \\x)"),
        ("[\"\\ud800\"]", 1, 3, "not valid JSON: malformed string (a bad escape sequence: a lone surrogate \\uD800)"),
        ("[\"abc]", 1, 2, "not valid JSON: a string is not closed (missing quote)"),
        ("{\"é\": [1, 2", 1, 12, "not valid JSON: the input ends inside an array (missing ']')"),
        ("[1] [2]", 1, 5, "not valid JSON: text after the end of the document: '['"),
        ("// comment\n{}", 1, 1, "not valid JSON: expected a value, got '/'"),
        ("[NaN]", 1, 2, "not valid JSON: expected a value, got 'N'"),
    ])
    func errorsSayWhatAndWhere(text: String, line: Int, column: Int, detail: String) {
        let error = readError(text)
        #expect(error?.detail == detail)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test func aByteOrderMarkAtTheStartIsSkippedAndNotCounted() throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        #expect(try JSONReader().value(bom + Data(#"{"a": 1}"#.utf8)) == .object([JSONMember("a", .integer(1))]))
        let error = #expect(throws: JSONParseError.self) { try JSONReader().value(bom + Data("[1,]".utf8)) }
        #expect(error?.line == 1)
        #expect(error?.column == 3)
        // Anywhere but the start it is a character, and outside a string not JSON.
        #expect(throws: JSONParseError.self) { try JSONReader().value(Data("[1]".utf8) + bom) }
        #expect(throws: JSONParseError.self) { try JSONReader().value(bom) }
    }

    @Test func invalidUTF8IsFoundBeforeAnythingElse() {
        let error = #expect(throws: JSONParseError.self) {
            try JSONReader().value(Data("[\"a\",\n\"".utf8) + Data([0xFF]) + Data("\"]".utf8))
        }
        #expect(error?.reason == .invalidUTF8)
        #expect(error?.line == 2)
        #expect(error?.column == 2)
    }

    @Test func documentKnowsWhereEachValueAndKeyStarts() throws {
        let text = "{\n  \"service\": \"A\",\n  \"targets\": [\n    {\"name\": 1},\n    []\n  ]\n}"
        let document = try JSONReader().document(Data(text.utf8))
        // Pre-order: 0 root, 1 "A", 2 targets array, 3 first target, 4 its name, 5 the empty array.
        #expect(document.lineAndColumn(ofValue: 0) == (1, 1))
        #expect(document.lineAndColumn(ofValue: 1) == (2, 14))
        #expect(document.lineAndColumn(ofValue: 1, key: true) == (2, 3))
        #expect(document.lineAndColumn(ofValue: 2, key: true) == (3, 3))
        #expect(document.lineAndColumn(ofValue: 3) == (4, 5))
        #expect(document.lineAndColumn(ofValue: 4, key: true) == (4, 6))
        #expect(document.lineAndColumn(ofValue: 4) == (4, 14))
        #expect(document.lineAndColumn(ofValue: 5) == (5, 5))
        #expect(document.positions.next(after: 2) == 6)
        #expect(document.positions.next(after: 3) == 5)
        #expect(document.positions.next(after: 1) == 2)
    }

    @Test func documentPlacesMatchTheErrorScanWithABOMAndWideCharacters() throws {
        // Long enough to span several of the document's checkpoints, with wide characters across their edges.
        let long = (0..<300).map { #"{"é\#($0)": "😀ü"}"# + ($0 % 7 == 0 ? ",\n" : ", ") }.joined()
        let text = "{\"é😀\": [1,\n  {\"ü\": \"x\"}, " + long + "0], \"b\": null}"
        for bytes in [Data(text.utf8), Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)] {
            let document = try JSONReader().document(bytes)
            for index in 0..<document.positions.count {
                for key in [false, true] {
                    let offset = document.positions.offset(of: index, key: key)
                    let scanned = JSONInputScan.lineAndColumn(ofByte: offset, in: bytes)
                    #expect(document.lineAndColumn(ofValue: index, key: key) == scanned, "value \(index) key \(key)")
                }
            }
            #expect(document.lineAndColumn(ofValue: 0) == (1, 1))
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        let error = readError("{\"café\": ,}")
        #expect(error?.column == 10)
    }

    // MARK: - Deferred values (a manifest's inline stubs)

    /// The error of reading `bytes` with and without deferring the stubs (nil for none), to compare.
    private func bothErrors(_ bytes: Data, maxDepth: Int = 1024) -> (built: JSONParseError?, deferred: JSONParseError?)
    {
        let reader = JSONReader(maxDepth: maxDepth)
        var built: JSONParseError?
        var deferred: JSONParseError?
        do { _ = try reader.document(bytes) } catch { built = error }
        do { _ = try reader.document(bytes, deferring: ManifestLoader.inlineStubs) } catch { deferred = error }
        return (built, deferred)
    }

    private func manifest(stub: String) -> Data {
        Data(
            "{\"service\": \"A\", \"targets\": [\n  {\"name\": \"a\", \"sampleData\": {\"json\": \(stub)}},\n  {\"name\": \"b\"}\n]}"
                .utf8)
    }

    @Test(arguments: [
        "[1, 2,]", "{\n  \"a\": 1,\n}", "{\"a\": 1 \"b\": 2}", "{a: 1}", "{\"a\" 1}", "{\"ab\\u0041\" 1}", "[tru]",
        "[1.]",
        "[-]", "[1x]", "[\"a\tb\"]", "[\"\\x\"]", "[\"\\ud800\"]", "[\"\\ud800\\u0041\"]", "[\"\\u12\"]", "[\"abc]",
        "{\"é\": [1, 2", "[NaN]", "[1e400]", "[123456789012345678901234567890]",
        // Long strings (skipped eight bytes at a time) with a control character or a quote late; numbers on each
        // side of the digit counts a skip takes as in range without parsing them.
        "[\"abcdefghijklmnopqrstuvwxyz\u{7}0123\"]", "[\"abcdefghijklmnop\" \"q\"]",
        "[\(String(repeating: "9", count: 309)).5]", "[\(String(repeating: "9", count: 308)).5, x]",
        "[1234567890123456789, x]", "[-123456789012345678, x]",
        "{\"a\": [{\"b\": [[]]}, {}], \"c\": \"\\u00e9\"}",
        "", "{", "[", "{\"a\"", "{\"a\":", "[1 2]", "{\"a\": 1,", "\"", "nul", "[[[[[[[[1]]]]]]]]", "[[[[[[[[]]]]]]]]",
    ])
    func aDeferredValueFailsExactlyAsABuiltOne(stub: String) {
        for maxDepth in [1024, 8, 6] {
            let (built, deferred) = bothErrors(manifest(stub: stub), maxDepth: maxDepth)
            #expect(deferred?.detail == built?.detail, "\(stub) at depth \(maxDepth)")
            #expect(deferred?.reason == built?.reason)
            #expect(deferred?.line == built?.line)
            #expect(deferred?.column == built?.column)
        }
    }

    @Test func aDeferredValueKeepsItsTextAndLeavesNullInTheTree() throws {
        let stub = "{\"id\": 1, \"tags\": [\"a\", {\"b\": null}], \"name\": \"\\u00e9t\\u00e9\", \"x\": -1.5e3}"
        let bytes = manifest(stub: stub)
        let built = try JSONReader().document(bytes)
        let deferred = try JSONReader().document(bytes, deferring: ManifestLoader.inlineStubs)
        let target = deferred.root["targets"]?.firstElement
        #expect(target?["sampleData"]?["json"] == .null)
        // Pre-order: 0 root, 1 service, 2 targets, 3 target a, 4 its name, 5 sampleData, 6 json (deferred), 7 target b.
        let text = try #require(deferred.deferredText(of: 6))
        #expect(String(decoding: text, as: UTF8.self) == stub)
        #expect(try JSONReader().value(text) == built.root["targets"]?.firstElement?["sampleData"]?["json"])
        #expect(deferred.deferredText(of: 5) == nil)
        #expect(deferred.deferredText(of: 7) == nil)
        // Nothing inside is numbered: the next target is value 7, where it is in the file.
        #expect(deferred.positions.next(after: 6) == 7)
        #expect(deferred.positions.count == 9)
        #expect(deferred.lineAndColumn(ofValue: 7) == (3, 3))
        #expect(deferred.lineAndColumn(ofValue: 8, key: true) == (3, 4))
    }

    // MARK: - A long array's second half read on another thread (`JSONReader.tailBytes`)

    /// A manifest of `count` targets, each with a stub, written as `style` says, and `after` as the root's last
    /// members.
    private func longManifest(
        count: Int, pretty: Bool, stub: (Int) -> String, before: String = "", after: String = ""
    ) -> Data {
        let separator = pretty ? ",\n    " : ","
        let targets = (0..<count).map { index in
            pretty
                ? "{\n      \"name\": \"t\(index)\",\n      \"sampleData\": {\"json\": \(stub(index))}\n    }"
                : "{\"name\":\"t\(index)\",\"sampleData\":{\"json\":\(stub(index))}}"
        }
        let open =
            pretty
            ? "{\n  \"service\": \"A\",\(before)\n  \"targets\": [\n    " : "{\"service\":\"A\",\(before)\"targets\":["
        return Data((open + targets.joined(separator: separator) + "]" + after + "}").utf8)
    }

    /// Expects `bytes` to read the same in one thread and in two halves (`JSONReader.halvesDiffer`), and returns the
    /// second reading.
    @discardableResult
    private func sameReadingBothWays(_ bytes: Data, maxDepth: Int = 1024, _ comment: Comment) -> JSONDocument? {
        let (difference, document) = JSONReader(maxDepth: maxDepth).halvesDiffer(
            bytes, deferring: ManifestLoader.inlineStubs)
        #expect(difference == nil, comment)
        return document
    }

    @Test func aLongArraysTailReadOnAnotherThreadGivesTheSameDocument() throws {
        let stubs: [(Int) -> String] = [
            { "{\"id\": \($0), \"tags\": [\"a\", \"b\"], \"owner\": {\"login\": \"o\"}, \"x\": null}" },
            // A stub whose own arrays hold objects that open with the targets' first key: guesses inside stubs.
            { "[{\"name\": \"n\($0)\"}, {\"name\": [1, {\"name\": 2}]}]" },
            // A string that holds what a target's start looks like.
            { "\",{\\\"name\\\": \\\"x\($0)\\\"}, {\\\"name\\\"\"" },
        ]
        for (kind, stub) in stubs.enumerated() {
            for pretty in [false, true] {
                for count in [1, 2, 3, 40] {
                    for after in ["", ", \"after\": [{\"name\": 1}]"] {
                        sameReadingBothWays(
                            longManifest(count: count, pretty: pretty, stub: stub, after: after),
                            "stub \(kind), pretty \(pretty), \(count) targets, \(after)")
                    }
                }
            }
        }
        // The plain case is read in two halves, at a target's start, half way or later; also after other members
        // whose values are containers.
        for before in ["", " \"defaults\": {\"headers\": {\"a\": \"b\"}}, \"tags\": [[1]],"] {
            let bytes = longManifest(count: 40, pretty: true, stub: stubs[0], before: before)
            let document = try #require(sameReadingBothWays(bytes, "plain, \(before)"))
            let offset = try #require(document.tailOffset)
            #expect(offset >= bytes.count / 2 && offset < bytes.count)
            #expect(bytes[offset] == UInt8(ascii: "{"))
            #expect(document.lineAndColumn(ofValue: document.positions.count - 1, key: true).line > 1)
        }
    }

    @Test func anErrorInEitherHalfIsTheOneThreadsError() throws {
        let good = "{\"id\": 1}"
        for bad in ["{\"id\": 1,}", "{\"id\": tru}", "[1 2]", "{\"id\": \"\\x\"}", "[[[[[[[[1]]]]]]]]"] {
            for place in [0, 5, 20, 38, 39] {
                for pretty in [false, true] {
                    // 11 levels: the eight arrays nest one too deep (the root, `targets`, a target, its `sampleData`).
                    for maxDepth in [11, 1024] {
                        sameReadingBothWays(
                            longManifest(count: 40, pretty: pretty, stub: { $0 == place ? bad : good }),
                            maxDepth: maxDepth, "\(bad) in target \(place), pretty \(pretty), depth \(maxDepth)")
                    }
                }
            }
        }
        // Outside the stubs: a target's key, the array's close, what follows it.
        let text = String(decoding: longManifest(count: 40, pretty: false, stub: { _ in good }), as: UTF8.self)
        for broken in [
            text.replacingOccurrences(of: "\"name\":\"t30\"", with: "\"name\" \"t30\""),
            text.replacingOccurrences(of: "}}]}", with: "}},]}"),
            text.replacingOccurrences(of: "}}]}", with: "}}]"),
            text.replacingOccurrences(of: "}}]}", with: "}}]}x"),
        ] {
            sameReadingBothWays(Data(broken.utf8), "\(broken.suffix(40))")
        }
    }

    @Test func randomlyBrokenLongManifestsReadTheSameInOneOrTwoHalves() {
        // Manifests of targets (plain stubs, and stubs that tempt the guess), with one to three bytes inserted,
        // deleted or replaced anywhere (in a stub, a target's key, the array's brackets; the deepest stub at the depth
        // limit): both readings give the same document or error.
        var generator = SystemRandomNumberGenerator()  // a failure quotes its inputs
        let stubs: [(Int) -> String] = [
            { "{\"id\": \($0), \"a\": [true, null, {\"b\": \"c\\n\"}], \"d\": -0.5e-2}" },
            { "[{\"name\": \"n\($0)\"}, {\"name\": [1, {\"name\": 2}]}, \",{\\\"name\\\"\"]" },
        ]
        var differing: [String] = []
        var tails = 0
        for (kind, stub) in stubs.enumerated() {
            for pretty in [false, true] {
                let base = Array(longManifest(count: 6, pretty: pretty, stub: stub, after: ", \"b\": [{\"name\": 1}]"))
                for _ in 0..<1500 {
                    let bytes = Self.randomlyChanged(base, using: &generator)
                    let (difference, document) = JSONReader(maxDepth: 8).halvesDiffer(
                        Data(bytes), deferring: ManifestLoader.inlineStubs)
                    if document?.tailOffset != nil { tails += 1 }
                    if let difference {
                        differing.append("stub \(kind): \(difference): \(String(decoding: bytes, as: UTF8.self))")
                    }
                }
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
        #expect(tails > 200, "\(tails) documents read in two halves")
    }

    @Test func onlyThePathIsDeferred() throws {
        // A `json` key elsewhere, a `sampleData` outside `targets`, `targets` nested deeper: all built.
        let text =
            #"{"json": [1], "sampleData": {"json": [2]}, "x": {"targets": [{"sampleData": {"json": [3]}}]}, "targets": [{"sampleData": {"json": [4], "text": "t"}}, 5]}"#
        let document = try JSONReader().document(Data(text.utf8), deferring: ManifestLoader.inlineStubs)
        #expect(document.root["json"] == .array([.integer(1)]))
        #expect(document.root["sampleData"]?["json"] == .array([.integer(2)]))
        #expect(document.root["x"]?["targets"]?.firstElement?["sampleData"]?["json"] == .array([.integer(3)]))
        let target = document.root["targets"]?.firstElement
        #expect(target?["sampleData"]?["json"] == .null)
        #expect(target?["sampleData"]?["text"] == .string("t"))
    }

    /// `base` with one to three bytes inserted, deleted or replaced, each one of JSON's syntax, a letter, a digit, a
    /// tab or a byte of `é`.
    private static func randomlyChanged(_ base: [UInt8], using generator: inout some RandomNumberGenerator) -> [UInt8] {
        let alphabet = Array("{}[],:\"\\ abn0-.eu1".utf8) + [0x09, 0xC3, 0xA9]
        var bytes = base
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let at = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
            case 1: bytes.remove(at: at)
            default: bytes[at] = alphabet.randomElement(using: &generator)!
            }
        }
        return bytes
    }

    @Test func randomlyBrokenManifestsFailTheSameWayDeferredOrBuilt() {
        // Valid manifests with one to three bytes inserted, deleted or replaced: every error (or none) is the same.
        var generator = SystemRandomNumberGenerator()  // a failure quotes its inputs
        let base = Array(
            manifest(
                stub:
                    "{\"id\": 12, \"a\": [true, false, null, {\"b\": \"c\\n\\ud83d\\ude00\"}], \"d\": -0.5e-2, \"e\": {}}"
            ))
        var differing: [String] = []
        for _ in 0..<3000 {
            let bytes = Self.randomlyChanged(base, using: &generator)
            let (built, deferred) = bothErrors(Data(bytes), maxDepth: 5)
            if built?.detail != deferred?.detail || built?.line != deferred?.line || built?.column != deferred?.column {
                differing.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
    }

    // MARK: - Deferred values like an earlier document's (`--ref`: the versions of a manifest)

    private static let elementPath: [JSONPathPattern.Step] = [.key("targets"), .any]

    /// What a document is made of, to compare one read with an earlier document and one read without.
    private func contents(_ document: JSONDocument) -> String {
        var deferred: [String] = []
        for index in 0..<document.positions.count {
            guard let text = document.deferredText(of: index) else { continue }
            deferred.append(
                "\(index) \(document.lineAndColumn(ofValue: index)): \(String(decoding: text, as: UTF8.self))")
        }
        return "\(document.root) \(document.positions.count) \(deferred)"
    }

    private func read(_ bytes: Data, like earlier: JSONDocument? = nil) -> Result<JSONDocument, JSONParseError> {
        Result { () throws(JSONParseError) in
            try JSONReader(maxDepth: 6).document(bytes, deferring: Self.elementPath, like: earlier)
        }
    }

    @Test func anElementWithAnEarlierDocumentsBytesIsTakenAsItIs() throws {
        let earlier = try JSONReader(maxDepth: 6).document(
            Data(#"{"targets": [{"a": [1, "x"]}, [true], "text", 12, {"b": {}}, null]}"#.utf8),
            deferring: Self.elementPath)
        #expect(earlier.valuesLikeEarlier == 0)
        // The same elements: the containers and the string are taken; the number and null are read (a number the
        // earlier document ends may go on here: 123).
        let same = Data(#"{"targets": [{"a": [1, "x"]}, [true], "text", 12, {"b": {}}, null], "more": 1}"#.utf8)
        let read = try self.read(same, like: earlier).get()
        #expect(read.valuesLikeEarlier == 4)
        #expect(contents(read) == contents(try self.read(same).get()))
        let longer = Data(#"{"targets": [{"a": [1, "x"]}, [true], "text", 123, {"b": {}}, null]}"#.utf8)
        // Pre-order: 0 the root, 1 targets, 2 to 7 its elements (nothing inside them numbered).
        #expect(try self.read(longer, like: earlier).get().valuesLikeEarlier == 4)
        #expect(try self.read(longer, like: earlier).get().deferredText(of: 5).map { Array($0) } == Array("123".utf8))
        // Moved by a byte, one element changed, one inserted: only what is the same at its number is taken.
        let changed = Data(#"{ "targets": [{"a": [1, "y"]}, [true], "text", 12, {"b": {}}, null, {}]}"#.utf8)
        #expect(try self.read(changed, like: earlier).get().valuesLikeEarlier == 3)
        #expect(contents(try self.read(changed, like: earlier).get()) == contents(try self.read(changed).get()))
        let inserted = Data(#"{"targets": [{}, {"a": [1, "x"]}, [true], "text", 12, {"b": {}}, null]}"#.utf8)
        #expect(try self.read(inserted, like: earlier).get().valuesLikeEarlier == 0)
    }

    @Test func randomlyChangedVersionsReadTheSameWithOrWithoutTheEarlier() throws {
        // An earlier version, and versions of it with one to three bytes inserted, deleted or replaced: every
        // document (values, places, deferred texts) and every error is the same read either way.
        var generator = SystemRandomNumberGenerator()  // a failure quotes its inputs
        let base = Array(
            #"{"targets": [{"id": 12, "a": [true, null, {"b": "c\n\ud83d\ude00"}]}, [[[[1]]]], "t\u00e9", {"d": -0.5e-2}, {}, [], "x"]}"#
                .utf8)
        let earlier = try JSONReader(maxDepth: 6).document(Data(base), deferring: Self.elementPath)
        var differing: [String] = []
        var taken = 0
        for _ in 0..<3000 {
            let bytes = Self.randomlyChanged(base, using: &generator)
            let (alone, like) = (read(Data(bytes)), read(Data(bytes), like: earlier))
            switch (alone, like) {
            case (.success(let alone), .success(let like)):
                taken += like.valuesLikeEarlier
                if contents(alone) != contents(like) { differing.append(String(decoding: bytes, as: UTF8.self)) }
            case (.failure(let alone), .failure(let like)):
                if alone.detail != like.detail || alone.line != like.line || alone.column != like.column {
                    differing.append(String(decoding: bytes, as: UTF8.self))
                }
            default: differing.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
        #expect(taken > 1000)  // most changes leave most elements as they were
    }

    /// The reader skips a string's plain text 8 bytes at a time: a quote, a backslash or a control character at any
    /// place of the 8, and text running up to the input's last byte, are each found where a byte-by-byte reading
    /// finds them. Non-ASCII text (whose bytes are 0x80 and up) is plain.
    @Test func aStringsSpecialBytesAreFoundAtEveryPlaceOfAWord() throws {
        for length in 0..<20 {
            for place in 0...length {
                var text = String(repeating: "a", count: length)
                // An escaped quote, an escaped backslash, a non-ASCII letter: read back as written.
                for (written, read) in [("\\\"", "\""), ("\\\\", "\\"), ("é", "é"), ("\\u00e9", "é")] {
                    let index = text.index(text.startIndex, offsetBy: place)
                    var expected = text
                    expected.insert(contentsOf: read, at: expected.index(expected.startIndex, offsetBy: place))
                    var json = text
                    json.insert(contentsOf: written, at: index)
                    let value = try JSONReader().value(Data("[\"\(json)\", 1]".utf8))
                    let wanted = JSONValue.array([.string(expected), .integer(1)])
                    #expect(value == wanted, "\(written) at \(place) of \(length)")
                }
                // A raw control character is refused at its own byte.
                text.insert("\u{01}", at: text.index(text.startIndex, offsetBy: place))
                let bytes = Data("[\"\(text)\"]".utf8)
                do {
                    _ = try JSONReader().value(bytes)
                    Issue.record("a raw control character at \(place) of \(length) was read")
                } catch {
                    #expect(error.byteOffset == 2 + place, "control character at \(place) of \(length)")
                }
            }
            // A string not closed, its text running to the input's end.
            let open = Data(("[\"" + String(repeating: "b", count: length)).utf8)
            #expect(throws: JSONParseError.self) { _ = try JSONReader().value(open) }
        }
    }
}

extension JSONValue {
    fileprivate var firstElement: JSONValue? {
        guard case .array(let elements) = self else { return nil }
        return elements.first
    }
}
