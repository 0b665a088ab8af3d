import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// A folder of manifest and sample files for one test, removed when the test ends.
final class ContractFolder {
    let path: String

    init(_ files: [String: String]) throws {
        path = NSTemporaryDirectory() + "tether-contracts-" + UUID().uuidString
        for (name, text) in files {
            let file = (path as NSString).appendingPathComponent(name)
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

private func load(
    _ manifest: String, files: [String: String] = [:], environment: [String: String] = [:],
    overrides: BaseURLOverrides = .init()
) throws -> [Contract] {
    var all = files
    all["api.json"] = manifest
    let folder = try ContractFolder(all)
    return try ManifestLoader(environment: environment, baseURLOverrides: overrides).load(paths: [folder.path])
}

/// The error a manifest gives, as the user reads it, with the temporary folder's path taken out.
private func loadError(_ manifest: String, files: [String: String] = [:], environment: [String: String] = [:]) throws
    -> String
{
    var all = files
    all["api.json"] = manifest
    let folder = try ContractFolder(all)
    do {
        _ = try ManifestLoader(environment: environment).load(paths: [folder.path])
        Issue.record("expected a contract error")
        return ""
    } catch {
        // Without line and column (tested on their own below): `file: location: message`, one line per error.
        return error.errors.map { error in
            let text =
                error.location.isEmpty
                ? "\(error.file): \(error.message)" : "\(error.file): \(error.location): \(error.message)"
            return text.replacingOccurrences(of: folder.path + "/", with: "")
        }.joined(separator: "\n")
    }
}

@Suite struct ManifestLoaderTests {
    /// The byte search that tells a folder's manifests from its samples finds a needle wherever it is (at either
    /// end, overlapping a near miss), and nowhere else: against a plain search on random bytes of the needles' own.
    @Test func theSearchForAManifestsKeysFindsExactlyWhatAPlainSearchFinds() {
        var generator = SystemRandomNumberGenerator()
        let needles = [#""targets""#, #""baseURL""#, "arget", "g", "\""]
        let alphabet = Array(#""targetsbaseURL g"#.utf8)
        for round in 0..<2_000 {
            let count = round < 20 ? round : Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            for needle in needles {
                let wanted = Array(needle.utf8)
                let plain =
                    bytes.count >= wanted.count
                    && (0...(bytes.count - wanted.count)).contains { Array(bytes[$0..<$0 + wanted.count]) == wanted }
                #expect(
                    ManifestLoader.mentions(needle, in: Data(bytes)) == plain,
                    "\(needle) in \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(ManifestLoader.mentions(#""targets""#, in: Data(#"{"targets": []}"#.utf8)))
        #expect(ManifestLoader.mentions(#""baseURL""#, in: Data(#"{"a": 1, "baseURL""#.utf8)))
        #expect(!ManifestLoader.mentions(#""targets""#, in: Data(#"{"Targets": [], "target": "s"}"#.utf8)))
    }

    @Test func loadsTheIssueExampleWithDefaults() throws {
        let contracts = try load(
            """
            {
              "service": "GitHub",
              "baseURL": "https://api.github.com",
              "headers": { "Accept": "application/json", "Authorization": "Bearer ${GITHUB_TOKEN}" },
              "targets": [
                { "name": "userRepositories", "method": "GET", "path": "/users/octocat/repos",
                  "query": { "per_page": "2" },
                  "sampleData": { "file": "samples/userRepositories.json" } },
                { "name": "unauthorized", "method": "GET", "path": "/user",
                  "headers": { "Authorization": null },
                  "sampleData": { "json": { "message": "Requires authentication" } },
                  "sampleResponse": { "networkResponse": { "statusCode": 401 } } },
                { "name": "createIssue", "method": "POST", "path": "/repos/octocat/hello/issues",
                  "task": { "requestJSONEncodable": { "title": "Found a bug" } },
                  "sampleData": { "file": "samples/issue.json" },
                  "sampleResponse": { "response": { "statusCode": 201, "headers": { "Content-Type": "application/json" } } } },
                { "name": "offline", "method": "GET", "path": "/zen",
                  "sampleResponse": { "networkError": { "code": -1009, "description": "The Internet connection appears to be offline." } } }
              ]
            }
            """,
            files: ["samples/userRepositories.json": #"[{"name": "Repo Name"}]"#, "samples/issue.json": #"{"id": 1}"#],
            environment: ["GITHUB_TOKEN": "ghp_secret123"])
        #expect(contracts.map(\.name) == ["userRepositories", "unauthorized", "createIssue", "offline"])
        let repos = contracts[0]
        #expect(repos.service == "GitHub")
        #expect(repos.request.url == "https://api.github.com/users/octocat/repos?per_page=2")
        #expect(
            repos.request.headers == [
                HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer ghp_secret123"),
            ])
        #expect(repos.sampleData == .json(.array([.object([JSONMember("name", .string("Repo Name"))])])))
        #expect(repos.sampleResponse == .network(statusCode: 200, headers: []))
        #expect(repos.secrets == ["ghp_secret123"])
        #expect(contracts[1].request.headers == [HTTPHeader("Accept", "application/json")])
        #expect(contracts[1].sampleResponse == .network(statusCode: 401, headers: []))
        #expect(contracts[2].request.method == "POST")
        #expect(contracts[2].request.body.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"Found a bug"}"#)
        #expect(contracts[2].request.headers.last == HTTPHeader("Content-Type", "application/json"))
        #expect(
            contracts[2].sampleResponse
                == .network(statusCode: 201, headers: [HTTPHeader("Content-Type", "application/json")]))
        #expect(
            contracts[3].sampleResponse
                == .networkError(code: -1009, description: "The Internet connection appears to be offline."))
        #expect(contracts[3].sampleData == .none)
    }

    @Test func baseURLOverridesApplyToAllOrOneService() throws {
        let manifest = #"{"service": "S", "baseURL": "https://${HOST}", "targets": [{"name": "a", "path": "x y"}]}"#
        let all = try load(manifest, overrides: BaseURLOverrides(all: "http://127.0.0.1:9"))
        #expect(all[0].request.url == "http://127.0.0.1:9/x%20y")
        #expect(all[0].baseURL == "http://127.0.0.1:9")
        let one = try load(
            manifest, overrides: BaseURLOverrides(all: "http://127.0.0.1:9", byService: ["S": "http://127.0.0.1:8/v1/"])
        )
        #expect(one[0].request.url == "http://127.0.0.1:8/v1/x%20y")
        #expect(throws: ContractErrors.self) {
            try load(manifest, overrides: BaseURLOverrides(byService: ["T": "http://127.0.0.1:8"]))
        }
    }

    @Test func inlineStubsAreKeptAsTextAndReadAsTheValuesTheyWrite() throws {
        // The loader keeps an inline stub's text (see `JSONStub`); what it reads back is what the text says.
        let contracts = try load(
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"json": {"id": 1, "tags": ["x", null], "n": "\u00e9"}}}, {"name": "b", "sampleData": {"json":{ "id" :1,"tags":["x",null],"n":"é"}}}, {"name": "c", "sampleData": {"json": {"id": 2}}}, {"name": "d", "sampleData": {"json": null}}]}"#
        )
        let expected = JSONValue.object([
            JSONMember("id", .integer(1)), JSONMember("tags", .array([.string("x"), .null])),
            JSONMember("n", .string("é")),
        ])
        guard case .json(let stub) = contracts[0].sampleData else {
            Issue.record("not a JSON stub: \(contracts[0].sampleData)")
            return
        }
        #expect(stub.value == expected)
        #expect(contracts[0].sampleData == .json(expected))
        #expect(contracts[0].sampleData == contracts[1].sampleData)  // other spacing and escapes, the same document
        #expect(contracts[0].sampleData != contracts[2].sampleData)
        #expect(contracts[3].sampleData == .json(.null))
    }

