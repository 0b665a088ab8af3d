import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// libyaml's events read into values and places: every scalar form of the YAML 1.2 core schema, block and flow
/// collections, anchors and aliases (bounded), and each refusal with its line and column.
@Suite struct YAMLReaderTests {
    static func read(_ text: String, limits: SpecLimits = SpecLimits()) throws(SpecError) -> SpecNode {
        SpecNode(root: try SpecSource.read(Data(text.utf8), file: "t.yaml", limits: limits))
    }

    static func problem(_ text: String, limits: SpecLimits = SpecLimits()) -> SpecProblem? {
        do {
            _ = try read(text, limits: limits)
            return nil
        } catch {
            return error.problems.first
        }
    }

    static let scalars: [(String, JSONValue)] = [
        ("null", .null), ("Null", .null), ("NULL", .null), ("~", .null), ("", .null),
        ("true", .bool(true)), ("True", .bool(true)), ("FALSE", .bool(false)),
        ("yes", .string("yes")), ("off", .string("off")), ("nULL", .string("nULL")),
        ("12", .integer(12)), ("-12", .integer(-12)), ("+12", .integer(12)), ("017", .integer(17)),
        ("0x1F", .integer(31)), ("0o17", .integer(15)), ("0xFFFFFFFFFFFFFFFF", .unsignedInteger(UInt64.max)),
        ("9223372036854775807", .integer(Int64.max)),
        ("9223372036854775808", .unsignedInteger(9_223_372_036_854_775_808)),
        ("-9223372036854775808", .integer(Int64.min)),
        ("1.5", .double(1.5)), ("1e3", .double(1000)), ("-.5", .double(-0.5)), ("1.", .double(1)),
        ("2E-2", .double(0.02)),
        (".inf", .double(.infinity)), ("-.Inf", .double(-.infinity)), ("+.INF", .double(.infinity)),
        ("3.0.1", .string("3.0.1")), ("1_000", .string("1_000")), ("0x", .string("0x")), ("0o8", .string("0o8")),
        ("12abc", .string("12abc")), ("-x", .string("-x")), (".", .string(".")), ("1e", .string("1e")),
        ("'12'", .string("12")), ("\"true\"", .string("true")), ("'null'", .string("null")),
        ("\"a\\tb\\u00e9\"", .string("a\tb\u{e9}")), ("'it''s'", .string("it's")),
        ("!!str 12", .string("12")), ("!!int '12'", .integer(12)), ("!!float 1", .double(1)),
        ("!!bool \"true\"", .bool(true)), ("!!null ''", .null), ("! 12", .string("12")),
        ("plain text: no", .string("plain text: no")),
    ]

    @Test(arguments: scalars) func scalar(_ written: String, _ expected: JSONValue) throws {
        let text = written.contains(": ") ? "a: '\(written)'" : "a: \(written)"
        let value = try Self.read(text)["a"]?.value
        if written.contains(": ") {
            #expect(value == .string(written))
        } else {
            #expect(value == expected, "a: \(written)")
        }
    }

    @Test func notANumber() throws {
        for written in [".nan", ".NaN", ".NAN"] {
            guard case .double(let number) = try Self.read("a: \(written)")["a"]?.value else {
                Issue.record("\(written) is not a double")
                continue
            }
            #expect(number.isNaN)
        }
        #expect(try Self.read("a: -.nan")["a"]?.value == .string("-.nan"))
    }

