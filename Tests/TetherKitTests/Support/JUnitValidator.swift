import Foundation

@testable import TetherEngine
@testable import TetherKit

/// What the JUnit check found in one report: each strict schema's verdict and every count that disagrees.
struct JUnitValidation: CustomStringConvertible {
    /// Each schema of `JUnitValidator.schemaNames`, in that order, with libxml2's complaint (`nil`: it accepts the
    /// report).
    var schemas: [(name: String, error: XMLSchema.Error?)]
    /// A suite's `tests`, `failures`, `errors` or `skipped` that is not the count of its `<testcase>`s, or a root
    /// total that is not the sum of its suites' (or why the counts could not be read).
    var countErrors: [String]

    /// Both schemas accept the report and every count holds.
    var isValid: Bool { schemas.allSatisfy { $0.error == nil } && countErrors.isEmpty }

    /// Whether the schema named `name` (`xunit-plugin-junit-10`, `windyroad-JUnit`) accepts the report.
    func accepts(_ name: String) -> Bool {
        schemas.contains { $0.name == name && $0.error == nil }
    }

    /// What the schema named `name` said, if it rejects the report.
    func error(_ name: String) -> XMLSchema.Error? {
        schemas.first { $0.name == name }?.error
    }

    var description: String {
        var lines = schemas.map { schema in
            schema.error.map { "INVALID \(schema.name): \($0)" } ?? "VALID   \(schema.name)"
        }
        lines += countErrors.map { "COUNTS  \($0)" }
        if countErrors.isEmpty { lines.append("COUNTS  every suite's counts match its test cases") }
        return lines.joined(separator: "\n")
    }
}

/// The project's own JUnit check, run on every JUnit report the tests write: the report must satisfy both strict
/// schemas kept in `Fixtures/junit-schemas` (the Jenkins xUnit plugin's `junit-10.xsd` and the Ant schema, windyroad
/// `JUnit.xsd`), checked by libxml2 (`XMLSchema`), and its declared counts must be the real ones, as junitparser
/// computes them: a `<testcase>` counts once, as a failure if it has a `<failure>`, else as an error if it has an
/// `<error>`, else as skipped if it has a `<skipped>`; a suite also counts the cases of the suites nested in it.
enum JUnitValidator {
    /// The schemas every report must satisfy: `Fixtures/junit-schemas/<name>.xsd`.
    static let schemaNames = ["xunit-plugin-junit-10", "windyroad-JUnit"]

    /// The schema `Fixtures/junit-schemas/<name>.xsd`, compiled.
    static func schema(_ name: String) throws -> XMLSchema {
        let path = FixturePaths.fixture("junit-schemas/\(name).xsd")
        return try XMLSchema(Data(contentsOf: URL(fileURLWithPath: path)), name: name + ".xsd")
    }

    /// Checks a report's text.
    static func validate(_ xml: String) throws -> JUnitValidation {
        try validate(Data(xml.utf8))
    }

    /// Checks a report's bytes.
    /// - Throws: only when a schema of the fixtures cannot be read or compiled.
    static func validate(_ xml: Data) throws -> JUnitValidation {
        var schemas: [(name: String, error: XMLSchema.Error?)] = []
        for name in schemaNames {
            let schema = try schema(name)
            do {
                try schema.validate(xml, name: "junit.xml")
                schemas.append((name, nil))
            } catch {
                schemas.append((name, error))
            }
        }
        let countErrors: [String]
        do {
            countErrors = Self.countErrors(try XMLElementNode.read(xml, name: "junit.xml"))
        } catch {
            countErrors = ["the report could not be read: \(error)"]
        }
        return JUnitValidation(schemas: schemas, countErrors: countErrors)
    }

    /// Where the declared counts of the report whose root element is `root` disagree with its test cases.
    static func countErrors(_ root: XMLElementNode) -> [String] {
        let topSuites: [XMLElementNode]
        switch root.name {
        case "testsuites": topSuites = root.elements.filter { $0.name == "testsuite" }
        case "testsuite": topSuites = [root]
        default: return ["line \(root.line): the root element is <\(root.name)>, not <testsuites> or <testsuite>"]
        }
        var errors: [String] = []
        var totals = Counts()
        for suite in topSuites {
            totals.add(check(suite, into: &errors))
        }
        if root.name == "testsuites" {
            for (key, computed) in totals.byName {
                // A root total that is not a number is left to the schemas, as junitparser does.
                guard let declared = root.attribute(key), let value = Int(declared) else { continue }
                if value != computed {
                    errors.append("line \(root.line): <testsuites> declares \(key)=\(value) but \(computed) found")
                }
            }
        }
        return errors
    }

    /// `tests`, `failures`, `errors` and `skipped`, counted.
    struct Counts {
        var tests = 0
        var failures = 0
        var errors = 0
        var skipped = 0

        var byName: [(String, Int)] {
            [("tests", tests), ("failures", failures), ("errors", errors), ("skipped", skipped)]
        }

        mutating func add(_ other: Counts) {
            tests += other.tests
            failures += other.failures
            errors += other.errors
            skipped += other.skipped
        }
    }

    /// Checks `suite` and the suites nested in it; returns what it holds (its own cases and its nested suites').
    private static func check(_ suite: XMLElementNode, into errors: inout [String]) -> Counts {
        var computed = Counts()
        for element in suite.elements {
            if element.name == "testsuite" {
                computed.add(check(element, into: &errors))
            } else if element.name == "testcase" {
                computed.tests += 1
                let results = Set(element.elements.map(\.name))
                if results.contains("failure") {
                    computed.failures += 1
                } else if results.contains("error") {
                    computed.errors += 1
                } else if results.contains("skipped") {
                    computed.skipped += 1
                }
            }
        }
        let name = suite.attribute("name") ?? ""
        for (key, count) in computed.byName {
            guard let declared = suite.attribute(key) else { continue }
            guard let value = Int(declared) else {
                errors.append("line \(suite.line): suite '\(name)': \(key)=\"\(declared)\" is not an integer")
                continue
            }
            if value != count {
                errors.append("line \(suite.line): suite '\(name)': declares \(key)=\(value) but \(count) found")
            }
        }
        return computed
    }
}