    @Test func sampleFilesThatAreNotJSONBecomeTextStubs() throws {
        let contracts = try load(
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"file": "zen.txt"}}, {"name": "b", "sampleData": {"file": "obj.txt"}}, {"name": "c", "sampleData": {"file": "empty.txt"}}, {"name": "d", "sampleData": {"base64": "aGk="}}, {"name": "e", "sampleData": {"text": ""}}]}"#,
            files: ["zen.txt": "Keep it logically awesome.", "obj.txt": #"{"a": 1}"#, "empty.txt": " \n"])
        #expect(contracts[0].sampleData == .text(Data("Keep it logically awesome.".utf8)))
        #expect(contracts[1].sampleData == .json(.object([JSONMember("a", .integer(1))])))
        #expect(contracts[2].sampleData == .none)
        #expect(contracts[3].sampleData == .text(Data("hi".utf8)))
        #expect(contracts[4].sampleData == .none)
    }

    @Test func variablesExpandEverywhereAndBecomeSecrets() throws {
        let contracts = try load(
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "path": "/u/${USER_ID}", "query": {"key": "${API_KEY}", "s": "${STATUS}"}, "task": {"requestJSONEncodable": {"token": "${API_KEY}", "n": 1}}, "headers": {"X-Default": "${UNSET:-fallback}", "X-Literal": "$${NOT_A_VAR}"}}]}"#,
            environment: ["USER_ID": "42", "API_KEY": "k3y-v4lue", "STATUS": "202"])
        let request = contracts[0].request
        #expect(request.url == "https://x.test/u/42?key=k3y-v4lue&s=202")
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"token":"k3y-v4lue","n":1}"#)
        #expect(request.headers.contains(HTTPHeader("X-Default", "fallback")))
        #expect(request.headers.contains(HTTPHeader("X-Literal", "${NOT_A_VAR}")))
        // Short values (42, 202) are not secrets: hunting them in free text would mangle timestamps.
        #expect(contracts[0].secrets == ["k3y-v4lue", "k3y-v4lue"])
    }

    @Test(arguments: [
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleDta": {"json": 1}}]}"#,
            "api.json: targets[0].sampleDta: unknown key (did you mean 'sampleData'?)"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a"}, {"name": "a"}]}"#,
            "api.json: targets[1].name: target 'a' is declared twice in service 'S' (first at targets[0])"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "path": "/${TOKEN}"}]}"#,
            "api.json: targets[0].path: environment variable TOKEN is not set"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"file": "missing.json"}}]}"#,
            "api.json: targets[0].sampleData.file: cannot read sample file 'missing.json'"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"file": "broken.json"}}]}"#,
            "broken.json: not valid JSON: expected a value, got the end of the input (the sample file of targets[0].sampleData.file in api.json)"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleResponse": {"networkResponse": {"statusCode": 1000}}}]}"#,
            "api.json: targets[0].sampleResponse.networkResponse.statusCode: 1000 is out of range 100...599"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "task": {"requestParameters": {"parameters": {}, "encoding": "jsn"}}}]}"#,
            "api.json: targets[0].task.requestParameters.encoding: unknown encoding 'jsn' (did you mean 'json'?)"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "task": "requestPlian"}]}"#,
            "api.json: targets[0].task: unknown case 'requestPlian' (did you mean 'requestPlain'?)"
        ),
        (
            #"{"service": "S", "baseURL": "ftp://x.test", "targets": []}"#,
            "api.json: baseURL: 'ftp://x.test' is not an http or https URL: write it as "
                + "https://host[:port][/path], with no space in it"
        ),
        (
            #"{"service": "S", "baseURL": "https://api example.test", "targets": []}"#,
            "api.json: baseURL: 'https://api example.test' is not an http or https URL"
        ),
        (
            #"{"baseURL": "https://x.test", "targets": []}"#,
            "api.json: missing key \"service\""
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": 5}]}"#,
            "api.json: targets[0].name: expected a string, got integer 5"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleResponse": {"networkResponse": {"statusCode": "401"}}}]}"#,
            #"api.json: targets[0].sampleResponse.networkResponse.statusCode: expected an integer, got string "401""#
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "headers": {"X": "a\nb"}}]}"#,
            "api.json: targets[0].headers.X: a header value must not contain a line break"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "path": "/${oops"}]}"#,
            "api.json: targets[0].path: '${' without a closing '}'"
        ),
        (
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a",}]}"#,
            "api.json: not valid JSON"
        ),
    ])
    func brokenManifestsNameFileAndLocation(manifest: String, expected: String) throws {
        let message = try loadError(manifest, files: ["broken.json": "{\"a\": "])
        #expect(message.hasPrefix(expected), "got: \(message)")
    }

    @Test(arguments: ["X Token", "X-Token:", ":status", "X-Tökén"])
    func headerNamesThatCannotGoOnTheWireAreContractErrors(name: String) throws {
        let message = try loadError(
            #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "headers": {"\#(name)": "1"}}]}"#
        )
        #expect(message.hasPrefix("api.json: targets[0].headers"), "got: \(message)")
        #expect(message.hasSuffix(": '\(name)' is not a valid header name"), "got: \(message)")
    }

    @Test func reviewedEdgeCasesAreContractErrors() throws {
        // An empty *.json sample is not valid JSON (leave sampleData out for Data()).
        #expect(
            try loadError(
                #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"file": "e.json"}}]}"#,
                files: ["e.json": "  \n"]
            ).hasPrefix(
                "api.json: targets[0].sampleData.file: sample file 'e.json' is empty (leave sampleData out for Moya's Data())"
            ))
        // Malformed base64 is an error, never an empty stub that checks nothing.
        #expect(
            try loadError(
                #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "sampleData": {"base64": "!!!!"}}]}"#
            )
                == "api.json: targets[0].sampleData.base64: not valid base64")
        // A variable cannot smuggle a line break into a header.
        #expect(
            try loadError(
                #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a", "headers": {"X-Token": "${TOK}"}}]}"#,
                environment: ["TOK": "abc\r\nX-Injected: yes"]
            ).hasPrefix(
                "api.json: targets[0].headers[\"X-Token\"]: the value, once its variables are expanded, holds a line break"
            ))
        // A bad base URL is quoted as written, not with the secret its variable holds.
        let message = try loadError(
            #"{"service": "S", "baseURL": "${BASE}", "targets": []}"#,
            environment: ["BASE": "api.test/?token=TOPSECRET99"])
        #expect(message.hasPrefix("api.json: baseURL: '${BASE}' is not an http or https URL: write it as"))
    }

    @Test func everyContractErrorOfEveryFileAtOnceWithLineAndColumn() throws {
        let folder = try ContractFolder([
            "a.json": """
            {
              "service": "A",
              "baseURL": "https://x.test",
              "targets": [
                { "name": "one", "qurey": {"a": "1"} },
                { "name": "two", "metod": "GET", "sampleResponse": {"networkResponse": {"statusCode": 99}} },
                { "name": "three", "sampleData": {"file": "bad.json"}, "validationType": "succesCodes" }
              ],
              "extra": 1
            }
            """,
            "bad.json": "{\"a\": 1,\n}",
            "b.json": "{\"service\": \"B\", \"baseURL\": \"https://y.test\", \"targets\": [{\"nme\": \"x\"},]}",
        ])
        let (lines, error) = Self.diagnostics(loading: folder)
        #expect(
            lines == [
                "a.json:5:22: error: targets[0].qurey: unknown key (did you mean 'query'?)",
                "a.json:6:22: error: targets[1].metod: unknown key (did you mean 'method'?)",
                "a.json:6:91: error: targets[1].sampleResponse.networkResponse.statusCode: 99 is out of range 100...599",
                "a.json:7:78: error: targets[2].validationType: unknown case 'succesCodes' (did you mean 'successCodes'?); expected one of: none, successCodes, successAndRedirectCodes, customCodes",
                "a.json:9:3: error: extra: unknown key (expected one of: service, baseURL, headers, targets, description, stubBehavior, rules, spec, auth, steps)",
                "bad.json:1:8: error: not valid JSON: a comma before '}' (remove the trailing comma) (the sample file of targets[2].sampleData.file in a.json)",
                "b.json:1:71: error: not valid JSON: a comma before ']' (remove the trailing comma)",
            ])
        #expect(error?.countText == "7 contract errors")
    }

    /// A repeated key is an error at its second place, at every depth, beside an unknown key of the same object (the
    /// members kept are then the others, in order); a stub's `sampleData` reports its first problem.
    @Test func aRepeatedKeyIsAnErrorAtItsSecondPlace() throws {
        let folder = try ContractFolder([
            "a.json": """
            {"service": "S", "baseURL": "https://x.test", "targets": [
             {"name": "a", "pth": "/a", "name": "b", "path": "/a", "path": "/b"},
             {"name": "c", "sampleData": {"json": {"a": 1}, "jsn": 2, "json": {"b": 2}}},
             {"name": "d", "sampleResponse": {"networkResponse": {"statusCode": 200, "statusCode": 201}}}
            ], "service": "T"}
            """
        ])
        let lines = Self.diagnostics(loading: folder).lines
        #expect(
            lines == [
                "a.json:2:16: error: targets[0].pth: unknown key (did you mean 'path'?)",
                "a.json:2:29: error: targets[0].name: key appears twice (first at 2:3): keep one",
                "a.json:2:56: error: targets[0].path: key appears twice (first at 2:42): keep one",
                "a.json:3:49: error: targets[1].sampleData.jsn: unknown key (did you mean 'json'?)",
                "a.json:4:74: error: targets[2].sampleResponse.networkResponse.statusCode: key appears twice (first at "
                    + "4:55): keep one",
                "a.json:5:4: error: service: key appears twice (first at 1:2): keep one",
            ])
    }

    /// The errors of loading `folder`, one diagnostic a line (`file:line:column: error: …`), the folder's path left
    /// out; an issue is recorded when loading succeeds.
    private static func diagnostics(loading folder: ContractFolder) -> (lines: [String], errors: ContractErrors?) {
        let error = #expect(throws: ContractErrors.self) {
            try ManifestLoader(environment: [:]).load(paths: [folder.path])
        }
        let lines = (error?.description ?? "").replacingOccurrences(of: folder.path + "/", with: "")
            .split(separator: "\n").map(String.init)
        return (lines, error)
    }

    @Test func aLongListOfErrorsIsCappedWithACount() throws {
        let targets = (0..<60).map { #"{"name": "t\#($0)", "pth": "/"}"# }.joined(separator: ",\n")
        let folder = try ContractFolder([
            "a.json": #"{"service": "A", "baseURL": "https://x.test", "targets": [\#n\#(targets)]}"#
        ])
        let error = #expect(throws: ContractErrors.self) {
            try ManifestLoader(environment: [:]).load(paths: [folder.path])
        }
        #expect(error?.errors.count == 60)
        let lines = error?.description.split(separator: "\n") ?? []
        #expect(lines.count == 51)
        #expect(
            lines.first?.hasSuffix("a.json:2:16: error: targets[0].pth: unknown key (did you mean 'path'?)") == true)
        #expect(lines.last == "… and 10 more contract errors")
    }

    @Test func aFileNamedTwiceIsLoadedOnce() throws {
        let folder = try ContractFolder([
            "api.json": #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a"}]}"#
        ])
        let contracts = try ManifestLoader(environment: [:]).load(paths: [
            folder.path, folder.file("api.json"), folder.path + "/./api.json",
        ])
        #expect(contracts.map(\.name) == ["a"])
    }

    @Test func aManifestWithAByteOrderMarkLoads() throws {
        let folder = try ContractFolder(["samples/x.txt": ""])
        let bytes =
            Data([0xEF, 0xBB, 0xBF])
            + Data(#"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a"}]}"#.utf8)
        try bytes.write(to: URL(fileURLWithPath: folder.file("api.json")))
        #expect(try ManifestLoader(environment: [:]).load(paths: [folder.path]).map(\.name) == ["a"])
    }

    @Test func aFolderWithoutManifestsIsAnError() throws {
        let folder = try ContractFolder(["samples/a.json": "[1]"])
        #expect(throws: ContractErrors.self) { try ManifestLoader(environment: [:]).load(paths: [folder.path]) }
        #expect(throws: ContractErrors.self) {
            try ManifestLoader(environment: [:]).load(paths: [folder.file("samples/a.json")])
        }
        #expect(throws: ContractErrors.self) {
            try ManifestLoader(environment: [:]).load(paths: [folder.file("nowhere")])
        }
    }

    /// A folder's file that lost its "targets" (misspelled, removed, emptied) is an error naming it, never skipped as
    /// a sample file: the run would pass without its targets. Samples that only look alike stay samples.
    @Test(arguments: [
        (
            #"{"service": "T", "baseURL": "https://x.test", "targetz": [{"name": "b"}]}"#,
            #"b.json:1:47: error: targetz: a contract manifest without "targets" (did you mean 'targets'?): add the "#
                + "targets array, or move the file out of the folder if it is not a manifest"
        ),
        (#"{"service": "T", "Targets": []}"#, #"b.json:1:18: error: Targets: a contract manifest without "targets""#),
        (
            #"{"service": "T", "baseURL": "https://x.test"}"#,
            #"b.json:1:1: error: a contract manifest without "targets""#
        ),
        (
            " \n",
            "b.json: error: an empty file: neither a contract manifest nor a sample file; write the manifest, or remove it"
        ),
    ])
    func aManifestThatLostItsTargetsInAFolderIsAnError(broken: String, expected: String) throws {
        let folder = try ContractFolder([
            "a.json": #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a"}]}"#, "b.json": broken,
        ])
        do {
            _ = try ManifestLoader(environment: [:]).load(paths: [folder.path])
            Issue.record("\(broken) was skipped")
        } catch {
            let shown = error.errors.map { $0.diagnostic.replacingOccurrences(of: folder.path + "/", with: "") }
            #expect(shown.count == 1 && shown[0].hasPrefix(expected), "\(shown)")
        }
        let alike = try ContractFolder([
            "a.json": #"{"service": "S", "baseURL": "https://x.test", "targets": [{"name": "a"}]}"#,
            "samples/health.json": #"{"service": "api", "status": "up"}"#,
            "samples/deploy.json": #"{"target": "production", "target_url": "https://x.test", "targetx": "y"}"#,
            "samples/links.json": #"{"service": "api", "baseURL": ["https://x.test"]}"#,
            "samples/broken.json": #"{"baseURL": "#,
        ])
        #expect(try ManifestLoader(environment: [:]).load(paths: [alike.path]).map(\.name) == ["a"])
    }

    /// `--base-url` (and `--mock`) replace a service's base URL for a run; the manifest's own is still checked, as far
    /// as it can be without its variables.
    @Test func aReplacedBaseURLIsStillCheckedInTheManifest() throws {
        let replaced = ManifestLoader(environment: [:], baseURLOverrides: BaseURLOverrides(all: "http://127.0.0.1:9"))
        for (baseURL, expected) in [
            ("42", "baseURL: expected a string, got integer"),
            (#""https://api example.test""#, "baseURL: 'https://api example.test' is not an http or https URL"),
        ] {
            let folder = try ContractFolder([
                "api.json": #"{"service": "S", "baseURL": \#(baseURL), "targets": [{"name": "a"}]}"#
            ])
            #expect(throws: ContractErrors.self) { try replaced.load(paths: [folder.path]) }
            do { _ = try replaced.load(paths: [folder.path]) } catch {
                #expect(error.errors.map(\.description).contains { $0.contains(expected) }, "\(error.errors)")
            }
        }
        let unset = try ContractFolder([
            "api.json": #"{"service": "S", "baseURL": "${NOT_SET_HERE}/v1", "targets": [{"name": "a"}]}"#
        ])
        #expect(try replaced.load(paths: [unset.path]).map(\.request.url) == ["http://127.0.0.1:9"])
    }

    @Test func theShippedExampleLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let contracts = try ManifestLoader(environment: [:]).load(paths: [root.appendingPathComponent("contracts").path]
        )
        #expect(
            contracts.contains {
                $0.name == "userRepositories"
                    && $0.sampleData == .json(.array([.object([JSONMember("name", .string("Repo Name"))])]))
            })
        #expect(
            contracts.contains {
                $0.name == "unauthorized" && $0.sampleResponse == .network(statusCode: 401, headers: [])
            })
    }
}

