// `import TetherContracts` brings the contract model with the Moya-shaped types: the model, manifests and export live
// in TetherCore, which the command line links without the Moya types (their `HTTPURLResponse` would bring
// FoundationNetworking into every run's start-up).
@_exported import TetherCore
