/// Moya's `Method` (Alamofire's `HTTPMethod`): an HTTP method by name.
public struct Method: RawRepresentable, Sendable, Equatable, Hashable {
    /// `CONNECT`.
    public static let connect = Method(rawValue: "CONNECT")
    /// `DELETE`.
    public static let delete = Method(rawValue: "DELETE")
    /// `GET`.
    public static let get = Method(rawValue: "GET")
    /// `HEAD`.
    public static let head = Method(rawValue: "HEAD")
    /// `OPTIONS`.
    public static let options = Method(rawValue: "OPTIONS")
    /// `PATCH`.
    public static let patch = Method(rawValue: "PATCH")
    /// `POST`.
    public static let post = Method(rawValue: "POST")
    /// `PUT`.
    public static let put = Method(rawValue: "PUT")
    /// `QUERY`.
    public static let query = Method(rawValue: "QUERY")
    /// `TRACE`.
    public static let trace = Method(rawValue: "TRACE")

    /// The method's name as sent, e.g. `GET`.
    public let rawValue: String

    /// - Parameter rawValue: The method's name, e.g. `GET`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }
}