/// A manifest of many targets: the contracts in file order, each with its place, and every error in file order.
@Suite struct ManyTargetsLoadTests {
    private static func manifest(_ count: Int, broken: Set<Int> = [], repeated: [Int: Int] = [:]) -> String {
        let targets = (0..<count).map { index -> String in
            let name = repeated[index].map { "t\($0)" } ?? "t\(index)"
            if broken.contains(index) { return #"{"name": "\#(name)", "pathh": "/\#(index)"}"# }
            return #"{"name": "\#(name)", "path": "/items/\#(index)", "sampleData": {"json": {"id": \#(index)}}}"#
        }
        return #"{"service": "S", "baseURL": "http://127.0.0.1:9", "targets": [\#n"#
            + targets.joined(separator: ",\n") + "\n]}"
    }

    @Test func manyTargetsLoadInFileOrder() throws {
        let contracts = try load(Self.manifest(1_500))
        #expect(contracts.map(\.name) == (0..<1_500).map { "t\($0)" })
        #expect(contracts.map(\.request.url) == (0..<1_500).map { "http://127.0.0.1:9/items/\($0)" })
        #expect(contracts.map(\.declaration?.line) == (0..<1_500).map { $0 + 2 })
        #expect(contracts[1_499].sampleData == .json(.object([JSONMember("id", .integer(1_499))])))
    }

    @Test func errorsOfManyTargetsComeInFileOrder() throws {
        let errors = try loadError(Self.manifest(1_500, broken: [3, 700, 1_499], repeated: [1_200: 5]))
        #expect(
            errors == """
                api.json: targets[3].pathh: unknown key (did you mean 'path'?)
                api.json: targets[700].pathh: unknown key (did you mean 'path'?)
                api.json: targets[1200].name: target 't5' is declared twice in service 'S' (first at targets[5]); target names must be unique within a service
                api.json: targets[1499].pathh: unknown key (did you mean 'path'?)
                """)
    }

