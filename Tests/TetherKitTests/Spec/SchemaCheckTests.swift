import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// The schema check on a realistic OpenAPI 3.0 document (`Fixtures/schema-check/openapi.json`, with `$ref`s into
/// `common.json` beside it): each keyword's violation with its places, both modes, composition, recursion, notes,
/// and compiling once.
@Suite struct SchemaCheckTests {
    static let folder = URL(fileURLWithPath: FixturePaths.fixture("schema-check"))

    /// A compiler over the fixture, and the source (to count its resolutions).
    static func compiler(_ dialect: SchemaDialect = .openAPI30) throws -> (SchemaCompiler, SchemaFixtureSource) {
        let source = try SchemaFixtureSource(file: "openapi.json", folder: folder)
        return (SchemaCompiler(dialect: dialect, source: source), source)
    }

    /// The component schema `name`, compiled.
    static func schema(_ name: String) throws -> CompiledSchema {
        var (compiler, source) = try compiler()
        let value = try source.value("openapi.json", "#/components/schemas/" + SpecPlace.escaped(name))
        return try compiler.compile(value.value, at: value.place)
    }

    /// A schema written inline (one document), compiled in `dialect`.
    static func inline(_ json: String, _ dialect: SchemaDialect) throws -> CompiledSchema {
        let source = try SchemaFixtureSource(file: "inline.json", text: json)
        var compiler = SchemaCompiler(dialect: dialect, source: source)
        let root = source.root("inline.json")
        return try compiler.compile(root.value, at: root.place)
    }

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Data(text.utf8)) }

    static let issue = """
        {"id": 1, "state": "open", "title": "Crash", "body": null, "labels": [{"name": "bug", "color": "ff0000"}],
         "user": {"login": "octocat", "id": 1}, "created_at": "2024-05-01T12:30:00Z", "score": 12.5,
         "node_id": "I_abc123", "reactions": 3}
        """

    static func violations(_ schema: CompiledSchema, _ text: String, _ mode: SchemaCheckMode = .standard) throws
        -> [SchemaViolation]
    {
        try schema.violations(of: json(text), mode: mode).filter(\.isViolation)
    }

    // MARK: Keywords and places

    @Test func aValidBodyHasNoViolation() throws {
        let schema = try Self.schema("Issue")
        #expect(try Self.violations(schema, Self.issue).isEmpty)
        #expect(try Self.violations(schema, Self.issue, .consumer).isEmpty)
    }

    @Test func anEnumViolationNamesTheValueTheKeywordAndItsPlace() throws {
        let body = Self.issue.replacingOccurrences(of: "\"open\"", with: "\"merged\"")
        let violations = try Self.violations(Self.schema("Issue"), body)
        #expect(violations.count == 1)
        let violation = try #require(violations.first)
        #expect(violation.location.description == "$.state")
        #expect(violation.keyword == "enum")
        #expect(
            violation.place
                == SpecPlace(
                    file: "openapi.json", pointer: "#/components/schemas/Issue/properties/state/enum", line: 26,
                    column: 21))
        #expect(violation.expected == #"one of ["open","closed"]"#)
        #expect(violation.actual == #""merged""#)
        #expect(violation.message == #"expected one of ["open","closed"], got "merged""#)
        #expect(violation.severity == .violation)
    }

    @Test func everyViolationIsReportedNotOnlyTheFirst() throws {
        let body = """
            {"id": 0, "state": "open", "title": "", "body": 7, "labels": [{"name": "a"}, {"name": "a"},
             {"name": "b", "color": "red"}, {"name": "c"}], "user": {"login": "octocat", "id": "1"},
             "created_at": "2024-13-01T00:00:00Z", "score": 100, "node_id": "abc", "reactions": 4294967296}
            """
        let found = try Self.violations(Self.schema("Issue"), body).map {
            "\($0.location) \($0.keyword): \($0.message)"
        }
        #expect(
            found == [
                "$.id minimum: expected at least 1, got 0",
                "$.title minLength: expected at least 1 character, got 0: \"\"",
                "$.body type: expected string or null, got integer 7",
                "$.labels maxItems: expected at most 3 items, got 4",
                "$.labels uniqueItems: expected unique items, got items 0 and 1 equal: {\"name\":\"a\"}",
                "$.labels[2].color pattern: expected a string matching /^[0-9a-f]{6}$/, got \"red\"",
                "$.user.id type: expected integer, got string \"1\"",
                "$.created_at format: expected a date-time, got \"2024-13-01T00:00:00Z\"",
                "$.score exclusiveMaximum: expected less than 100, got 100",
                "$.node_id pattern: expected a string matching /^[A-Z]_[a-z0-9]+$/, got \"abc\"",
                "$.reactions format: expected an int32, got 4294967296",
            ])
    }

    @Test func aReferenceToAnotherFileReportsThatFilesPlace() throws {
        let body = Self.issue.replacingOccurrences(of: #""id": 1}"#, with: #""id": true}"#)
        let violation = try #require(try Self.violations(Self.schema("Issue"), body).first)
        #expect(violation.location.description == "$.user.id")
        #expect(
            violation.place
                == SpecPlace(file: "common.json", pointer: "#/User/properties/id/type", line: 13, column: 17))
    }

    @Test func multipleOfReadsDecimalsAsWritten() throws {
        let schema = try Self.inline(#"{"multipleOf": 0.0001}"#, .openAPI30)
        #expect(schema.isValid(.double(0.0075)))
        #expect(!schema.isValid(.double(0.00751)))
        let half = try Self.inline(#"{"multipleOf": 0.5}"#, .openAPI30)
        #expect(half.isValid(.double(1e308)))  // beyond Decimal: the binary values' exact remainder
        #expect(half.isValid(.integer(3)))
        #expect(!half.isValid(.double(0.3)))
        #expect(half.isValid(.double(2.5)))
    }

    @Test func numbersCompareExactlyWhateverTheirForm() throws {
        let schema = try Self.inline(#"{"maximum": 9007199254740992.0, "minimum": -1}"#, .openAPI30)
        #expect(schema.isValid(.integer(9_007_199_254_740_992)))
        #expect(!schema.isValid(.integer(9_007_199_254_740_993)))  // a Double would round it to the bound
        #expect(!schema.isValid(.unsignedInteger(18_446_744_073_709_551_615)))
        #expect(!schema.isValid(.double(-1.5)))
    }

    @Test func anIntegerWrittenWithAFractionIsAnIntegerIn31Only() throws {
        let draft4 = try Self.inline(#"{"type": "integer"}"#, .openAPI30)
        let modern = try Self.inline(#"{"type": "integer"}"#, .openAPI31)
        #expect(!draft4.isValid(.double(1.0)))
        #expect(modern.isValid(.double(1.0)))
        #expect(!modern.isValid(.double(1.5)))
    }

    @Test func lengthsCountCodePoints() throws {
        let schema = try Self.inline(#"{"maxLength": 1, "minLength": 1}"#, .openAPI31)
        #expect(schema.isValid(.string("😀")))  // one code point, two UTF-16 units
        #expect(schema.isValid(.string("\u{E9}")))  // é, one code point
        #expect(!schema.isValid(.string("e\u{301}")))  // é as e and a combining accent: two
    }

    @Test func floatAndIntegerFormats() throws {
        let float = try Self.inline(#"{"format": "float"}"#, .openAPI30)
        #expect(float.isValid(.double(3.4e38)))
        #expect(!float.isValid(.double(3.5e38)))
        let int64 = try Self.inline(#"{"format": "int64"}"#, .openAPI30)
        #expect(int64.isValid(.integer(.max)))
        #expect(!int64.isValid(.unsignedInteger(UInt64(Int64.max) + 1)))
    }

    @Test func valuesAreExcerptedAsFindingsAre() throws {
        let schema = try Self.inline(#"{"type": "integer"}"#, .openAPI30)
        let long = String(repeating: "a", count: 100)
        let violation = try #require(schema.violations(of: .string(long)).first)
        #expect(violation.actual == "string \"" + String(repeating: "a", count: 59) + "…")
        let object = try #require(schema.violations(of: try Self.json(#"{"a": [1, 2], "b": null}"#)).first)
        #expect(object.actual == #"object {"a":[1,2],"b":null}"#)
    }

    // MARK: Dialects

    @Test func nullableIn30XNullableIn20TypeArraysIn31() throws {
        let openAPI30 = try Self.inline(#"{"type": "string", "nullable": true}"#, .openAPI30)
        #expect(openAPI30.isValid(.null))
        let notNullable = try Self.inline(#"{"type": "string"}"#, .openAPI30)
        #expect(notNullable.violations(of: .null).first?.message == "expected string, got null")
        let swagger = try Self.inline(#"{"type": "string", "x-nullable": true}"#, .openAPI20)
        #expect(swagger.isValid(.null))
        let openAPI31 = try Self.inline(#"{"type": ["string", "null"]}"#, .openAPI31)
        #expect(openAPI31.isValid(.null))
        #expect(openAPI31.violations(of: .integer(1)).first?.message == "expected string or null, got integer 1")
        // 3.1 has no nullable: a note, and null does not fit.
        let misplaced = try Self.inline(#"{"type": "string", "nullable": true}"#, .openAPI31)
        let found = misplaced.violations(of: .null)
        #expect(found.contains { $0.isViolation && $0.keyword == "type" })
        #expect(found.contains { !$0.isViolation && $0.keyword == "nullable" })
    }

    @Test func aNullableEnumNeedsNullAmongItsValues() throws {
        // OpenAPI 3.0.3: nullable adds null to type only; enum still applies.
        let schema = try Self.inline(#"{"type": "string", "nullable": true, "enum": ["a"]}"#, .openAPI30)
        #expect(schema.violations(of: .null).map(\.keyword) == ["enum"])
        let withNull = try Self.inline(#"{"type": "string", "nullable": true, "enum": ["a", null]}"#, .openAPI30)
        #expect(withNull.isValid(.null))
    }

    @Test func refSiblingsAreIgnoredIn30AndAppliedIn31() throws {
        let document = ##"{"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}"##
        let openAPI30 = try Self.inline(document, .openAPI30)
        let found = openAPI30.violations(of: .string("abc"))
        #expect(!found.contains { $0.isViolation })
        #expect(found.map(\.keyword) == ["maxLength"])
        #expect(found.first?.message.hasPrefix("not checked: maxLength is ignored beside $ref") == true)
        let openAPI31 = try Self.inline(document, .openAPI31)
        #expect(openAPI31.violations(of: .string("abc")).map(\.keyword) == ["maxLength"])
        #expect(!openAPI31.isValid(.integer(1)))
    }

    // MARK: The consumer's reading

    @Test func anUndeclaredMemberIsAViolationOnlyForTheConsumer() throws {
        let schema = try Self.schema("Issue")
        let body = Self.issue.replacingOccurrences(of: #""login": "octocat""#, with: #""login": "octocat", "x": 1"#)
        #expect(try Self.violations(schema, body).isEmpty)
        let found = try Self.violations(schema, body, .consumer)
        #expect(found.count == 1)
        let violation = try #require(found.first)
        #expect(violation.location.description == "$.user.x")
        #expect(violation.keyword == "properties")
        #expect(violation.message == #"member "x" is not declared by the schema"#)
        #expect(violation.actual == #"member "x": 1"#)
        #expect(violation.place.file == "common.json")
        #expect(violation.place.pointer == "#/User/properties")
    }

    @Test func aMissingRequiredMemberIsANoteForTheConsumer() throws {
        let schema = try Self.schema("Issue")
        let body = Self.issue.replacingOccurrences(of: #""title": "Crash", "#, with: "")
        let standard = schema.violations(of: try Self.json(body))
        #expect(standard.map(\.severity) == [.violation])
        #expect(standard.first?.location.description == "$.title")
        #expect(standard.first?.message == #"missing required member "title""#)
        let consumer = schema.violations(of: try Self.json(body), mode: .consumer)
        #expect(consumer.map(\.severity) == [.note])
        #expect(consumer.first?.keyword == "required")
    }

    @Test func membersDeclaredInAnyAllOfBranchAreDeclared() throws {
        let schema = try Self.schema("Repository")
        let body = #"{"id": 1, "name": "tether", "stargazers_count": 3, "owner": {"login": "o", "id": 2}}"#
        #expect(try Self.violations(schema, body, .consumer).isEmpty)
        let extra = #"{"id": 1, "name": "tether", "forks": 3}"#
        #expect(try Self.violations(schema, extra, .consumer).map(\.location.description) == ["$.forks"])
    }

    @Test func aMapDeclaresItsMembersAFreeFormObjectDoesNot() throws {
        let schema = try Self.schema("Event")
        let body = #"{"id": "e1", "metadata": {"a": "b"}, "payload": {"action": "opened"}, "extra": {"a": 1, "b": 2}}"#
        #expect(try Self.violations(schema, body).isEmpty)
        let found = try Self.violations(schema, body, .consumer).map(\.location.description)
        #expect(found == ["$.payload.action", "$.extra.b"])
        let wrongMapValue = #"{"metadata": {"a": 1}}"#
        #expect(try Self.violations(schema, wrongMapValue).map(\.location.description) == ["$.metadata.a"])
    }

    @Test func additionalPropertiesFalseIsReportedOnceInBothModes() throws {
        let schema = try Self.schema("Closed")
        for mode in [SchemaCheckMode.standard, .consumer] {
            let found = try Self.violations(schema, #"{"a": 1, "b": 2}"#, mode)
            #expect(found.map(\.keyword) == ["additionalProperties"], "\(mode)")
            #expect(found.first?.location.description == "$.b")
        }
    }

    // MARK: Composition

    @Test func aDiscriminatorChecksOnlyTheChosenBranch() throws {
        let schema = try Self.schema("Pet")
        #expect(try Self.violations(schema, #"{"petType": "cat", "meows": 3}"#).isEmpty)
        #expect(try Self.violations(schema, #"{"petType": "dog", "barks": true}"#).isEmpty)
        let wrong = try Self.violations(schema, #"{"petType": "cat", "meows": "loud"}"#)
        #expect(wrong.map { "\($0.location) \($0.keyword)" } == ["$.meows type"])
        #expect(wrong.first?.place.pointer == "#/components/schemas/Cat/properties/meows/type")
        let unknown = try Self.violations(schema, #"{"petType": "bird"}"#)
        #expect(unknown.map(\.keyword) == ["discriminator"])
        #expect(unknown.first?.message == #"expected one of ["cat","dog"], got "bird""#)
        #expect(unknown.first?.location.description == "$.petType")
        let missing = try Self.violations(schema, #"{"meows": 1}"#)
        #expect(missing.first?.message == #"missing discriminator member "petType": expected one of ["cat","dog"]"#)
        // The consumer reads the chosen branch's members as declared.
        #expect(try Self.violations(schema, #"{"petType": "cat", "meows": 3}"#, .consumer).isEmpty)
        #expect(
            try Self.violations(schema, #"{"petType": "cat", "meows": 3, "barks": true}"#, .consumer).map(
                \.location.description) == ["$.barks"])
    }

    @Test func oneOfWithoutADiscriminatorSaysWhyEachBranchFailed() throws {
        let schema = try Self.schema("Shape")
        #expect(try Self.violations(schema, #"{"radius": 1}"#).isEmpty)
        let none = try #require(try Self.violations(schema, #"{"radius": "1"}"#).first)
        #expect(none.keyword == "oneOf")
        #expect(none.branches.count == 2)
        #expect(none.branches.map(\.isMatch) == [false, false])
        #expect(none.branches[0].reasons.map(\.message) == [#"expected number, got string "1""#])
        #expect(none.branches[1].reasons.map(\.message) == [#"missing required member "side""#])
        #expect(
            none.message
                == "expected exactly one of 2 schemas to match, got none: "
                + #"[0] #/components/schemas/Shape/oneOf/0: $.radius: expected number, got string "1"; "#
                + #"[1] #/components/schemas/Shape/oneOf/1: $.side: missing required member "side""#)
        let both = try #require(try Self.violations(schema, #"{"radius": 1, "side": 2}"#).first)
        #expect(both.message.hasPrefix("expected exactly one of 2 schemas to match, got 2: [0] "))
        #expect(both.branches.map(\.isMatch) == [true, true])
    }

    @Test func aBranchThatLacksOnlyARequiredMemberFitsForTheConsumer() throws {
        let schema = try Self.schema("Shape")
        // Neither branch fits strictly ({} lacks radius and side); the consumer reads both as fitting, with notes.
        #expect(try Self.violations(schema, "{}").map(\.keyword) == ["oneOf"])
        let consumer = try Self.schema("Shape").violations(of: try Self.json("{}"), mode: .consumer)
        #expect(consumer.allSatisfy { !$0.isViolation })
        #expect(consumer.map(\.keyword) == ["required", "required"])
    }

    @Test func anyOfFitsWhenOneBranchDoes() throws {
        let schema = try Self.schema("Id")
        #expect(schema.isValid(.string("abc")))
        #expect(schema.isValid(.integer(12)))
        let violation = try #require(schema.violations(of: .string("abcd")).first)
        #expect(violation.keyword == "anyOf")
        #expect(violation.branches.map { $0.reasons.map(\.keyword) } == [["maxLength"], ["type"]])
    }

    @Test func aDiscriminatorOnABaseSchemaChecksTheSchemaThatExtendsIt() throws {
        let schema = try Self.schema("Animal")
        #expect(try Self.violations(schema, #"{"kind": "Bird", "name": "tweety", "wingspan": 0.2}"#, .consumer).isEmpty)
        #expect(try Self.violations(schema, #"{"kind": "Animal", "name": "x"}"#, .consumer).isEmpty)
        let wrong = try Self.violations(schema, #"{"kind": "Fish", "fins": "two"}"#)
        #expect(wrong.map { "\($0.location) \($0.keyword)" } == ["$.fins type"])
        #expect(wrong.first?.place.pointer == "#/components/schemas/Fish/allOf/1/properties/fins/type")
        let undeclared = try Self.violations(schema, #"{"kind": "Fish", "wingspan": 1}"#, .consumer)
        #expect(undeclared.map(\.location.description) == ["$.wingspan"])
        let unknown = try Self.violations(schema, #"{"kind": "Cow"}"#)
        #expect(unknown.first?.message == #"expected one of ["Animal","Bird","Fish"], got "Cow""#)
    }

    // MARK: Recursion and references

    @Test func aRecursiveSchemaChecksEveryLevel() throws {
        let schema = try Self.schema("Tree")
        let body = """
            {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}, {"name": 2,
             "children": [{"children": []}]}]}]}
            """
        let found = try Self.violations(schema, body).map { "\($0.location) \($0.keyword)" }
        #expect(
            found == ["$.children[0].children[1].name type", "$.children[0].children[1].children[0].name required"])
        #expect(schema.nodes.count < 10)  // one node per schema object, the recursion an index
    }

    @Test func aCycleThatNoValueCouldEndIsAnError() throws {
        let error = try #require(throws: SchemaError.self) { try Self.schema("LoopA") }
        #expect(error.message.hasPrefix("a cycle of schemas that apply to the same value: "))
        #expect(error.message.contains("#/components/schemas/LoopA → #/components/schemas/LoopB"))
    }

    @Test func anUnresolvedReferenceIsAnErrorAtTheReference() throws {
        let error = try #require(throws: SchemaError.self) { try Self.schema("Broken") }
        #expect(error.place.pointer == "#/components/schemas/Broken/properties/x/$ref")
        #expect(error.place.file == "openapi.json")
        #expect(error.place.line > 1)
        #expect(error.message.hasPrefix("$ref '#/components/schemas/Missing' does not resolve: "))
        #expect(error.description.hasPrefix("openapi.json:\(error.place.line):"))
    }

    @Test func pointersWithEscapedTokensResolve() throws {
        let schema = try Self.schema("UsesOdd")
        #expect(
            try Self.violations(schema, #"{"n": "x"}"#).first?.place.pointer == "#/components/schemas/Odd~1Name~01/type"
        )
    }

    // MARK: Notes

    @Test func aKeywordNotCheckedIsANoteOncePerSchemaPlace() throws {
        let schema = try Self.schema("Unchecked")
        let body = #"{"tags": ["a.example", "b.example", "c"], "code": "ABC", "owner": null}"#
        let found = schema.violations(of: try Self.json(body))
        let notes = found.filter { !$0.isViolation }.map { "\($0.keyword) \($0.place.pointer)" }
        #expect(
            notes == [
                "contains #/components/schemas/Unchecked/properties/tags/contains",
                "format #/components/schemas/Unchecked/properties/tags/items/format",
                "pattern #/components/schemas/Unchecked/properties/code/pattern",
                "nullable #/components/schemas/Unchecked/properties/owner/nullable",
            ])
        let messages = found.filter { !$0.isViolation }.map(\.message)
        #expect(messages[0] == "not checked: contains is not a keyword Tether checks")
        #expect(messages[1] == #"not checked: format "hostname" is not one Tether checks"#)
        #expect(messages[2].hasPrefix(#"not checked: pattern "(?i)abc" is not an ECMA-262 regular expression"#))
        #expect(messages[3].hasPrefix("not checked: nullable is ignored beside $ref"))
        // The format note is once for its place, though three items reach it; it names the first.
        #expect(found.first { $0.keyword == "format" }?.location.description == "$.tags[0]")
        // null for owner: $ref replaces nullable in 3.0, so it is a violation.
        #expect(found.filter(\.isViolation).map(\.location.description) == ["$.owner"])
        #expect(schema.uncheckedKeywords.count == 4)
    }

    // MARK: Compiled once

    @Test func aSchemaIsCompiledOnceAndCheckingNeverResolves() throws {
        var (compiler, source) = try Self.compiler()
        let value = try source.value("openapi.json", "#/components/schemas/Issue")
        let resolvedBefore = source.resolveCount
        let schema = try compiler.compile(value.value, at: value.place)
        #expect(compiler.compileCount == 1)
        let resolvedByCompile = source.resolveCount - resolvedBefore
        #expect(resolvedByCompile == 2)  // Label and User, each once
        let again = try compiler.compile(value.value, at: value.place)
        #expect(compiler.compileCount == 1)
        #expect(source.resolveCount == resolvedBefore + resolvedByCompile)
        for _ in 0..<2 {
            #expect(schema.isValid(try Self.json(Self.issue)))
            #expect(again.isValid(try Self.json(Self.issue)))
        }
        #expect(source.resolveCount == resolvedBefore + resolvedByCompile)
        #expect(compiler.compileCount == 1)
        // Another place is another compilation.
        let label = try source.value("openapi.json", "#/components/schemas/Label")
        _ = try compiler.compile(label.value, at: label.place)
        #expect(compiler.compileCount == 2)
    }
}
