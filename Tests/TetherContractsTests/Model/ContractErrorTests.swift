import Testing

@testable import TetherContracts
@testable import TetherCore

/// `ContractErrors` is the one home where a run's contract errors are collected: an identical diagnostic (one place,
/// one message, found again for another target that shares it) is kept once, and every count counts what is printed.
@Suite struct ContractErrorTests {
    @Test func identicalDiagnosticsAreKeptOnceInTheirFirstOrder() {
        let unset = ContractError(
            file: "api.json", line: 4, column: 32, location: "headers.Authorization",
            "environment variable TOKEN is not set")
        let other = ContractError(file: "api.json", line: 7, column: 5, location: "targets[1].pth", "unknown key")
        let sameLineOtherColumn = ContractError(
            file: "api.json", line: 4, column: 33, location: "headers.Authorization",
            "environment variable TOKEN is not set")
        let errors = ContractErrors([unset, other, unset, sameLineOtherColumn, other])
        #expect(errors.errors == [unset, other, sameLineOtherColumn])
        #expect(errors.countText == "3 contract errors")
        #expect(errors.description.split(separator: "\n").count == 3)
        #expect(ContractErrors([unset, unset]).countText == "1 contract error")
    }
}
