import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moya's `EndpointSampleResponse`: what a stub answers.
public enum EndpointSampleResponse {
    /// A response with this status code and body (no headers to check).
    case networkResponse(Int, Data)
    /// A response with the status code and headers of `HTTPURLResponse` (headers the live response must carry).
    case response(HTTPURLResponse, Data)
    /// No response at all: cannot be checked against a service, reported as skipped.
    case networkError(NSError)
}

/// Moya's `Endpoint`: a target made concrete (URL, method, task, headers, stubbed response). An `endpointClosure`
/// maps each target to one; the default is `MoyaProvider.defaultEndpointMapping(for:)`.
open class Endpoint {
    /// The stubbed response, produced on demand as in Moya.
    public typealias SampleResponseClosure = () -> EndpointSampleResponse

    /// The request URL, as a string.
    public let url: String
    /// The stubbed response.
    public let sampleResponseClosure: SampleResponseClosure
    /// The HTTP method.
    public let method: Method
    /// What the request sends besides its URL.
    public let task: Task
    /// The request's headers.
    public let httpHeaderFields: [String: String]?

    /// - Parameters: as the properties.
    public init(
        url: String, sampleResponseClosure: @escaping SampleResponseClosure, method: Method, task: Task,
        httpHeaderFields: [String: String]?
    ) {
        self.url = url
        self.sampleResponseClosure = sampleResponseClosure
        self.method = method
        self.task = task
        self.httpHeaderFields = httpHeaderFields
    }

    /// This endpoint with more headers (a header of the same name is replaced).
    /// - Parameter newHTTPHeaderFields: The headers to add.
    /// - Returns: A new endpoint.
    open func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        var merged = httpHeaderFields
        if !newHTTPHeaderFields.isEmpty {
            merged = (httpHeaderFields ?? [:]).merging(newHTTPHeaderFields) { _, new in new }
        }
        return Endpoint(
            url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task, httpHeaderFields: merged
        )
    }

    /// This endpoint with another task.
    /// - Parameter task: The task to use.
    /// - Returns: A new endpoint.
    open func replacing(task: Task) -> Endpoint {
        Endpoint(
            url: url, sampleResponseClosure: sampleResponseClosure, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }
}

/// The static helpers of Moya's `MoyaProvider` that endpoint and stub closures call, such as
/// `MoyaProvider.defaultEndpointMapping(for:)`. Tether never sends through a provider: see `ContractVerifier`.
public enum MoyaProvider<Target: TargetType> {
    /// Moya's default endpoint: `URL(target:)`, the target's method, task and headers, and
    /// `.networkResponse(200, target.sampleData)` as the stub.
    /// - Parameter target: The target to map.
    /// - Returns: Its endpoint.
    public static func defaultEndpointMapping(for target: Target) -> Endpoint {
        Endpoint(
            url: URL.absoluteString(target: target),
            sampleResponseClosure: { .networkResponse(200, target.sampleData) },
            method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    /// `StubBehavior.never` for every target.
    public static func neverStub(_: Target) -> StubBehavior { .never }
    /// `StubBehavior.immediate` for every target.
    public static func immediatelyStub(_: Target) -> StubBehavior { .immediate }
    /// `StubBehavior.delayed(seconds:)` for every target.
    public static func delayedStub(_ seconds: TimeInterval) -> (Target) -> StubBehavior {
        { _ in .delayed(seconds: seconds) }
    }
}