    /// Long manifests are built in parts, on several threads, each storing its contracts up to its first broken
    /// target: a name repeated after a broken target, by one before or after it, in the same part or another, is
    /// still found, and every error comes once, in file order.
    @Test func repeatedNamesAroundBrokenTargetsInLongManifests() throws {
        let errors = try loadError(
            Self.manifest(1_500, broken: [3, 900], repeated: [100: 50, 200: 150, 901: 2, 1_400: 950]))
        let repeated = { (at: Int, name: Int) in
            "api.json: targets[\(at)].name: target 't\(name)' is declared twice in service 'S' (first at targets[\(name)]); target names must be unique within a service"
        }
        #expect(
            errors.split(separator: "\n").map(String.init) == [
                "api.json: targets[3].pathh: unknown key (did you mean 'path'?)", repeated(100, 50),
                repeated(200, 150), "api.json: targets[900].pathh: unknown key (did you mean 'path'?)",
                repeated(901, 2), repeated(1_400, 950),
            ])
        // A broken target that repeats a name: its own error, and the repeat, at once (not once the first is mended),
        // in file order (its name comes first); a broken target's name counts as a first declaration too.
        let both = try loadError(Self.manifest(1_500, broken: [3, 700], repeated: [700: 5, 1_300: 3]))
        #expect(
            both.split(separator: "\n").map(String.init) == [
                "api.json: targets[3].pathh: unknown key (did you mean 'path'?)", repeated(700, 5),
                "api.json: targets[700].pathh: unknown key (did you mean 'path'?)", repeated(1_300, 3),
            ])
        let small = try loadError(Self.manifest(3, broken: [1], repeated: [1: 0]))
        #expect(
            small.split(separator: "\n").map(String.init) == [
                repeated(1, 0), "api.json: targets[1].pathh: unknown key (did you mean 'path'?)",
            ])
        // Without errors, the parts' contracts are the manifest's, whole and in order.
        let contracts = try load(Self.manifest(3_001))
        #expect(contracts.map(\.name) == (0..<3_001).map { "t\($0)" })
    }
}
