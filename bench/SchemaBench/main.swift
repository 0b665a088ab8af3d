// The schema check's speed: a few hundred bodies checked against one compiled OpenAPI schema, in a release build,
// beside openapi-schema-validator doing the same in one Python run (bench/schema-check runs both; this is Tether's
// side). Usage:
//   schema-bench --document FILE --pointer '#/components/schemas/x' --bodies BODIES.json [--dialect 3.0|3.1]
//                [--runs N] [--mode standard|consumer]
// BODIES.json is a JSON array of bodies. Prints the compile time once, then per run the time to check every body,
// and a last line `RESULT <median seconds per run> <bodies> <violations>`.
import Foundation
import TetherKit

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var document = ""
    var pointer = ""
    var bodies = ""
    var dialect = SchemaDialect.openAPI30
    var runs = 5
    var mode = SchemaCheckMode.standard

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            let value = rest.popFirst() ?? ""
            switch argument {
            case "--document": document = value
            case "--pointer": pointer = value
            case "--bodies": bodies = value
            case "--dialect": dialect = SchemaDialect(rawValue: value) ?? dialect
            case "--runs": runs = max(1, Int(value) ?? runs)
            case "--mode": mode = value == "consumer" ? .consumer : .standard
            default:
                FileHandle.standardError.write(Data("schema-bench: unknown option \(argument)\n".utf8))
                exit(2)
            }
        }
    }
}

/// One JSON document: `#/…` pointers only (the bench schema has no references to other files).
struct Document: SchemaSource {
    let file: String
    let root: JSONValue

    struct Unresolved: Error, CustomStringConvertible {
        var reference: String
        var description: String { "\(reference) does not resolve" }
    }

    func resolve(_ reference: String, at place: SpecPlace) throws -> SchemaValue {
        guard reference.hasPrefix("#") else { throw Unresolved(reference: reference) }
        var value = root
        var pointer = "#"
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object(let members):
                guard let member = members.first(where: { $0.key == key }) else {
                    throw Unresolved(reference: reference)
                }
                value = member.value
            case .array(let items):
                guard let index = Int(key), items.indices.contains(index) else {
                    throw Unresolved(reference: reference)
                }
                value = items[index]
            default:
                throw Unresolved(reference: reference)
            }
            pointer += "/" + SpecPlace.escaped(key)
        }
        return SchemaValue(value, at: SpecPlace(file: file, pointer: pointer, line: 1, column: 1))
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("schema-bench: \(message)\n".utf8))
    exit(1)
}

let options = Options(CommandLine.arguments)
guard let documentData = FileManager.default.contents(atPath: options.document),
    let bodiesData = FileManager.default.contents(atPath: options.bodies)
else { fail("cannot read --document \(options.document) or --bodies \(options.bodies)") }
let document: Document
let bodies: [JSONValue]
do {
    document = Document(file: options.document, root: try JSONValue.parse(documentData))
    guard case .array(let list) = try JSONValue.parse(bodiesData) else { fail("--bodies is not a JSON array") }
    bodies = list
} catch {
    fail("\(error)")
}
let clock = ContinuousClock()
var compiler = SchemaCompiler(dialect: options.dialect, source: document)
let schema: CompiledSchema
let compileStart = clock.now
do {
    let target = try document.resolve(
        options.pointer, at: SpecPlace(file: options.document, pointer: "#", line: 1, column: 1))
    schema = try compiler.compile(target.value, at: target.place)
} catch {
    fail("\(error)")
}
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
print(String(format: "compile: %.3f ms", seconds(clock.now - compileStart) * 1000))
var times: [Double] = []
var violations = 0
for run in 1...options.runs {
    var found = 0
    let start = clock.now
    for body in bodies {
        found += schema.violations(of: body, mode: options.mode).count { $0.isViolation }
    }
    let elapsed = seconds(clock.now - start)
    times.append(elapsed)
    violations = found
    print(String(format: "run %d: %.3f ms for %d bodies (%d violations)", run, elapsed * 1000, bodies.count, found))
}
let median = times.sorted()[times.count / 2]
print(String(format: "RESULT %.6f %d %d", median, bodies.count, violations))
