import Foundation
@_spi(Testing) import TetherKit

// Loading a large OpenAPI document beside simdjson parsing the same JSON (issue 22: "the time to load the document
// within 3 x the time simdjson takes to parse its JSON"). Make the document, then measure:
//   python3 Tests/TetherKitTests/Fixtures/spec/large/generate.py /tmp/tether-spec
//   swift build -c release --package-path bench && bench/.build/release/tether-bench --spec /tmp/tether-spec --runs 9
// Each round runs every measurement once, the order rotated (interleaved, as bench/interleave does for processes), in
// this process, on bytes already in memory; medians are printed.

/// Measures `SpecDocument.load` on `folder/large.json` and `folder/large.yaml` beside `JSONParser` on the JSON, and
/// compiling every schema of the loaded document (`SpecCheck(document:)`, what `--spec` does next).
func runSpecBench(folder: String, runs: Int) {
    func bytes(_ name: String) -> Data {
        guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)) else {
            print(
                "tether-bench: no \(name) in \(folder) (make it with Tests/TetherKitTests/Fixtures/spec/large/generate.py)"
            )
            exit(1)
        }
        return data
    }
    let json = bytes("large.json")
    let yaml = bytes("large.yaml")
    guard let parser = try? JSONParser() else {
        print("tether-bench: cannot make a JSON parser")
        exit(1)
    }
    func load(_ data: Data, _ name: String) -> Int {
        do {
            return try SpecDocument.load(file: name) { _ in data }.operations.count
        } catch {
            print("tether-bench: \(name): \(error)")
            exit(1)
        }
    }
    let document: SpecDocument
    do {
        document = try SpecDocument.load(file: "large.json") { _ in json }
    } catch {
        print("tether-bench: large.json: \(error)")
        exit(1)
    }
    let measurements: [(label: String, run: () -> Void)] = [
        ("simdjson parse to JSONValue (JSONParser.parse)", { _ = try? parser.parse(json) }),
        ("simdjson parse only (JSONParser.validate)", { try? parser.validate(json) }),
        ("JSONReader.document (values and places)", { _ = try? JSONReader().document(json) }),
        ("JSONParser.document (the loader's read)", { _ = (try? JSONParser())?.document(json) }),
        ("SpecDocument.load, JSON", { _ = load(json, "large.json") }),
        ("SpecDocument.load, YAML", { _ = load(yaml, "large.yaml") }),
        ("SpecCheck(document:), every schema compiled", { _ = try? SpecCheck(document: document) }),
    ]
    print(
        "tether-bench spec: large.json \(json.count) bytes, large.yaml \(yaml.count) bytes,"
            + " \(load(json, "large.json")) operations; \(runs) interleaved rounds, medians")
    var samples = Array(repeating: [Double](), count: measurements.count)
    for round in 0..<(runs + 1) {  // the first round warms up
        for offset in 0..<measurements.count {
            let index = (offset + round) % measurements.count
            let start = DispatchTime.now().uptimeNanoseconds
            measurements[index].run()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if round > 0 { samples[index].append(seconds) }
        }
    }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    let medians = samples.map(median)
    for (index, measurement) in measurements.enumerated() {
        print(
            measurement.label.padding(toLength: 48, withPad: " ", startingAt: 0)
                + String(
                    format: "%9.1f ms  (min %.1f, max %.1f)", medians[index] * 1000,
                    (samples[index].min() ?? 0) * 1000, (samples[index].max() ?? 0) * 1000))
    }
    print(String(format: "ratio load JSON / simdjson parse to JSONValue: %.2f x (target 3)", medians[4] / medians[0]))
    print(String(format: "ratio load YAML / simdjson parse to JSONValue: %.2f x (target 3)", medians[5] / medians[0]))
    print(String(format: "ratio load JSON / simdjson parse only:         %.2f x", medians[4] / medians[1]))
    print(String(format: "ratio load YAML / simdjson parse only:         %.2f x", medians[5] / medians[1]))
}
