import Foundation

extension ContractManifest {
    /// Exports targets through `converter` (Moya's default mapping unless given).
    ///
    /// Every `${` in the exported text is written as `$${` (a literal `${` for the loader); each value in
    /// `variables` is written as `${NAME}`, so that a token never lands in a file and is expanded from the
    /// environment again (and redacted in reports).
    /// - Parameters:
    ///   - service: The service name, e.g. `GitHub`.
    ///   - targets: The targets, e.g. `GitHub.allCases`.
    ///   - converter: How targets become contracts (endpoint closure, base URL, headers).
    ///   - variables: Environment variable names and the values to write as `${NAME}`, e.g.
    ///     `["GITHUB_TOKEN": token]`.
    /// - Throws: `ContractError` naming the target when it cannot become a contract or cannot be written in the file
    ///   format (a URL outside the shared base URL, a query item without `=`).
    public init<Targets: Sequence>(
        service: String, targets: Targets, converter: TargetConverter = TargetConverter(),
        variables: [String: String] = [:]
    ) throws(ContractError) where Targets.Element: TargetType {
        var converted: [TargetContract] = []
        for result in converter.contracts(for: targets) { converted.append(try result.get()) }
        try self.init(service: service, contracts: converted, variables: variables)
    }
}
