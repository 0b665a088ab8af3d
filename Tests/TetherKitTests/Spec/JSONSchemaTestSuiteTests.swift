import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// The JSON-Schema-Test-Suite (json-schema-org, vendored in `Fixtures/json-schema-test-suite`): draft 4 read as
/// OpenAPI 3.0's dialect, draft 2020-12 as 3.1's, in standard mode. Every file is run or skipped for a reason in
/// `JSONSchemaTestSuitePlan`; the table of every file is the fixture's `RESULTS.md`, which this test keeps true.
@Suite struct JSONSchemaTestSuiteTests {
    static let root = URL(fileURLWithPath: FixturePaths.fixture("json-schema-test-suite/tests"))
    static let drafts = ["draft4", "draft2020-12"]

    /// What running one file found.
    struct Outcome {
        var cases = 0
        var passed = 0
        /// Per skip (by its index in the file's list), the cases it skipped.
        var skippedBySkip: [Int: Int] = [:]
        /// Groups whose schema has a keyword of an `.unchecked` entry, and how many of them got the note.
        var groupsWithKeyword = 0
        var groupsNoted = 0
        /// Groups where the keyword sits inside another keyword that is not checked (`then: {$dynamicRef: …}`): the
        /// note is for that one, and the walk never reaches the inner keyword.
        var groupsNotedAround = 0
        /// Groups of an `.unchecked` entry whose schema does not compile (a reference to a URL or an anchor):
        /// refused with an error, which is no silent pass either.
        var groupsRefused = 0
        var failures: [String] = []
    }

