import TetherKit

/// Collects the requests a mock server's handler saw (the handler runs on the server's threads).
final class RequestLog: Sendable {
    private let requests = Locked<[MockRequest]>([])

    func record(_ request: MockRequest) {
        requests.withLock { $0.append(request) }
    }

    var all: [MockRequest] {
        requests.withLock { $0 }
    }
}
