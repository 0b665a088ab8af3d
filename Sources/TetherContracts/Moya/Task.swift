import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moya's `Task`: what a request sends besides its URL.
///
/// Note: inside a module that imports Tether, `Task` names this type (as it does with Moya); write
/// `_Concurrency.Task` for Swift's.
public enum Task {
    /// No body, no parameters.
    case requestPlain
    /// The bytes as the body.
    case requestData(Data)
    /// The value encoded with a default `JSONEncoder` as the body; `Content-Type: application/json` unless set.
    /// Tether sorts the keys, so that the request is the same on every run.
    case requestJSONEncodable(any Encodable)
    /// The value encoded with `encoder` as the body; `Content-Type: application/json` unless set.
    case requestCustomJSONEncodable(any Encodable, encoder: JSONEncoder)
    /// Parameters encoded by `encoding` (`URLEncoding` or `JSONEncoding`).
    case requestParameters(parameters: [String: Any], encoding: any ParameterEncoding)
    /// The bytes as the body, and parameters in the query.
    case requestCompositeData(bodyData: Data, urlParameters: [String: Any])
    /// Parameters in the body (`JSONEncoding` or `URLEncoding.httpBody`) and parameters in the query.
    case requestCompositeParameters(
        bodyParameters: [String: Any], bodyEncoding: any ParameterEncoding, urlParameters: [String: Any])
    /// A file upload: reported as skipped (Tether does not upload).
    case uploadFile(URL)
    /// A multipart upload: reported as skipped.
    case uploadMultipart([MultipartFormData])
    /// A multipart upload with query parameters: reported as skipped.
    case uploadCompositeMultipart([MultipartFormData], urlParameters: [String: Any])
    /// A download to a file: reported as skipped (Tether does not download to files).
    case downloadDestination(DownloadDestination)
    /// A download with parameters: reported as skipped.
    case downloadParameters(
        parameters: [String: Any], encoding: any ParameterEncoding, destination: DownloadDestination)
}

/// Moya's (Alamofire's) `ParameterEncoding`: how `[String: Any]` parameters go into a request. Tether encodes the
/// ones Alamofire ships, `URLEncoding` and `JSONEncoding`; a custom encoding names which of them it amounts to.
public protocol ParameterEncoding {
    /// Which of Tether's request encodings this is.
    var requestEncoding: RequestEncoding { get }
}

/// Alamofire's `URLEncoding`: parameters as a query string or a form body (keys sorted, arrays as `key[]`,
/// booleans as `1`/`0`).
public struct URLEncoding: ParameterEncoding, Sendable, Equatable {
    /// Where the parameters go.
    public enum Destination: Sendable, Equatable {
        /// The query for GET, HEAD and DELETE, the body otherwise.
        case methodDependent
        /// Always the query.
        case queryString
        /// Always the body, as `application/x-www-form-urlencoded; charset=utf-8`.
        case httpBody
    }

    /// The query for GET, HEAD and DELETE, a form body otherwise.
    public static var `default`: URLEncoding { URLEncoding() }
    /// Always the query.
    public static var queryString: URLEncoding { URLEncoding(destination: .queryString) }
    /// Always a form body.
    public static var httpBody: URLEncoding { URLEncoding(destination: .httpBody) }

    /// Where the parameters go.
    public let destination: Destination

    /// - Parameter destination: Where the parameters go; method-dependent by default.
    public init(destination: Destination = .methodDependent) {
        self.destination = destination
    }

    /// The encoding Tether applies: the query string, or a form body, as Alamofire's `URLEncoding` picks.
    public var requestEncoding: RequestEncoding {
        switch destination {
        case .methodDependent: .url
        case .queryString: .queryString
        case .httpBody: .httpBody
        }
    }
}

/// Alamofire's `JSONEncoding`: parameters as a JSON body, `Content-Type: application/json` unless set.
public struct JSONEncoding: ParameterEncoding, Sendable, Equatable {
    /// The compact JSON body Alamofire sends by default.
    public static var `default`: JSONEncoding { JSONEncoding() }

    /// Moya's `JSONEncoding.default`.
    public init() {}

    /// A JSON body.
    public var requestEncoding: RequestEncoding { .json }
}

/// Moya's `MultipartFormData`: one part of a multipart upload (uploads are reported as skipped).
public struct MultipartFormData: Sendable, Hashable {
    /// Where a part's bytes come from.
    public enum FormDataProvider: Sendable, Hashable {
        case data(Data)
        case file(URL)
    }

    /// Where the part's bytes come from.
    public var provider: FormDataProvider
    /// The form field's name.
    public var name: String
    /// The file name sent with the part, if any.
    public var fileName: String?
    /// The part's content type, if any.
    public var mimeType: String?

    /// - Parameters: as Moya's.
    public init(provider: FormDataProvider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}

/// Alamofire's download options.
public struct DownloadOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: Int

    /// - Parameter rawValue: The option bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Create the destination's folders.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replace an existing file.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}

/// Moya's `DownloadDestination`: where a download goes (downloads are reported as skipped).
public typealias DownloadDestination = (_ temporaryURL: URL, _ response: HTTPURLResponse) -> (
    destinationURL: URL, options: DownloadOptions
)
