// Names before 0.2, kept so that code written against them still compiles (with a warning and a fix-it).

/// Renamed: it runs contracts through the transport and the checks.
@available(*, deprecated, renamed: "ContractRunner")
public typealias Verifier = ContractRunner

/// Renamed: it writes JUnit XML (the data is `RunReport`).
@available(*, deprecated, renamed: "JUnitWriter")
public typealias JUnitReport = JUnitWriter

/// Renamed: it writes the console text (the data is `RunReport`).
@available(*, deprecated, renamed: "ConsoleWriter")
public typealias ConsoleReport = ConsoleWriter

/// Renamed: the structure check of a JSON body against its stub.
@available(*, deprecated, renamed: "ShapeCheck")
public typealias StructureDiff = ShapeCheck
