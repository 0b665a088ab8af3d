import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// The schema check in standard mode against an independent validator: Python's openapi-schema-validator
/// (OAS30Validator and OAS31Validator, formats checked, ECMA-262 patterns through regress), from `.venv`
/// (`scripts/python-venv`, which `scripts/setup` runs). Hundreds of bodies, mutated from valid ones with a fixed
/// seed, against GitHub-like schemas (`Fixtures/openapi-diff`: `$ref`, `allOf`, `oneOf` and `anyOf`, a
/// discriminator, `nullable` and type arrays, enums, formats, bounds, patterns, `prefixItems`, `patternProperties`).
/// Both must say valid or invalid alike for every body, but for the disagreements listed in `theirs`, each one
/// justified. Nothing leaves the machine: the validator reads the files it is given.
@Suite struct SchemaDifferentialTests {
    static let folder = URL(fileURLWithPath: FixturePaths.fixture("openapi-diff"))
    static let python = FixturePaths.packageRoot.appendingPathComponent(".venv/bin/python").path
    /// Mutants per valid body.
    static let mutantsPerSeed = 50

    struct Case {
        var dialect: SchemaDialect
        var document: String
        var pointer: String
        var body: JSONValue
        /// What was done to the valid body: `$.labels[0].color = "red"`.
        var mutation: String
    }

    /// A disagreement where openapi-schema-validator is wrong, not Tether: how to recognise it, and why.
    struct Theirs: Sendable {
        var why: String
        var matches: @Sendable (_ ours: [SchemaViolation], _ theirs: String?) -> Bool
    }

    static let theirs: [Theirs] = [
        Theirs(
            why: "multipleOf with a decimal: Python divides binary floats (19.99 / 0.01 is 1998.9999999999998), so "
                + "a price the JSON text writes as a whole number of cents fails; Tether reads the decimals as written",
            matches: { ours, theirs in ours.isEmpty && theirs?.contains("is not a multiple of") == true }),
        Theirs(
            why: "format float: a number beyond 3.4028235e38 fits no 32-bit float (Swift's JSONDecoder refuses it "
                + "for a Float); openapi-schema-validator's float format accepts any Python float",
            matches: { ours, theirs in
                theirs == nil && !ours.isEmpty
                    && ours.allSatisfy { $0.keyword == "format" && $0.expected?.hasPrefix("a float") == true }
            }),
    ]

    // MARK: Bodies

    static func seeds() throws -> [(dialect: SchemaDialect, document: String, pointer: String, bodies: [JSONValue])] {
        let data = try Data(contentsOf: folder.appendingPathComponent("seeds.json"))
        guard case .array(let list) = try JSONValue.parse(data) else { return [] }
        return list.compactMap { seed in
            guard case .string(let dialect)? = seed["dialect"], case .string(let document)? = seed["document"],
                case .string(let pointer)? = seed["pointer"], case .array(let bodies)? = seed["bodies"]
            else { return nil }
            return (dialect == "3.1" ? .openAPI31 : .openAPI30, document, pointer, bodies)
        }
    }

