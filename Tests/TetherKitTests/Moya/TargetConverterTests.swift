import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A Moya-shaped service whose targets carry rules through an extension, as a Moya target would adopt them.
private enum Orders: CaseIterable, TargetType {
    case order, typo

    var baseURL: URL { literalURL("http://127.0.0.1:9") }
    var path: String { self == .order ? "/orders/1" : "/orders/2" }
    var method: TetherKit.Method { .get }
    var task: Task { .requestPlain }
    var sampleData: Data {
        Data(#"{"id": "123e4567-e89b-12d3-a456-426614174000", "state": "open", "count": 1}"#.utf8)
    }
    var headers: [String: String]? { nil }
}

extension Orders {
    var rules: ContractRules {
        // The patterns are literals of this test; a broken one shows as an empty rule and a failing expectation.
        switch self {
        case .order:
            ContractRules(
                optional: (try? JSONPathPattern("$.count")).map { [$0] } ?? [], isStrict: true,
                values: (try? JSONPathPattern("$.state")).map { [.init($0, [.string("open"), .string("closed")])] }
                    ?? [], status: [200, 201])
        case .typo: ContractRules(ignore: (try? JSONPathPattern("$.stat")).map { [$0] } ?? [])
        }
    }
}

/// A target whose requests these tests do not look at: only its name.
private protocol Named: TargetType {}

extension Named {
    var baseURL: URL { literalURL("http://127.0.0.1:9") }
    var path: String { "/" }
    var method: TetherKit.Method { .get }
    var task: Task { .requestPlain }
    var sampleData: Data { Data() }
    var headers: [String: String]? { nil }
}

/// A target whose description is given, for its name in reports.
private struct Described: Named, CustomStringConvertible {
    let description: String
}

/// A target that writes itself to a stream as well as describing itself: `String(describing:)` takes the stream.
private struct Streamed: Named, CustomStringConvertible, TextOutputStreamable {
    var description: String { "described" }
    func write(to target: inout some TextOutputStream) { target.write("streamed(1)") }
}

/// A class target whose subclass describes itself, which its base class does not.
private class Base: Named {}

private final class Sub: Base, CustomStringConvertible {
    var description: String { "sub(2)" }
}

/// An enum target that does not describe itself: named by reflection.
private enum Plain: Named {
    case zen
    case user(name: String)
}

/// A target type inside a generic one.
private enum Wrapped<Value> {
    struct Inner: Named {}
}

/// Rules from Swift: the target's requirement, the verifier's service-wide rules, and the export's round trip.
@Suite struct TargetConverterTests {
    static func serviceRules() throws -> ContractRules {
        ContractRules(formats: [.init(try JSONPathPattern("$.id"), .uuid)])
    }

    @Test func aTargetsRulesAddToTheServiceRules() throws {
        var converter = TargetConverter()
        converter.rules = try Self.serviceRules()
        let rules = try converter.contract(for: Orders.order).contract.rules
        #expect(rules.formats.map(\.format) == [.uuid])
        #expect(rules.values.map(\.path.description) == ["$.state"])
        #expect(rules.optional.map(\.description) == ["$.count"])
        #expect(rules.isStrict == true)
        #expect(rules.status == [200, 201])
    }

    @Test func aTargetRuleOnAPathItsStubLacksIsAContractError() throws {
        #expect(throws: ContractError.self) { try TargetConverter().contract(for: Orders.typo) }
        do {
            _ = try TargetConverter().contract(for: Orders.typo)
        } catch {
            #expect(error.description.contains("Orders.typo"))
            #expect(error.description.contains("rules.ignore: path '$.stat' matches nothing in the stub"))
        }
    }

    @Test func theVerifierChecksWithTheRules() async throws {
        let transport = StubTransport { request in
            .success(
                HTTPResponse(
                    statusCode: 201, body: Data(#"{"id": "x", "state": "archived", "extra": 1}"#.utf8),
                    url: request.url))
        }
        let verifier = ContractVerifier(
            rules: try Self.serviceRules(),
            verifier: ContractRunner(transport: transport, now: { Date(timeIntervalSince1970: 0) }, hostname: "test"))
        let report = await verifier.verify([Orders.order])
        let messages = report.results.first?.findings.map { "\($0.path): \($0.message)" } ?? []
        #expect(
            messages == [
                #"$.id: "x" is not a uuid (rules.formats)"#,
                #"$.state: "archived" is not one of open, closed (rules.values)"#,
                "$.extra: key not in stub (number): add it to the stub, or set rules.strict to false (or list it in rules.ignore)",
            ], "\(messages)")
    }

