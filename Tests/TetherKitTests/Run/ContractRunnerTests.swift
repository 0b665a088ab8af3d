import Foundation
import Testing

@testable import TetherContracts
@testable import TetherKit

/// A transport that notes which thread sends and, per answer, when it was handed over.
private final class ThreadNotingTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var senders: [ObjectIdentifier] = []

    var sendingThreads: [ObjectIdentifier] { lock.withLock { senders } }

    func send(_ requests: [HTTPRequest], options: TransportOptions) -> [Result<HTTPResponse, TransportError>] {
        lock.withLock { senders.append(ObjectIdentifier(Thread.current)) }
        return requests.map { .success(HTTPResponse(statusCode: 200, body: Data(#"{"id": 2}"#.utf8), url: $0.url)) }
    }
}

@Suite struct ContractRunnerTests {
    private static func contracts(_ count: Int) -> [Contract] {
        (0..<count).map { index in
            Contract(
                service: "S", name: "t\(index)", baseURL: "http://127.0.0.1:9",
                request: HTTPRequest(method: "GET", url: "http://127.0.0.1:9/\(index)"),
                sampleData: .json(.object([JSONMember("id", .integer(1))])), source: "test")
        }
    }

    /// Answers are checked on the caller's thread while the transport sends from its own; `inStep` (and a
    /// single request) keep everything on the caller's thread.
    @Test(arguments: [(5, false, false), (5, true, true), (1, false, true)])
    func whereTheTransportRuns(count: Int, inStep: Bool, sendsFromTheCaller: Bool) async throws {
        let transport = ThreadNotingTransport()
        let runner = ContractRunner(transport: transport, hostname: "test")
        let (report, caller, resultThreads) = try await offPool {
            var threads = Set<ObjectIdentifier>()
            let report = runner.run(
                Self.contracts(count), inStep: inStep,
                onResult: { _, _ in threads.insert(ObjectIdentifier(Thread.current)) })
            return (report, ObjectIdentifier(Thread.current), threads)
        }
        #expect(report.results.map(\.outcome) == Array(repeating: .passed, count: count))
        #expect(report.results.map(\.contract.name) == (0..<count).map { "t\($0)" })
        #expect(resultThreads == [caller])
        #expect(transport.sendingThreads.count == 1)
        #expect((transport.sendingThreads.first == caller) == sendsFromTheCaller)
    }

    /// The hand-over never holds more than its capacity, keeps the order, and ends once closed and drained.
    @Test func theHandOverIsBoundedAndOrdered() async throws {
        let (taken, largest, afterwards) = try await offPool {
            let queue = HandOver<Int>(capacity: 3)
            let producer = Thread {
                for item in 0..<200 { queue.put(item) }
                queue.close()
            }
            producer.start()
            var taken: [Int] = []
            var largest = 0
            while let batch = queue.take() {
                largest = max(largest, batch.count)
                taken += batch
                if taken.count < 20 { Thread.sleep(forTimeInterval: 0.002) }  // a slow consumer fills the queue
            }
            return (taken, largest, queue.take())
        }
        #expect(taken == Array(0..<200))
        #expect(largest <= 3)
        #expect(largest == 3, "the slow consumer should have found the queue full at least once")
        #expect(afterwards == nil)
    }
}
