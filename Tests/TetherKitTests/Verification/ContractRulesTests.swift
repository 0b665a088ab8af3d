import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

private func pattern(_ text: String) throws -> JSONPathPattern { try JSONPathPattern(text) }

private func ruledFindings(stub: String, live: String, rules: ContractRules, strict: Bool = false) throws -> [String] {
    renderedFindings(
        ShapeCheck.findings(
            stub: try JSONValue.parse(Data(stub.utf8)), live: Data(live.utf8), strict: strict, rules: rules))
}

/// Each rule, applied at its path in the structure walk, and what the same body gives without it.
@Suite struct ContractRulesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var stub: String
        var live: String
        var rules: @Sendable () throws -> ContractRules
        /// Findings without the rules (so that each case shows the rule changing something).
        var without: [String]
        var with: [String]
        var strict = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "ignore: a missing key and a wrong type are not checked",
            stub: #"{"id":1,"updated_at":"2024","items":[{"etag":"x","n":1}]}"#,
            live: #"{"id":2,"items":[{"etag":5,"n":2}]}"#,
            rules: { ContractRules(ignore: [try pattern("$.updated_at"), try pattern("$.items[*].etag")]) },
            without: [
                "drift $.items[0].etag: expected string, got number 5: change the property's type, or fix the stub",
                "drift $.updated_at: missing key (stub has string): make the property optional, or fix the stub",
            ],
            with: []),
        Case(
            name: "optional: may be absent, typed when present",
            stub: #"{"items":[{"discount":1.5}]}"#, live: #"{"items":[{},{"discount":"x"}]}"#,
            rules: { ContractRules(optional: [try pattern("$.items[*].discount")]) },
            without: [
                "drift $.items[0].discount: missing key (stub has number): make the property optional, or fix the stub",
                #"drift $.items[1].discount: expected number, got string "x": change the property's type, or fix the stub"#,
            ],
            with: [
                #"drift $.items[1].discount: expected number, got string "x": change the property's type, or fix the stub"#
            ]),
        Case(
            name: "nullable: may be null, typed when not",
            stub: #"[{"company":"Acme"}]"#, live: #"[{"company":null},{"company":3}]"#,
            rules: { ContractRules(nullable: [try pattern("$[*].company")]) },
            without: [
                "drift $[0].company: unexpected null (stub has string): make the property optional, or fix the stub",
                "drift $[1].company: expected string, got number 3: change the property's type, or fix the stub",
            ],
            with: ["drift $[1].company: expected string, got number 3: change the property's type, or fix the stub"]),
        Case(
            name: "maps: keys are free, values have the merged shape",
            stub: #"{"users":{"u1":{"name":"A"},"u2":{"name":"B","age":3}}}"#,
            live: #"{"users":{"x9":{"name":"C"},"y7":{"name":4}}}"#,
            rules: { ContractRules(maps: [try pattern("$.users")]) },
            without: [
                "note $.users.x9: key not in stub (object)", "note $.users.y7: key not in stub (object)",
                "drift $.users.u1: missing key (stub has object): make the property optional, or fix the stub",
                "drift $.users.u2: missing key (stub has object): make the property optional, or fix the stub",
            ],
            with: ["drift $.users.y7.name: expected string, got number 4: change the property's type, or fix the stub"]),
        Case(
            name: "strict true: a key not in the stub is a drift, naming the rule",
            stub: #"{"a":1}"#, live: #"{"a":1,"b":2}"#, rules: { ContractRules(isStrict: true) },
            without: ["note $.b: key not in stub (number)"],
            with: [
                "drift $.b: key not in stub (number): add it to the stub, or set rules.strict to false (or list it in rules.ignore)"
            ]),
        Case(
            name: "strict false wins over --strict",
            stub: #"{"a":1}"#, live: #"{"a":1,"b":2}"#, rules: { ContractRules(isStrict: false) },
            without: ["drift $.b: key not in stub (number): add it to the stub, or drop --strict"],
            with: ["note $.b: key not in stub (number)"], strict: true),
        Case(
            name: "values: the live value must be listed",
            stub: #"{"state":"open"}"#, live: #"{"state":"archived"}"#,
            rules: { ContractRules(values: [.init(try pattern("$.state"), [.string("open"), .string("closed")])]) },
            without: [], with: [#"drift $.state: "archived" is not one of open, closed (rules.values)"#]),
        Case(
            name: "values: numbers, once per path with a count",
            stub: #"[{"n":1}]"#, live: #"[{"n":1},{"n":7},{"n":8}]"#,
            rules: { ContractRules(values: [.init(try pattern("$[*].n"), [.integer(1), .integer(2)])]) },
            without: [], with: ["drift $[1].n: 7 is not one of 1, 2 (rules.values) … and in 1 more element"]),
        Case(
            name: "formats: uuid",
            stub: #"{"id":"123e4567-e89b-12d3-a456-426614174000"}"#, live: #"{"id":"123e4567"}"#,
            rules: { ContractRules(formats: [.init(try pattern("$.id"), .uuid)]) },
            without: [], with: [#"drift $.id: "123e4567" is not a uuid (rules.formats)"#]),
        Case(
            name: "formats: int32 on a live integer that does not fit",
            stub: #"{"n":1}"#, live: #"{"n":4294967296}"#,
            rules: { ContractRules(formats: [.init(try pattern("$.n"), .int32)]) },
            without: [], with: ["drift $.n: 4294967296 does not fit int32 (rules.formats)"]),
        Case(
            name: "formats: int64 on a live integer past 2^63",
            stub: #"{"n":1}"#, live: #"{"n":18446744073709551615}"#,
            rules: { ContractRules(formats: [.init(try pattern("$.n"), .int64)]) },
            without: [], with: ["drift $.n: 18446744073709551615 does not fit int64 (rules.formats)"]),
        Case(
            name: "formats: int64 on a live integer past 64 bits is a finding, not a broken body",
            stub: #"{"n":1,"m":"a"}"#, live: #"{"n":123456789012345678901234567890,"m":5}"#,
            rules: { ContractRules(formats: [.init(try pattern("$.n"), .int64)]) },
            without: [
                "drift body: number out of range (integers beyond 64 bits and values such as 1e400 are not supported): 123456789012345678901234567890 around line 1, column 6"
            ],
            with: [
                "drift $.n: 123456789012345678901234567890 does not fit int64 (rules.formats)",
                "drift $.m: expected string, got number 5: change the property's type, or fix the stub",
            ]),
        Case(
            name: "formats: a big integer where no integer format is keeps the body's error",
            stub: #"{"n":1,"k":2}"#, live: #"{"n":1,"k":123456789012345678901234567890}"#,
            rules: { ContractRules(formats: [.init(try pattern("$.n"), .int64)]) },
            without: [
                "drift body: number out of range (integers beyond 64 bits and values such as 1e400 are not supported): 123456789012345678901234567890 around line 1, column 12"
            ],
            with: [
                "drift body: number out of range (integers beyond 64 bits and values such as 1e400 are not supported): 123456789012345678901234567890 around line 1, column 12"
            ]),
        Case(
            name: "path form [\"odd key\"] and [n]",
            stub: #"{"odd key":[{"v":"a"}]}"#, live: #"{"odd key":[{"v":"b"}]}"#,
            rules: { ContractRules(values: [.init(try pattern(#"$["odd key"][0].v"#), [.string("a")])]) },
            without: [], with: [#"drift $["odd key"][0].v: "b" is not one of a (rules.values)"#]),
        Case(
            name: "path form $: ignore the whole body",
            stub: #"{"a":1}"#, live: #"{"b":"x"}"#, rules: { ContractRules(ignore: [try pattern("$")]) },
            without: [
                "note $.b: key not in stub (string)",
                "drift $.a: missing key (stub has integer): make the property optional, or fix the stub",
            ],
            with: []),
    ]

    @Test(arguments: cases) func rule(_ rule: Case) throws {
        let without = try ruledFindings(stub: rule.stub, live: rule.live, rules: ContractRules(), strict: rule.strict)
        #expect(without == rule.without, "\(without)")
        let with = try ruledFindings(stub: rule.stub, live: rule.live, rules: rule.rules(), strict: rule.strict)
        #expect(with == rule.with, "\(with)")
    }

    struct FormatCase: CustomTestStringConvertible, Sendable {
        var format: ContractRules.Format
        var valid: [String]
        var invalid: [String]
        var testDescription: String { format.rawValue }
    }

    static let formatCases: [FormatCase] = [
        FormatCase(
            format: .dateTime,
            valid: ["2024-05-01T12:30:00Z", "2024-05-01t12:30:00.123+02:00", "2024-02-29T23:59:60-05:30"],
            invalid: ["2024-05-01", "2024-05-01T12:30Z", "2023-02-29T00:00:00Z", "2024-05-01T25:00:00Z", "now"]),
        FormatCase(
            format: .date, valid: ["2024-05-01", "2000-02-29"],
            invalid: ["2024-5-1", "2024-13-01", "1900-02-29", "2024-05-01T00:00:00Z"]),
        FormatCase(
            format: .uuid,
            valid: [
                "123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000",
                "A987FBC9-4BED-3078-CF07-9141BA07C9F3",
            ],
            invalid: ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", ""]),
        FormatCase(
            format: .uri, valid: ["https://example.com/a?b=c#d", "mailto:a@b.c", "urn:isbn:0451450523", "a+b:x%20y"],
            invalid: ["/relative/path", "example.com", "https://exa mple.com", "1http://x", "http://x/%zz"]),
        FormatCase(
            format: .email, valid: ["a@b.co", "first.last+tag@mail.example.org"],
            invalid: ["a@b", "@b.co", "a b@c.de", "a@-b.co", "a@b..co"]),
    ]

    @Test(arguments: formatCases) func stringFormat(_ format: FormatCase) {
        for text in format.valid { #expect(ContractRules.holds(format.format, text), "\(text)") }
        for text in format.invalid { #expect(!ContractRules.holds(format.format, text), "\(text)") }
    }

    @Test func rulesAreEmptyExactlyWhenTheyAreTheDefaults() throws {
        let path = try pattern("$.a")
        var each: [ContractRules] = [ContractRules()]
        each.append(ContractRules(ignore: [path]))
        each.append(ContractRules(optional: [path]))
        each.append(ContractRules(nullable: [path]))
        each.append(ContractRules(maps: [path]))
        each.append(ContractRules(isStrict: false))
        each.append(ContractRules(formats: [.init(path, .uuid)]))
        each.append(ContractRules(values: [.init(path, [.integer(1)])]))
        each.append(ContractRules(status: []))
        for rules in each {
            #expect(rules.isEmpty == (rules == ContractRules()), "\(rules)")
        }
        #expect(each.filter(\.isEmpty).count == 1)
    }

    @Test func targetRulesAddToServiceRules() throws {
        let service = ContractRules(
            ignore: [try pattern("$.a")], isStrict: true, formats: [.init(try pattern("$.id"), .uuid)],
            values: [.init(try pattern("$.s"), [.string("x")])], status: [200])
        let target = ContractRules(
            ignore: [try pattern("$.b"), try pattern("$.a")], isStrict: false,
            formats: [.init(try pattern("$.id"), .int64)],
            values: [.init(try pattern("$.t"), [.bool(true)])])
        let merged = target.merged(over: service)
        #expect(merged.ignore.map(\.description) == ["$.a", "$.b"])
        #expect(merged.isStrict == false)
        let id = try pattern("$.id")
        #expect(merged.formats == [.init(id, .int64)])
        #expect(merged.values.map(\.path.description) == ["$.s", "$.t"])
        #expect(merged.status == [200])
        #expect(ContractRules().merged(over: service) == service)
        #expect(target.merged(over: ContractRules()) == target)
        // Only empty rules are passed through: a status or strictness alone is merged.
        #expect(ContractRules(status: [201]).merged(over: service).status == [201])
        #expect(ContractRules(isStrict: false).merged(over: service).formats == service.formats)
        #expect(service.merged(over: ContractRules(status: [404])).status == [200])
    }

    @Test func serviceRulesApplyWhereTheStubHasThePath() throws {
        let service = ContractRules(ignore: [try pattern("$.a"), try pattern("$.b")])
        let applicable = service.applicable(to: .json(try JSONValue.parse(Data(#"{"a":1}"#.utf8))))
        #expect(applicable.ignore.map(\.description) == ["$.a"])
    }

    @Test func statusRuleReplacesTheStubsStatus() throws {
        var contract = Contract(
            service: "S", name: "t", baseURL: "http://127.0.0.1:1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1:1/x"), sampleData: .none, source: "test")
        contract.rules.status = [200, 304]
        let notModified = HTTPResponse(statusCode: 304, url: "http://127.0.0.1:1/x")
        #expect(ContractCheck.findings(contract: contract, response: notModified).filter(\.isDrift).isEmpty)
        let failing = HTTPResponse(statusCode: 500, url: "http://127.0.0.1:1/x")
        let findings = ContractCheck.findings(contract: contract, response: failing)
        #expect(findings.first?.message == "500 is not one of 200, 304 (rules.status)")
        contract.rules.status = ValidationType.successCodes.statusCodes
        #expect(
            ContractCheck.findings(contract: contract, response: failing).first?.message
                == "500 is not one of successCodes (rules.status)")
    }
}
