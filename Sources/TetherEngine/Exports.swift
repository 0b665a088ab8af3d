// The engine speaks the model's types (Contract, JSONValue, ManifestLoader …): whoever imports the engine has them.
@_exported import TetherCore
