// INTERIM: replaced by the simdjson-based parser from the json branch. Not committed.
import Foundation
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible { public var description: String }
extension JSONValue {
    public static func parse(_ bytes: Data, maxDepth: Int = 1024) throws(JSONParseError) -> JSONValue {
        do { return convert(try JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) } catch { throw JSONParseError(description: "not valid JSON: \(error)") }
    }
    static func convert(_ any: Any) -> JSONValue {
        switch any {
        case is NSNull: return .null
        case let s as String: return .string(s)
        case let a as [Any]: return .array(a.map(convert))
        case let d as [String: Any]: return .object(d.keys.sorted().map { JSONMember($0, convert(d[$0]!)) })
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            if n.doubleValue.rounded() == n.doubleValue && !"\(n)".contains(".") { return .integer(n.int64Value) }
            return .double(n.doubleValue)
        default: return .null
        }
    }
    public func serialized(pretty: Bool = false) -> Data {
        func any(_ v: JSONValue) -> Any { switch v { case .null: NSNull(); case .bool(let b): b; case .integer(let i): i; case .unsignedInteger(let u): u; case .double(let d): d; case .string(let s): s; case .array(let a): a.map(any); case .object(let m): Dictionary(m.map { ($0.key, any($0.value)) }, uniquingKeysWith: { a, _ in a }) } }
        return (try? JSONSerialization.data(withJSONObject: any(self), options: [.fragmentsAllowed, .sortedKeys])) ?? Data()
    }
}
public enum StructureDiff {
    public static func findings(stub: JSONValue, live: Data, strict: Bool = false) -> [Finding] {
        guard let v = try? JSONValue.parse(live) else { return [Finding(.drift, "body", "expected a JSON body")] }
        return v.typeName == stub.typeName ? [] : [Finding(.drift, "$", "expected \(stub.typeName), got \(v.typeName)")]
    }
}