    /// Changes made on purpose to the first valid body of a schema, beside the random ones: values where two
    /// readings could differ (the disagreements in `theirs` among them).
    static let edges: [(pointer: String, path: [JSONLocation.Component], value: JSONValue)] = [
        ("#/components/schemas/issue", [.key("bounty")], .double(19.99)),
        ("#/components/schemas/issue", [.key("bounty")], .double(0.07)),
        ("#/components/schemas/issue", [.key("bounty")], .double(0.075)),
        ("#/components/schemas/issue", [.key("bounty")], .double(9999.99)),
        ("#/components/schemas/issue", [.key("bounty")], .integer(10000)),
        ("#/components/schemas/issue", [.key("weight")], .double(3.5e38)),
        ("#/components/schemas/issue", [.key("weight")], .double(3.4e38)),
        ("#/components/schemas/issue", [.key("number")], .double(7.0)),
        ("#/components/schemas/issue", [.key("number")], .integer(2_147_483_648)),
        ("#/components/schemas/issue", [.key("id")], .unsignedInteger(UInt64(Int64.max) + 1)),
        ("#/components/schemas/issue", [.key("title")], .string(String(repeating: "😀", count: 256))),
        ("#/components/schemas/issue", [.key("title")], .string(String(repeating: "e\u{301}", count: 129))),
        ("#/components/schemas/issue", [.key("created_at")], .string("2024-02-29T23:59:59.999-12:00")),
        ("#/components/schemas/issue", [.key("due_on")], .string("2023-02-29")),
        ("#/components/schemas/issue", [.key("state_reason")], .null),
        ("#/components/schemas/issue", [.key("reactions"), .key("rocket")], .double(1.0)),
        ("#/components/schemas/issue", [.key("user"), .key("login")], .string("octo\u{0663}cat")),
        ("#/components/schemas/issue", [.key("labels"), .index(0), .key("color")], .string("F2951\u{0663}")),
        ("#/components/schemas/repository", [.key("stargazers_count")], .double(80.0)),
        ("#/components/schemas/repository", [.key("score")], .double(0.75)),
        ("#/components/schemas/repository", [.key("location"), .index(1)], .integer(180)),
        ("#/components/schemas/repository", [.key("location"), .index(2)], .integer(0)),
        ("#/components/schemas/repository", [.key("languages"), .key("swift")], .integer(1)),
        ("#/components/schemas/repository", [.key("kind")], .string("Repository")),
        ("#/components/schemas/repository", [.key("topics"), .index(1)], .string("octocat")),
        ("#/components/schemas/pet", [.key("pet_type")], .string("dog")),
        ("#/components/schemas/pet", [.key("pet_type")], .string("")),
        ("#/components/schemas/event", [.key("type")], .string("IssuesEvent")),
        ("#/components/schemas/check-status", [.key("error")], .string("x")),
    ]

    /// Every valid body, then the edges, then the mutants.
    static func cases() throws -> [Case] {
        var random = SplitMix(state: 22)
        var cases: [Case] = []
        for seed in try seeds() {
            if let first = seed.bodies.first {
                for edge in edges where edge.pointer == seed.pointer {
                    var body = first
                    BodyMutation.set(&body, at: edge.path, to: edge.value)
                    cases.append(
                        Case(
                            dialect: seed.dialect, document: seed.document, pointer: seed.pointer, body: body,
                            mutation: "\(JSONLocation(edge.path)) = \(SchemaText.excerpt(edge.value))"))
                }
            }
            for body in seed.bodies {
                cases.append(
                    Case(
                        dialect: seed.dialect, document: seed.document, pointer: seed.pointer, body: body,
                        mutation: "none"))
                for _ in 0..<mutantsPerSeed {
                    var mutant = body
                    var done: [String] = []
                    for _ in 0..<Int.random(in: 1...2, using: &random) {
                        done.append(BodyMutation.apply(to: &mutant, using: &random))
                    }
                    cases.append(
                        Case(
                            dialect: seed.dialect, document: seed.document, pointer: seed.pointer, body: mutant,
                            mutation: done.joined(separator: "; ")))
                }
            }
        }
        return cases
    }

