import Testing

@testable import TetherContracts
@testable import TetherCore

@Suite struct JSONPathPatternTests {
    @Test func parsesEveryStepOfTheSyntax() throws {
        #expect(try JSONPathPattern("$").steps == [])
        #expect(try JSONPathPattern("$.user.email").steps == [.key("user"), .key("email")])
        #expect(
            try JSONPathPattern(#"$.items[*]["e-mail"][12]"#).steps == [
                .key("items"), .any, .key("e-mail"), .index(12),
            ])
        #expect(try JSONPathPattern(#"$["a \"b\"\u00e9"]"#).steps == [.key("a \"b\"é")])
        #expect(try JSONPathPattern("$._id$2").steps == [.key("_id$2")])
    }

    @Test(arguments: [
        ("email", 1, "'$' (the root) first"),
        ("$.", 3, "a key after '.'"),
        ("$..a", 3, "a key after '.'"),
        ("$[", 3, "*, a number or a quoted key"),
        ("$[x]", 3, "*, a number or a quoted key"),
        ("$[-1]", 3, "*, a number or a quoted key"),
        ("$[1", 4, "']'"),
        (#"$["open"#, 3, "a closing '\"'"),
        (#"$["\x"]"#, 3, "a JSON string key"),
        ("$.a b", 4, "'.' or '['"),
        ("$.é", 3, "a key after '.'"),
    ])
    func refusesWithTheColumnAndWhatWasExpected(pattern: String, column: Int, expected: String) {
        #expect {
            _ = try JSONPathPattern(pattern)
        } throws: { error in
            guard let error = error as? JSONPathPatternError else { return false }
            return error.column == column && error.problem.hasPrefix(expected)
                && error.description.contains("'\(pattern)'")
        }
    }

    @Test func matchesConcretePathsAndSaysWhereMatchesMayLieBelow() throws {
        let pattern = try JSONPathPattern("$.items[*].owner")
        #expect(pattern.matches([.key("items"), .index(3), .key("owner")]))
        #expect(pattern.matches([.key("items"), .key("by-id"), .key("owner")]))
        #expect(!pattern.matches([.key("items"), .index(3)]))
        #expect(!pattern.matches([.key("items"), .index(3), .key("owner"), .key("login")]))
        #expect(!pattern.matches([.key("other"), .index(3), .key("owner")]))
        #expect(pattern.mayMatchBelow([.key("items"), .index(0)]))
        #expect(!pattern.mayMatchBelow([.key("other")]))
        #expect(try JSONPathPattern("$[2]").matches([.index(2)]))
        #expect(try !JSONPathPattern("$[2]").matches([.index(1)]))
        #expect(try JSONPathPattern("$").matches([]))
    }
}
