import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

@Suite struct ContractShardTests {
    static func contracts(_ count: Int, service: String = "S") -> [Contract] {
        (0..<count).map { index in
            Contract(
                service: index % 3 == 0 ? "A\(service)" : service, name: "t\(index)", baseURL: "http://127.0.0.1:1",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1:1/\(index)"), sampleData: .none,
                source: "test")
        }
    }

    static func names(_ contracts: [Contract]) -> [String] { contracts.map { "\($0.service).\($0.name)" } }

    @Test(arguments: 1...5)
    func everyTargetIsInExactlyOneShardAndShardsDifferByAtMostOne(count: Int) {
        for size in [0, 1, 2, 3, 7, 40] {
            let all = Self.contracts(size)
            let shards = (1...count).map { ContractShard(index: $0, count: count).select(all) }
            let union = shards.flatMap(Self.names)
            #expect(union.count == size && Set(union) == Set(Self.names(all)), "\(size) targets in \(count) shards")
            let sizes = shards.map(\.count)
            #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
            // Within a shard, the run's order.
            for shard in shards {
                let positions = Self.names(shard).map { name in Self.names(all).firstIndex(of: name) ?? -1 }
                #expect(positions == positions.sorted())
            }
        }
    }

    @Test func theShardOfATargetDoesNotDependOnFileOrder() {
        let all = Self.contracts(23)
        var generator = SplitMix(state: 7)
        let shuffled = all.shuffled(using: &generator)
        for index in 1...4 {
            let shard = ContractShard(index: index, count: 4)
            #expect(Set(Self.names(shard.select(all))) == Set(Self.names(shard.select(shuffled))))
        }
    }

    @Test func timingsBalanceTheShardsByTime() {
        let all = Self.contracts(10)
        // One slow target (9 s) and nine of 1 s: by count a shard gets the slow one and four more (13 s);
        // by time it is alone, or nearly so, and the other shard takes the rest.
        var timings: [String: Double] = [:]
        for name in Self.names(all) { timings[name] = 1 }
        timings["S.t1"] = 9
        let shards = (1...2).map { ContractShard(index: $0, count: 2).select(all, timings: timings) }
        let loads = shards.map { shard in Self.names(shard).reduce(0) { $0 + (timings[$1] ?? 0) } }
        #expect(loads.sorted() == [9, 9])
        #expect(Set(shards.flatMap(Self.names)) == Set(Self.names(all)))
        // A target the report does not know counts as the median.
        timings["S.t2"] = nil
        let again = (1...2).map { ContractShard(index: $0, count: 2).select(all, timings: timings) }
        #expect(again.map(\.count).reduce(0, +) == 10)
    }

    @Test(arguments: [
        ("1/4", ContractShard(index: 1, count: 4)), ("4/4", ContractShard(index: 4, count: 4)),
        ("1/1", ContractShard(index: 1, count: 1)),
    ])
    func parses(text: String, shard: ContractShard) {
        #expect(ContractShard(text) == shard)
    }

    @Test(arguments: ["0/4", "5/4", "1/0", "a/b", "1/4/5", "1", "", "-1/4", "1/10001", " 1/4"])
    func refuses(text: String) {
        #expect(ContractShard(text) == nil)
    }
}