    /// openapi-schema-validator's answer for each case: `nil` for valid, else its first error.
    static func theirAnswers(_ cases: [Case]) throws -> [String?] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tether-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = Data()
        for item in cases {
            let line = JSONValue.object([
                JSONMember("dialect", .string(item.dialect.rawValue)),
                JSONMember("document", .string(folder.appendingPathComponent(item.document).path)),
                JSONMember("pointer", .string(item.pointer)), JSONMember("body", item.body),
            ])
            lines.append(line.serialized())
            lines.append(UInt8(ascii: "\n"))
        }
        let input = directory.appendingPathComponent("cases.jsonl")
        try lines.write(to: input)
        let run = try ChildProcess.run(python, [folder.appendingPathComponent("validate.py").path, input.path])
        let text = run.stdoutText
        guard run.status == 0 else { throw PythonFailure(output: text + run.stderrText) }
        let answers = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line -> String? in
            line == "1" ? nil : String(line.dropFirst(2))
        }
        guard answers.count == cases.count else { throw PythonFailure(output: "\(answers.count) answers: " + text) }
        return answers
    }

    struct PythonFailure: Error, CustomStringConvertible {
        var output: String
        var description: String { "validate.py failed: \(output.prefix(2000))" }
    }

    // MARK: The test

    @Test
    func standardModeAgreesWithOpenAPISchemaValidator() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("\(Self.python) is missing: run scripts/python-venv (scripts/setup runs it)")
            return
        }
        let cases = try Self.cases()
        let answers = try Self.theirAnswers(cases)
        var schemas: [String: CompiledSchema] = [:]
        var agreed = 0
        var valid = 0
        var justified: [String: Int] = [:]
        var disagreements: [String] = []
        for (item, answer) in zip(cases, answers) {
            let key = item.document + item.pointer
            if schemas[key] == nil {
                let source = try SchemaFixtureSource(file: item.document, folder: Self.folder)
                var compiler = SchemaCompiler(dialect: item.dialect, source: source)
                let schemaValue = try source.value(item.document, item.pointer)
                schemas[key] = try compiler.compile(schemaValue.value, at: schemaValue.place)
            }
            guard let schema = schemas[key] else { continue }
            let ours = schema.violations(of: item.body).filter(\.isViolation)
            if ours.isEmpty == (answer == nil) {
                agreed += 1
                if answer == nil { valid += 1 }
                continue
            }
            if let known = Self.theirs.first(where: { $0.matches(ours, answer) }) {
                justified[known.why, default: 0] += 1
                continue
            }
            disagreements.append(
                "\(item.pointer) after \(item.mutation): Tether says "
                    + (ours.first.map { "\($0)" } ?? "valid") + "; openapi-schema-validator says " + (answer ?? "valid")
            )
        }
        #expect(cases.count >= 500)
        #expect(valid > cases.count / 10 && valid < cases.count * 9 / 10, "the mutants are not all valid or invalid")
        #expect(
            disagreements.isEmpty,
            Comment(rawValue: "\(disagreements.count) disagreements:\n" + disagreements.joined(separator: "\n")))
        // Each listed disagreement is one the mutants reach (a stale justification is removed).
        for known in Self.theirs {
            #expect(justified[known.why, default: 0] > 0, "no body reaches: \(known.why)")
        }
        print(
            "schema differential: \(cases.count) bodies, \(agreed) agreed (\(valid) valid), "
                + justified.map { "\($0.value) theirs: \($0.key.prefix(40))…" }.joined(separator: ", "))
    }
}

/// One random change to a JSON body, where every kind of value may be reached: a value of another type, a string
/// or number near what schemas check (formats, patterns, bounds, enum values), a member removed or added, an element
/// removed or repeated.
enum BodyMutation {
    static let strings: [JSONValue] = [String]([
        "", "x", "octocat", "Octo Cat", "-octocat", "octocat-", String(repeating: "a", count: 40),
        String(repeating: "b", count: 300), "open", "closed", "merged", "completed", "reopened", "not_planned",
        "User", "Bot", "Organization", "PushEvent", "IssuesEvent", "opened", "pending", "success", "cancelled",
        "public", "private", "internal", "cat", "dog", "repository", "2011-04-22T13:33:48Z",
        "2011-04-22T13:33:48.5+01:00",
        "2011-04-22T13:33:48", "2024-13-01T00:00:00Z", "2024-02-30T10:00:00Z", "2024-02-29T10:00:00Z", "yesterday",
        "2012-10-09", "2012-02-30", "2012-10-9", "123e4567-e89b-12d3-a456-426614174000",
        "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000", "not-a-uuid",
        "https://github.com/octocat", "mailto:octocat@github.com", "/relative/path", "https://exa mple.com",
        "octocat@github.com", "no-at-sign", "f29513", "F29513", "f2951", "zzzzzz",
        "6dcb09b5b57875f334f61aebed695e2e4193db5e",
        "6DCB09B5B57875F334F61AEBED695E2E4193DB5E", "refs/heads/main", "refs/tags/v1.0", "refs/pull/1", "heads/main",
        "octocat/Hello-World", "octocat/Hello/World", "swift", "Swift", "c++", "a-b", "\u{0663}", "😀", "e\u{301}",
        "MIT", "mit",
    ]).map { JSONValue.string($0) }
    static let numbers: [JSONValue] = [
        .integer(0), .integer(1), .integer(-1), .integer(2), .integer(9), .integer(10), .integer(90), .integer(-90),
        .integer(180), .integer(-180), .integer(2048), .integer(2049), .integer(10000), .integer(2_147_483_647),
        .integer(2_147_483_648), .integer(.max), .integer(.min), .unsignedInteger(UInt64(Int64.max) + 1),
        .double(1.0), .double(1.5), .double(-0.5), .double(90.5), .double(179.99), .double(9999.99), .double(19.99),
        .double(0.07), .double(0.25), .double(0.3), .double(1.75), .double(3.5e38), .double(1e-7),
    ]
    static let others: [JSONValue] = [.null, .bool(true), .bool(false), .array([]), .object([])]
    static let names = ["extra", "login", "id", "type", "state", "merged", "error", "C#", "swift", "node_id", "breed"]

