// `import Tether` brings the ground floor with it: the Moya-shaped types, the contract model, manifests and export
// live in TetherContracts (Foundation only), and code written against `import Tether` keeps compiling.
@_exported import TetherContracts