    /// The suite's files of `draft`, relative to its folder, sorted: `additionalProperties.json`,
    /// `optional/format/date.json`.
    static func files(_ draft: String) -> [String] {
        let folder = root.appendingPathComponent(draft)
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".json") { files.append(path) }
        }
        return files.sorted()
    }

    /// `1 case`, `2 cases`.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// Every key of every object in `value`.
    static func keys(in value: JSONValue) -> Set<String> {
        switch value {
        case .object(let members):
            return members.reduce(into: Set(members.map(\.key))) { $0.formUnion(keys(in: $1.value)) }
        case .array(let items):
            return items.reduce(into: []) { $0.formUnion(keys(in: $1)) }
        default:
            return []
        }
    }

    /// Runs one file as its plan entry says.
    static func run(draft: String, file: String, entry: JSONSchemaTestSuitePlan.Entry) throws -> Outcome {
        let dialect: SchemaDialect = draft == "draft4" ? .openAPI30 : .openAPI31
        let data = try Data(contentsOf: root.appendingPathComponent(draft).appendingPathComponent(file))
        guard case .array(let groups) = try JSONValue.parse(data) else { return Outcome(failures: ["not a list"]) }
        var outcome = Outcome()
        for group in groups {
            guard case .string(let groupName)? = group["description"], let schema = group["schema"],
                case .array(let tests)? = group["tests"]
            else { continue }
            let name = "\(draft)/\(file)"
            let source = SchemaFixtureSource(file: name, value: schema)
            var compiler = SchemaCompiler(dialect: dialect, source: source)
            let compiled: Result<CompiledSchema, SchemaError>
            do throws(SchemaError) {
                compiled = .success(try compiler.compile(schema, at: source.root(name).place))
            } catch {
                compiled = .failure(error)
            }
            if case .unchecked(let keywords, _) = entry {
                let present = keys(in: schema).intersection(keywords)
                guard !present.isEmpty else { continue }
                outcome.groupsWithKeyword += 1
                switch compiled {
                case .failure:
                    outcome.groupsRefused += 1
                case .success(let schema) where !present.intersection(schema.uncheckedKeywords.map(\.keyword)).isEmpty:
                    outcome.groupsNoted += 1
                case .success(let schema) where !schema.uncheckedKeywords.isEmpty:
                    outcome.groupsNotedAround += 1
                case .success:
                    outcome.failures.append("\(groupName): no \"not checked\" note for \(present.sorted())")
                }
                continue
            }
            guard case .run(let skips) = entry else { continue }
            for test in tests {
                guard case .string(let testName)? = test["description"], let data = test["data"],
                    case .bool(let isValid)? = test["valid"]
                else { continue }
                outcome.cases += 1
                if let skip = skips.firstIndex(where: {
                    $0.group == groupName && ($0.test == nil || $0.test == testName)
                }) {
                    outcome.skippedBySkip[skip, default: 0] += 1
                    continue
                }
                switch compiled {
                case .failure(let error):
                    outcome.failures.append("\(groupName) / \(testName): the schema does not compile: \(error)")
                case .success(let schema):
                    let violations = schema.violations(of: data).filter(\.isViolation)
                    if violations.isEmpty != isValid {
                        let found = violations.first.map { "\($0)" } ?? "no violation"
                        outcome.failures.append(
                            "\(groupName) / \(testName): expected \(isValid ? "valid" : "invalid"), got \(found)")
                    } else {
                        outcome.passed += 1
                    }
                }
            }
        }
        return outcome
    }

    @Test(arguments: drafts)
    func draft(_ draft: String) throws {
        let plan = JSONSchemaTestSuitePlan.plan[draft] ?? [:]
        let files = Self.files(draft)
        for file in files {
            guard let entry = plan[file] else {
                Issue.record("\(draft)/\(file) is neither run nor skipped in JSONSchemaTestSuitePlan: add it")
                continue
            }
            if case .skip = entry { continue }
            let outcome = try Self.run(draft: draft, file: file, entry: entry)
            for failure in outcome.failures { Issue.record("\(draft)/\(file): \(failure)") }
            if case .run(let skips) = entry {
                for (index, skip) in skips.enumerated() where outcome.skippedBySkip[index] == nil {
                    Issue.record("\(draft)/\(file): the skip of \"\(skip.group)\" \(skip.test ?? "") matches no case")
                }
            }
        }
        for file in plan.keys where !files.contains(file) {
            Issue.record("JSONSchemaTestSuitePlan names \(draft)/\(file), which the fixture does not have")
        }
    }

    /// The table of every file: `Fixtures/json-schema-test-suite/RESULTS.md` (recorded with RECORD_SNAPSHOTS=1).
    @Test func resultsTable() throws {
        var text = """
            # JSON-Schema-Test-Suite: results

            Written by `JSONSchemaTestSuiteTests.resultsTable` (`Tests/TetherKitTests/Spec/`; record again with
            `RECORD_SNAPSHOTS=1 swift test --filter JSONSchemaTestSuiteTests`) from the plan in
            `JSONSchemaTestSuitePlan.swift`. Draft 4 is read as OpenAPI 3.0's dialect, draft 2020-12 as 3.1's, in
            standard mode; a case passes when the check finds a violation exactly when the suite says the data is
            invalid. Sources and licence: [SOURCES.md](SOURCES.md).

            """
        for draft in Self.drafts {
            let plan = JSONSchemaTestSuitePlan.plan[draft] ?? [:]
            var totals = (files: 0, run: 0, cases: 0, passed: 0)
            var rows: [String] = []
            var skipped: [String] = []
            for file in Self.files(draft) {
                guard let entry = plan[file] else { continue }
                totals.files += 1
                switch entry {
                case .skip(let reason):
                    rows.append("| \(file) | skipped: \(reason) |")
                case .unchecked(let keywords, let reason):
                    let outcome = try Self.run(draft: draft, file: file, entry: entry)
                    var parts = ["\(outcome.groupsNoted) get a \"not checked\" note for it"]
                    if outcome.groupsNotedAround > 0 {
                        parts.append("\(outcome.groupsNotedAround) for the unchecked keyword around it")
                    }
                    if outcome.groupsRefused > 0 {
                        parts.append("\(outcome.groupsRefused) do not compile (a $ref to a URL or an anchor)")
                    }
                    rows.append(
                        "| \(file) | skipped: \(reason). Of its \(Self.count(outcome.groupsWithKeyword, "group")) with "
                            + keywords.joined(separator: " or ") + ", " + parts.joined(separator: ", ") + " |")
                case .run(let skips):
                    let outcome = try Self.run(draft: draft, file: file, entry: entry)
                    totals.run += 1
                    totals.cases += outcome.cases
                    totals.passed += outcome.passed
                    let skippedCount = outcome.skippedBySkip.values.reduce(0, +)
                    let failed = outcome.cases - outcome.passed - skippedCount
                    var cell = "passes \(outcome.passed) of \(Self.count(outcome.cases, "case"))"
                    if skippedCount > 0 { cell += "; \(skippedCount) skipped (below)" }
                    if failed > 0 { cell += "; **\(failed) fail**" }
                    rows.append("| \(file) | \(cell) |")
                    for (index, skip) in skips.enumerated() {
                        let count = outcome.skippedBySkip[index] ?? 0
                        let what =
                            skip.test.map { "\"\(skip.group)\" / \"\($0)\"" }
                            ?? "\"\(skip.group)\" (\(count == 1 ? "its one case" : "all \(count) cases"))"
                        skipped.append("- \(file): \(what): \(skip.reason)")
                    }
                }
            }
            let dialect = draft == "draft4" ? "OpenAPI 3.0" : "OpenAPI 3.1"
            text += """

                ## \(draft), read as \(dialect)

                \(totals.files) files: \(totals.run) run, passing \(totals.passed) of their \(totals.cases) cases; \
                the others skipped, each with its reason.

                | file | result |
                | --- | --- |

                """
            text += rows.joined(separator: "\n") + "\n"
            if !skipped.isEmpty {
                text += "\nSkipped cases in the files run:\n\n" + skipped.joined(separator: "\n") + "\n"
            }
        }
        expectGolden(text, named: "../json-schema-test-suite/RESULTS.md")
    }
}