    /// `body` with the value at `path` set (a member added when the last key is missing, an element appended when
    /// the index is the count).
    static func set(_ body: inout JSONValue, at path: [JSONLocation.Component], to newValue: JSONValue) {
        guard let last = path.last else {
            body = newValue
            return
        }
        update(&body, at: path.dropLast()[...]) { parent in
            switch (last, parent) {
            case (.key(let key), .object(var members)):
                if let index = members.firstIndex(where: { $0.key == key }) {
                    members[index].value = newValue
                } else {
                    members.append(JSONMember(key, newValue))
                }
                parent = .object(members)
            case (.index(let index), .array(var items)):
                if index < items.count { items[index] = newValue } else { items.append(newValue) }
                parent = .array(items)
            default: break
            }
        }
    }

    /// Changes one value of `body` at random; returns what it did.
    static func apply(to body: inout JSONValue, using random: inout SplitMix) -> String {
        var paths: [[JSONLocation.Component]] = []
        collect(body, [], into: &paths)
        let path = paths[Int.random(in: 0..<paths.count, using: &random)]
        var description = ""
        update(&body, at: path[...]) { value in
            description = mutate(&value, using: &random)
        }
        return JSONLocation(path).description + " " + description
    }

    private static func collect(
        _ value: JSONValue, _ path: [JSONLocation.Component], into paths: inout [[JSONLocation.Component]]
    ) {
        paths.append(path)
        switch value {
        case .object(let members):
            for member in members { collect(member.value, path + [.key(member.key)], into: &paths) }
        case .array(let items):
            for (index, item) in items.enumerated() { collect(item, path + [.index(index)], into: &paths) }
        default: break
        }
    }

    private static func update(
        _ value: inout JSONValue, at path: ArraySlice<JSONLocation.Component>, _ change: (inout JSONValue) -> Void
    ) {
        guard let step = path.first else { return change(&value) }
        switch (step, value) {
        case (.key(let key), .object(var members)):
            guard let index = members.firstIndex(where: { $0.key == key }) else { return }
            update(&members[index].value, at: path.dropFirst(), change)
            value = .object(members)
        case (.index(let index), .array(var items)):
            update(&items[index], at: path.dropFirst(), change)
            value = .array(items)
        default: break
        }
    }

    private static func pick(_ list: [JSONValue], _ random: inout SplitMix) -> JSONValue {
        list[Int.random(in: 0..<list.count, using: &random)]
    }

    private static func mutate(_ value: inout JSONValue, using random: inout SplitMix) -> String {
        let roll = Int.random(in: 0..<10, using: &random)
        switch value {
        case .object(var members) where roll < 6:
            if roll < 3, !members.isEmpty {
                let removed = members.remove(at: Int.random(in: 0..<members.count, using: &random))
                value = .object(members)
                return "without \(removed.key)"
            }
            let name = names[Int.random(in: 0..<names.count, using: &random)]
            let added = pick(strings + numbers + others, &random)
            members.removeAll { $0.key == name }
            members.append(JSONMember(name, added))
            value = .object(members)
            return "+ \(name): \(SchemaText.excerpt(added))"
        case .array(var items) where roll < 6:
            if roll < 2, !items.isEmpty {
                items.remove(at: Int.random(in: 0..<items.count, using: &random))
                value = .array(items)
                return "an element removed"
            }
            if roll < 4, let first = items.first {
                items.append(first)
                value = .array(items)
                return "element 0 repeated"
            }
            items.append(pick(strings + numbers + others, &random))
            value = .array(items)
            return "an element appended"
        case .string where roll < 7:
            value = pick(strings, &random)
        case .integer, .unsignedInteger, .double:
            value = roll < 7 ? pick(numbers, &random) : pick(strings + others, &random)
        default:
            value = pick(strings + numbers + others, &random)
        }
        return "= \(SchemaText.excerpt(value))"
    }
}
