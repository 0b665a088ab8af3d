import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `ReportText.timestamp` computes the date itself (no `Calendar` at start-up): it must write exactly what
/// Foundation's Gregorian calendar in UTC writes, whatever the process's time zone.
@Suite struct ReportTextTimestampTests {
    /// Leap days, century rules, the ends of the computed range, whole seconds and a hair before them.
    static let edges: [Double] = [
        0, -1, 0.999_999_999, -0.000_000_001, 951_782_400, 951_868_799.5, 4_107_542_400, 4_107_456_000,
        -2_203_891_200, -11_644_473_600, -11_644_473_600.5, 253_402_300_799.999, 253_402_300_800,
        1_777_863_721, 978_307_200, 978_307_199.999_999_9, 1_709_164_800, 1_709_251_199,
    ]

    @Test(arguments: edges) func edgeDatesReadAsTheCalendarReadsThem(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ReportText.timestamp(date) == ReportText.calendarTimestamp(date), "\(seconds)")
    }

    @Test func datesNearADayOrSecondBoundaryFromReferenceDateReadAsTheCalendarReadsThem() {
        for whole in [-86_400.0, 0, 86_400, 820_540_800] {
            for offset in [-1e-6, -1e-9, 0, 1e-9, 1e-6] {
                let date = Date(timeIntervalSinceReferenceDate: whole + offset)
                #expect(ReportText.timestamp(date) == ReportText.calendarTimestamp(date), "\(whole) + \(offset)")
            }
        }
    }

    @Test func tenThousandRandomDatesReadAsTheCalendarReadsThem() {
        var random = SplitMix(state: 11)
        for _ in 0..<10_000 {
            // Mostly around now; one in four anywhere from 1500 to 10100 (both ends outside the computed range).
            let seconds =
                random.next() % 4 == 0
                ? Double.random(in: -14_831_769_600...256_563_993_600, using: &random)
                : Double.random(in: 1_500_000_000...2_200_000_000, using: &random)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ReportText.timestamp(date) == ReportText.calendarTimestamp(date), "\(seconds)")
        }
    }

    @Test func aFixedDateInEveryShape() {
        #expect(ReportText.timestamp(Date(timeIntervalSince1970: 951_825_600)) == "2000-02-29T12:00:00")
        #expect(ReportText.timestamp(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59")
        #expect(ReportText.timestamp(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59")
    }

    /// The binary, run in zones far from UTC (+05:45, -03:30, and a POSIX rule), still writes the run's start in UTC.
    @Test(arguments: ["Asia/Kathmandu", "America/St_Johns", "XYZ-9:30"])
    func theJUnitTimestampIsUTCWhateverTheZone(_ zone: String) throws {
        let server = try MockServer { _ in .json(#"{"id": 1}"#) }
        let folder = try ContractFolder([
            "api.json":
                #"{"service": "Zone", "baseURL": "\#(server.baseURL)", "targets": [{"name": "one", "path": "/one", "sampleData": {"json": {"id": 2}}}]}"#
        ])
        let before = Date().timeIntervalSince1970.rounded(.down)
        let run = try TetherBinary.run(["verify", folder.path], environment: ["TZ": zone])
        let after = Date().timeIntervalSince1970.rounded(.down)
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        let expected = stride(from: before, through: after, by: 1).map {
            "timestamp=\"\(ReportText.calendarTimestamp(Date(timeIntervalSince1970: $0)))\""
        }
        let junit = run.junit ?? ""
        #expect(expected.contains { junit.contains($0) }, "\(zone): \(junit)")
    }
}
