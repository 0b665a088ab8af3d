import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct ContractFilterTests {
    private func contract(_ service: String, _ name: String) -> Contract {
        Contract(
            service: service, name: name, baseURL: "http://127.0.0.1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), sampleData: .none, source: "x")
    }

    @Test(arguments: [
        ([], "GitHub", "zen", true),
        (["zen"], "GitHub", "zen", true),
        (["GitHub.zen"], "GitHub", "zen", true),
        (["GitHub.*"], "GitHub", "userRepositories", true),
        (["*Repositories"], "GitHub", "userRepositories", true),
        (["user?rofile"], "GitHub", "userProfile", true),
        (["Shop.*"], "GitHub", "zen", false),
        (["ze"], "GitHub", "zen", false),
        (["*a*b*c*"], "S", "xaybzc", true),
        (["*a*b*c*"], "S", "xaybz", false),
        (["Shop.*", "zen"], "GitHub", "zen", true),
        // `?` is one character, not one byte: é (2 bytes), e + combining accent (one character), \r\n (one).
        (["caf?"], "S", "café", true),
        (["caf??"], "S", "café", false),
        (["caf?"], "S", "cafe\u{301}", true),
        (["a?b"], "S", "a\r\nb", true),
        (["a??b"], "S", "a\r\nb", false),
        (["a??b"], "S", "a\n\nb", true),
    ])
    func globsMatchQualifiedOrBareNames(patterns: [String], service: String, name: String, expected: Bool) {
        #expect(ContractFilter(patterns: patterns).matches(contract(service, name)) == expected)
    }
}
