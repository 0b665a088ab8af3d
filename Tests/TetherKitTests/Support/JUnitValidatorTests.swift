import Foundation
import Testing

@testable import TetherEngine
@testable import TetherKit

/// The check every JUnit report of the tests goes through must reject what either strict schema rejects and every
/// count that is not the real one; each case is the golden every-outcome report with one thing changed.
@Suite struct JUnitValidatorTests {
    static let golden: String = {
        let path = FixturePaths.fixture("golden/junit-every-outcome.xml")
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    /// The golden report with `old` replaced once by `new`.
    func changed(_ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let range = try #require(
            Self.golden.range(of: old), "\(old) in the golden report", sourceLocation: sourceLocation)
        return Self.golden.replacingCharacters(in: range, with: new)
    }

    @Test func theGoldenReportPasses() throws {
        #expect(!Self.golden.isEmpty)
        let result = try JUnitValidator.validate(Self.golden)
        #expect(result.isValid, "\(result)")
        #expect(result.schemas.map(\.name) == ["xunit-plugin-junit-10", "windyroad-JUnit"])
    }

    @Test func fileAndLineOnATestCaseBreakBothSchemas() throws {
        let result = try JUnitValidator.validate(
            try changed(
                #"name="repos" time="0.302""#, #"name="repos" time="0.302" file="contracts/github.json" line="9""#))
        #expect(!result.isValid)
        #expect(result.countErrors.isEmpty, "\(result)")
        for schema in JUnitValidator.schemaNames {
            let error = try #require(result.error(schema), "\(result)")
            #expect(error.description.contains("junit.xml:11: Element 'testcase', attribute 'file'"), "\(error)")
        }
    }

    @Test func fourDecimalsOfTimeBreakOnlyJUnit10() throws {
        let result = try JUnitValidator.validate(try changed(#"time="1.425""#, #"time="1.4250""#))
        #expect(!result.isValid)
        #expect(result.accepts("windyroad-JUnit"), "\(result)")
        let error = try #require(result.error("xunit-plugin-junit-10"), "\(result)")
        #expect(error.description.contains("junit.xml:3: Element 'testsuite', attribute 'time'"), "\(error)")
    }

    @Test func aNamedRootBreaksOnlyTheAntSchema() throws {
        let result = try JUnitValidator.validate(try changed("<testsuites>", #"<testsuites name="run">"#))
        #expect(!result.isValid)
        #expect(result.accepts("xunit-plugin-junit-10"), "\(result)")
        let error = try #require(result.error("windyroad-JUnit"), "\(result)")
        #expect(error.description.contains("junit.xml:2: Element 'testsuites', attribute 'name'"), "\(error)")
    }

    @Test func aSuiteCountThatIsNotItsTestCasesIsCaught() throws {
        let result = try JUnitValidator.validate(try changed(#"failures="1" errors="1""#, #"failures="2" errors="1""#))
        #expect(JUnitValidator.schemaNames.allSatisfy(result.accepts), "\(result)")
        #expect(result.countErrors == ["line 3: suite 'GitHub': declares failures=2 but 1 found"], "\(result)")
        #expect(!result.isValid)
    }

    @Test func aCaseWithAFailureAndASkipCountsOnceAsAFailure() throws {
        // Petstore's skipped case gets a failure too: one failure, no skip, by junitparser's precedence.
        let both = try changed(
            #"<skipped message="networkError stub: cannot be checked against a service"/>"#,
            #"<failure type="drift">x</failure><skipped/>"#)
        let result = try JUnitValidator.validate(both)
        #expect(
            result.countErrors == [
                "line 26: suite 'Petstore': declares failures=0 but 1 found",
                "line 26: suite 'Petstore': declares skipped=1 but 0 found",
            ], "\(result)")
    }

    @Test func rootTotalsThatAreNotTheSumOfTheSuitesAreCaught() throws {
        let right = try JUnitValidator.validate(try changed("<testsuites>", #"<testsuites tests="5" failures="1">"#))
        #expect(right.countErrors.isEmpty, "\(right)")
        let wrong = try JUnitValidator.validate(try changed("<testsuites>", #"<testsuites tests="6" failures="1">"#))
        #expect(wrong.countErrors == ["line 2: <testsuites> declares tests=6 but 5 found"], "\(wrong)")
    }

    @Test func aCountThatIsNotANumberIsCaught() throws {
        let result = try JUnitValidator.validate(try changed(#"skipped="1""#, #"skipped="one""#))
        #expect(result.countErrors == [#"line 26: suite 'Petstore': skipped="one" is not an integer"#], "\(result)")
        #expect(!result.accepts("windyroad-JUnit"), "xs:int: \(result)")
    }

    @Test func aReportThatIsNotXMLFailsEveryCheck() throws {
        let result = try JUnitValidator.validate(try changed("</testsuites>", "</testsuite>"))
        #expect(!result.isValid)
        for schema in JUnitValidator.schemaNames {
            #expect(result.error(schema)?.description.contains("not well-formed XML") == true, "\(result)")
        }
        #expect(result.countErrors.first?.hasPrefix("the report could not be read: ") == true, "\(result)")
    }
}
