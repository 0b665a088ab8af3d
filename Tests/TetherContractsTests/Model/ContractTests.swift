import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore

/// `Contract` keeps its fields behind one reference and changes them in place only when no other contract shares
/// them (copy on write): whatever the order of copies and setters, every contract reads as a plain struct would.
@Suite struct ContractTests {
    static func contract() -> Contract {
        Contract(
            service: "Shop", name: "items", baseURL: "http://127.0.0.1:1",
            request: HTTPRequest(method: "GET", url: "http://127.0.0.1:1/items"), sampleData: .none,
            source: "contracts/shop.json")
    }

    @Test func aCopyKeepsItsFieldsWhenTheOriginalIsSet() {
        var original = Self.contract()
        let copy = original
        original.ref = "v1.2.0"
        original.source = "v1.2.0:contracts/shop.json"
        original.declaration = SourcePlace(file: "v1.2.0:contracts/shop.json", line: 3, column: 5)
        original.service = "Shop@v1.2.0"
        #expect(copy.ref == nil)
        #expect(copy.source == "contracts/shop.json")
        #expect(copy.declaration == nil)
        #expect(copy.service == "Shop")
        #expect(original.ref == "v1.2.0")
        #expect(original.source == "v1.2.0:contracts/shop.json")
        #expect(original.declaration == SourcePlace(file: "v1.2.0:contracts/shop.json", line: 3, column: 5))
        #expect(original.service == "Shop@v1.2.0")
        #expect(copy != original)
    }

    @Test func theOriginalKeepsItsFieldsWhenACopyIsSet() {
        let original = Self.contract()
        var copy = original
        copy.name = "item"
        copy.isPending = true
        #expect(original.name == "items")
        #expect(!original.isPending)
        #expect(copy.name == "item")
        #expect(copy.isPending)
    }

    /// `--ref`: a version's contracts get their ref at once, each equal to what its setter makes, the others' fields
    /// kept, and a copy taken before keeps no ref.
    @Test func settingTheRefOfAVersionsContractsIsAsTheSetterDoes() {
        var pending = Self.contract()
        pending.isPending = true
        let before = [Self.contract(), pending, Self.contract()]
        var versioned = before
        Contract.setRef("v1.2.0", on: &versioned)
        let expected = before.map { contract in
            var contract = contract
            contract.ref = "v1.2.0"
            return contract
        }
        #expect(versioned == expected)
        #expect(versioned.map(\.ref) == ["v1.2.0", "v1.2.0", "v1.2.0"])
        #expect(versioned.map(\.isPending) == [false, true, false])
        #expect(before.allSatisfy { $0.ref == nil })
        versioned[0].ref = nil
        #expect(versioned[0] == Self.contract())
        #expect(versioned[2].ref == "v1.2.0")
    }

    @Test func aContractNobodySharesIsSetInPlaceAndReadsBackEachField() {
        var contract = Self.contract()
        for step in 0..<100 {
            contract.name = "items\(step)"
            contract.ref = step % 2 == 0 ? "v\(step)" : nil
        }
        #expect(contract.name == "items99")
        #expect(contract.ref == nil)
        #expect(contract.service == "Shop")
        #expect(
            contract
                == {
                    var expected = Self.contract()
                    expected.name = "items99"
                    return expected
                }())
    }

    /// Copies handed to other threads, then set there and here: each thread reads only what it set.
    @Test func copiesSetOnOtherThreadsStayApart() {
        var contracts = [Contract](repeating: Self.contract(), count: 64)
        let shared = contracts
        let results = DeepStack.concurrentMap(name: "contract-test", iterations: 64) { index -> Contract in
            var mine = shared[index]
            mine.ref = "v\(index)"
            mine.name = "items\(index)"
            return mine
        }
        for index in contracts.indices { contracts[index].source = "elsewhere" }
        for (index, result) in results.enumerated() {
            #expect(result.ref == "v\(index)")
            #expect(result.name == "items\(index)")
            #expect(result.source == "contracts/shop.json")
        }
        #expect(contracts.allSatisfy { $0.source == "elsewhere" && $0.ref == nil && $0.name == "items" })
    }

    @Test(arguments: [
        ("Shop@v1.2.0", "v1.2.0", "Shop"), ("Shop@v1.2.0", "v1.2", "Shop@v1.2.0"),
        ("Shop@v1.2.0", "1.2.0", "Shop@v1.2.0"),
        ("@v1", "v1", ""), ("v1", "v1", "v1"), ("Shop", "a-much-longer-ref", "Shop"), ("Café@é", "é", "Café"),
        ("Shop#v1", "v1", "Shop#v1"),
    ])
    func theServiceWithoutItsRefDropsOnlyAnAtAndTheRef(service: String, ref: String, expected: String) {
        var contract = Self.contract()
        contract.service = service
        #expect(contract.unversionedService == service)  // no ref: the service as it is
        contract.ref = ref
        #expect(contract.unversionedService == expected)
    }
}