    @Test func blockScalarsAndFlowCollections() throws {
        let node = try Self.read(
            """
            literal: |
              line one
              line two
            folded: >
              one
              two
            flow: {a: [1, 2.5, "x"], b: {c: ~}}
            list:
            - one
            - - nested
            """)
        #expect(node["literal"]?.value == .string("line one\nline two\n"))
        #expect(node["folded"]?.value == .string("one two\n"))
        #expect(
            node["flow"]?.value
                == .object([
                    JSONMember("a", .array([.integer(1), .double(2.5), .string("x")])),
                    JSONMember("b", .object([JSONMember("c", .null)])),
                ]))
        #expect(node["list"]?.value == .array([.string("one"), .array([.string("nested")])]))
    }

    @Test func placesOfKeysAndValues() throws {
        let node = try Self.read(
            """
            openapi: 3.1.0
            paths:
              /users:
                get:
                  responses:
                    '200': {description: ok}
            list:
              - one
              - {k: v}
            """)
        let get = try #require(node["paths"]?["/users"]?["get"])
        #expect(get.pointer == "#/paths/~1users/get")
        #expect((get.keyPlace.line, get.keyPlace.column) == (4, 5))
        #expect((get.place.line, get.place.column) == (5, 7))
        let ok = try #require(get["responses"]?["200"])
        #expect((ok.place.line, ok.place.column) == (6, 16))
        #expect((ok.keyPlace.line, ok.keyPlace.column) == (6, 9))
        let description = try #require(ok["description"])
        #expect((description.place.line, description.place.column) == (6, 30))
        let k = try #require(node["list"]?[1]?["k"])
        #expect(k.pointer == "#/list/1/k")
        #expect((k.place.line, k.place.column) == (9, 9))
        #expect(k.place.description == "t.yaml:9:9")
        #expect(node["list"]?.elements.map(\.place.line) == [8, 9])
        #expect(node.members.map(\.node.keyPlace.line) == [1, 2, 7])
    }

    @Test func jsonPlaces() throws {
        let text = "{\"openapi\": \"3.1.0\",\n \"paths\": {\"/a~b\": {\"get\": {\"x\": [1, {\"y\": 2}]}}}}"
        let node = SpecNode(root: try SpecSource.read(Data(text.utf8), file: "t.json", limits: SpecLimits()))
        let y = try #require(node["paths"]?["/a~b"]?["get"]?["x"]?[1]?["y"])
        #expect(y.pointer == "#/paths/~1a~0b/get/x/1/y")
        #expect((y.place.line, y.place.column) == (2, 44))
        #expect((y.keyPlace.line, y.keyPlace.column) == (2, 39))
    }

    @Test func anchorsAndAliases() throws {
        let node = try Self.read(
            """
            base: &base
              type: object
              required: [id]
            copy: *base
            list: [&one 1, *one]
            """)
        #expect(node["copy"]?.value == node["base"]?.value)
        #expect(node["list"]?.value == .array([.integer(1), .integer(1)]))
        let copy = try #require(node["copy"])
        #expect((copy.place.line, copy.place.column) == (4, 7))
        // Inside an alias, a value is placed where the anchored value writes it; the pointer is the path through
        // the document.
        let type = try #require(copy["type"])
        #expect(type.pointer == "#/copy/type")
        #expect((type.place.line, type.place.column) == (2, 9))
        #expect(copy["required"]?[0]?.place.line == 3)
        #expect(node["list"]?[1]?.place.column == 16)
    }

    @Test func billionLaughsIsRefused() throws {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            let previous = "*a\(level - 1)"
            lines.append(
                "a\(level): &a\(level) [" + Array(repeating: previous, count: 10).joined(separator: ", ") + "]")
        }
        let started = Date()
        let problem = try #require(Self.problem(lines.joined(separator: "\n")))
        #expect(problem.reason == .aliasLimit)
        // a5 is the first level past the limit: ten aliases of a4's 111,111 values.
        #expect(problem.line == 6)
        #expect(problem.description.hasPrefix("t.yaml:6:"))
        #expect(problem.message.contains("more than 1000000 values"))
        #expect(Date().timeIntervalSince(started) < 5)
        // A smaller limit refuses earlier; below it aliases are fine.
        #expect(
            Self.problem("a: &a [1, 2, 3]\nb: [*a, *a]", limits: SpecLimits(maxAliasValues: 7))?.reason == .aliasLimit)
        #expect(Self.problem("a: &a [1, 2, 3]\nb: [*a, *a]", limits: SpecLimits(maxAliasValues: 8)) == nil)
    }

    /// Few values, many bytes: aliases of a long string stood for a 954 MB example that `import --spec` wrote out.
    @Test func aliasesOfALongStringAreRefusedByTheirBytes() throws {
        let long = String(repeating: "x", count: 100_000)
        let aliases = Array(repeating: "*s", count: 100).joined(separator: ", ")
        let document =
            "s: &s \(long)\nl: &l [\(aliases)]\nm: [" + Array(repeating: "*l", count: 10).joined(separator: ", ") + "]"
        let problem = try #require(Self.problem(document))
        #expect(problem.reason == .aliasLimit)
        #expect(problem.line == 3, "\(problem)")
        #expect(problem.message.contains("more than 16777216 bytes of text (the alias '*l' stands for 10000000)"))
        // Keys count too; below the limit aliases are fine.
        let keyed = "a: &a {abcdef: 1}\nb: [*a, *a]"
        #expect(Self.problem(keyed, limits: SpecLimits(maxAliasBytes: 11))?.reason == .aliasLimit)
        #expect(Self.problem(keyed, limits: SpecLimits(maxAliasBytes: 14)) == nil)
    }

    static let refusals: [(String, SpecProblem.Reason, Int, Int, String)] = [
        ("a: 1\nb: 2\na: 3", .duplicateKey, 3, 1, "duplicate key 'a' (first at line 1, column 1)"),
        ("{x: 1, x: 2}", .duplicateKey, 1, 8, "duplicate key 'x'"),
        ("? [a, b]\n: c", .nonScalarKey, 1, 3, "the key is a sequence"),
        ("{{a: 1}: b}", .nonScalarKey, 1, 2, "the key is a mapping"),
        ("k: &k key\n*k : v", .nonScalarKey, 2, 1, "the key is an alias"),
        ("base: &b {a: 1}\nx:\n  <<: *b", .unsupportedYAML, 3, 3, "'<<' merge keys"),
        ("a: 1\n---\nb: 2", .multipleDocuments, 2, 1, "a second YAML document"),
        ("a: [1, 2\nb: 3", .syntax, 2, 2, "not valid YAML: did not find expected ',' or ']'"),
        ("a: b: c", .syntax, 1, 5, "not valid YAML: mapping values are not allowed in this context"),
        ("a:\n\t- b", .syntax, 2, 1, "not valid YAML: found character that cannot start any token"),
        ("a: *nope", .syntax, 1, 4, "the alias '*nope' refers to no anchor"),
        ("a: !custom x", .unsupportedYAML, 1, 4, "the tag '!custom' is not one of YAML's core schema"),
        ("a: !!binary aGk=", .unsupportedYAML, 1, 4, "the tag '!!binary'"),
        ("a: !!set {x}", .unsupportedYAML, 1, 4, "the tag 'tag:yaml.org,2002:set'"),
        ("a: !!int abc", .invalidScalar, 1, 4, "'abc' is not a valid !!int"),
        ("a: 99999999999999999999", .numberOutOfRange, 1, 4, "the number '99999999999999999999' is beyond 64 bits"),
        ("a: -9223372036854775809", .numberOutOfRange, 1, 4, "beyond 64 bits"),
        ("a: 1e400", .numberOutOfRange, 1, 4, "beyond 64 bits or a Double"),
        ("", .empty, 0, 0, "the file holds no YAML document"),
        ("a: \"\u{1}\"", .syntax, 1, 5, "not valid YAML: control characters are not allowed"),
    ]

    @Test(arguments: refusals) func refused(
        _ text: String, _ reason: SpecProblem.Reason, _ line: Int, _ column: Int, _ message: String
    ) throws {
        let problem = try #require(Self.problem(text), "accepted: \(text)")
        #expect(problem.reason == reason)
        #expect(problem.message.contains(message), "\(problem.message)")
        if line > 0 {
            #expect(problem.line == line && problem.column == column, "\(problem)")
            #expect(problem.description.hasPrefix("t.yaml:\(line):\(column): "))
        }
        #expect(problem.hint != nil)
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 6) + String(repeating: "]", count: 6)
        let problem = try #require(Self.problem("a: " + deep, limits: SpecLimits(maxDepth: 5)))
        #expect(problem.reason == .tooDeep)
        #expect(Self.problem("a: " + deep, limits: SpecLimits(maxDepth: 7)) == nil)
        let deeper = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(Self.problem(deeper)?.reason == .tooDeep)
    }

    @Test func utf16WithByteOrderMark() throws {
        var bytes = Data([0xFF, 0xFE])
        bytes.append("a: é".data(using: .utf16LittleEndian) ?? Data())
        let node = SpecNode(root: try SpecSource.read(bytes, file: "t.yaml", limits: SpecLimits()))
        #expect(node["a"]?.value == .string("é"))
    }
}
