// `import TetherKit` brings everything an app's tests use: the engine (TetherEngine: transport, checks, mock server,
// reports, the commands), the contract model and the Moya-shaped types (TetherContracts), and the Swift API here.
@_exported import TetherContracts
@_exported import TetherEngine