    @Test func aServiceRuleThatNoStubHasIsAContractError() async throws {
        let transport = StubTransport(status: 200, body: "{}")
        let verifier = ContractVerifier(
            rules: ContractRules(nullable: [try JSONPathPattern("$.nope")]),
            verifier: ContractRunner(transport: transport, now: { Date(timeIntervalSince1970: 0) }, hostname: "test"))
        let report = await verifier.verify([Orders.order])
        #expect(report.contractErrors.map(\.message).contains { $0.contains("rules.nullable: path '$.nope'") })
    }

    @Test func aTargetsNameIsItsDescriptionUpToTheFirstParenthesisThatIsACharacter() {
        // The case with its values; a case without; a "(" that a combining mark joins is not the case's parenthesis,
        // nor one that a prepended mark (U+0600) joins; a "(" first is an empty name, as before.
        let expected = [
            "userRepositories(name: \"octocat\")": "userRepositories", "zen": "zen",
            "a(\u{301}b(c)": "a(\u{301}b", "x\u{600}(y": "x\u{600}(y", "(odd)": "",
            "caf\u{E9}(1)": "caf\u{E9}",
        ]
        for (description, name) in expected {
            #expect(TargetConverter.caseName(of: Described(description: description)) == name, "\(description)")
            #expect(name == (description.firstIndex(of: "(").map { String(description[..<$0]) } ?? description))
        }
    }

    @Test func eachTargetsFullNameIsWhatStringDescribingGives() {
        // Its description called directly (a struct), its stream first, a subclass's own description, reflection.
        let described = [Described(description: "a(1)"), Described(description: "b")]
        #expect(TargetConverter.fullNames(of: described) == described.map { String(describing: $0) })
        #expect(TargetConverter.fullNames(of: [Streamed()]) == ["streamed(1)"])
        let objects: [Base] = [Base(), Sub()]
        #expect(TargetConverter.fullNames(of: objects) == objects.map { String(describing: $0) })
        #expect(TargetConverter.fullNames(of: objects)[1] == "sub(2)")
        #expect(
            TargetConverter.fullNames(of: [Plain.zen, .user(name: "octocat")]) == ["zen", #"user(name: "octocat")"#])
        let multi = [MultiTarget(Described(description: "c(3)")), MultiTarget(Plain.zen)]
        #expect(TargetConverter.fullNames(of: multi) == ["c(3)", "zen"])
        #expect(
            TargetConverter.uniqueNames(for: described + [Described(description: "a(2)")]).map(\.name)
                == ["a(1)", "b", "a(2)"])
        // The service is the type's name as `String(describing:)` writes it: unqualified, a generic's arguments too.
        let services: [(any TargetType, String)] = [
            (Plain.zen, String(describing: Plain.self)), (Sub(), String(describing: Sub.self)),
            (Wrapped<Plain>.Inner(), String(describing: Wrapped<Plain>.Inner.self)),
            (MultiTarget(Streamed()), String(describing: Streamed.self)),
        ]
        for (target, name) in services { #expect(TargetConverter.serviceName(of: target) == name) }
        #expect(TargetConverter.serviceName(of: Wrapped<Plain>.Inner()) == "Inner")
    }

    @Test func exportWritesTheRulesAndTheLoaderReadsThemBack() throws {
        let folder = NSTemporaryDirectory() + "tether-rules-export-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var converter = TargetConverter()
        converter.rules = try Self.serviceRules()
        let inCode = try converter.contract(for: Orders.order)
        try ContractManifest(service: "Orders", contracts: [inCode]).write(to: folder)
        let loaded = try ManifestLoader(environment: [:]).load(paths: [folder])
        #expect(loaded.map(\.rules) == [inCode.contract.rules])
        #expect(loaded.first?.rules.isEmpty == false)
    }
}
