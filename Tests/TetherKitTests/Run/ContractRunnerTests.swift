import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
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

    /// At several refs each distinct request is sent once and its answer checked for every contract that sends it:
    /// whatever order a version lists its targets in, two alike targets of one version, and requests that differ
    /// only where their hash does not look (a header's value, the body's bytes).
    @Test func atSeveralRefsEachDistinctRequestIsSentOnce() {
        func contract(_ ref: String, _ name: String, path: String, header: String = "a", body: String? = nil)
            -> Contract
        {
            var contract = Contract(
                service: "S@\(ref)", name: name, baseURL: "http://127.0.0.1:9",
                request: HTTPRequest(
                    method: "POST", url: "http://127.0.0.1:9" + path, headers: [HTTPHeader("X-Kind", header)],
                    body: body.map { Data($0.utf8) }),
                sampleData: .json(.object([JSONMember("path", .string(path))])), source: "test")
            contract.ref = ref
            return contract
        }
        let first = [
            contract("v1", "a", path: "/a"), contract("v1", "b", path: "/b"),
            contract("v1", "aOther", path: "/a", header: "b"), contract("v1", "d", path: "/d", body: "xy"),
            contract("v1", "dOther", path: "/d", body: "yz"),
        ]
        // The same targets at v2, listed the other way round.
        let second = first.reversed().map { target in
            var moved = target
            moved.ref = "v2"
            moved.service = "S@v2"
            return moved
        }
        let third = [
            contract("v3", "a", path: "/a"), contract("v3", "again", path: "/a"), contract("v3", "e", path: "/e"),
        ]
        let contracts = first + second + third
        let transport = StubTransport { request in
            let path = String(request.url.dropFirst("http://127.0.0.1:9".count))
            return .success(HTTPResponse(statusCode: 200, body: Data(#"{"path": "\#(path)"}"#.utf8), url: request.url))
        }
        let report = ContractRunner(transport: transport, hostname: "test").run(contracts)
        let sent = transport.requests
        #expect(sent.count == 6, "\(sent.map(\.url))")
        for request in Set(contracts.map(\.request.url)) {
            #expect(
                sent.filter { $0.url == request }.count == (request.hasSuffix("/b") || request.hasSuffix("/e") ? 1 : 2))
        }
        #expect(report.results.count == contracts.count)
        for (result, contract) in zip(report.results, contracts) {
            #expect(result.outcome == .passed, "\(contract.service).\(contract.name): \(result.outcome)")
            #expect(result.contract.name == contract.name)
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
            let queue = HandOver<Int>(capacity: 3, batch: 3)
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

    /// Light items wait in a batch beyond the capacity (one wake-up for many small bodies at `--jobs 1`), heavy ones
    /// no more than the capacity: what waits is never more than `capacity` items, or `batch` items under
    /// `batchWeight` in all.
    @Test func lightItemsWaitInABatchAndHeavyOnesUpToTheCapacity() async throws {
        let weight = { @Sendable (item: Int) in item < 100 ? 1 : 400 }  // 100 light items, then 100 heavy ones
        let batches = try await offPool {
            let queue = HandOver<Int>(capacity: 2, batch: 8, batchWeight: 1_000, weigh: weight)
            let producer = Thread {
                for item in 0..<200 { queue.put(item) }
                queue.close()
            }
            producer.start()
            var batches: [[Int]] = []
            while let batch = queue.take() {
                batches.append(batch)
                Thread.sleep(forTimeInterval: 0.001)  // a slow consumer: the producer fills the hand-over
            }
            return batches
        }
        #expect(batches.flatMap { $0 } == Array(0..<200))
        for batch in batches {
            let total = batch.map(weight).reduce(0, +)
            #expect(
                batch.count <= 2 || (batch.count <= 8 && total <= 1_000), "\(batch) is more than the hand-over holds")
        }
        #expect(batches.contains { $0.count > 2 }, "light items should have waited beyond the capacity")
        #expect(batches.contains { $0.count == 2 && $0.allSatisfy { $0 >= 100 } }, "two heavy items should have waited")
    }

    /// A consumer that gathers (it took items last time) still gets a lone item once the window is over: `take` does
    /// not wait for the batch to fill or for `close`.
    @Test func aLoneItemIsHandedOverOnceTheWindowIsOver() async throws {
        let (first, second, waited) = try await offPool {
            let queue = HandOver<Int>(capacity: 16, window: .milliseconds(5))
            queue.put(1)
            let first = queue.take()  // now the next take gathers
            queue.put(2)
            let closer = Thread {  // a take that waited for close would return only after this
                Thread.sleep(forTimeInterval: 10)
                queue.close()
            }
            closer.start()
            let start = ContinuousClock.now
            let second = queue.take()
            return (first, second, ContinuousClock.now - start)
        }
        #expect(first == [1])
        #expect(second == [2])
        #expect(waited < .seconds(5), "take waited for close instead of returning the lone item after the window")
    }
}

/// `Contract.checksAlike`: two targets that sent one request share a check only when everything the check reads is
/// the same; their service, name, place and ref may differ (versions of one target).
@Suite struct ChecksAlikeTests {
    static let base = Contract(
        service: "Shop@v1", name: "item", baseURL: "http://127.0.0.1",
        request: HTTPRequest(method: "GET", url: "http://127.0.0.1/item", headers: [HTTPHeader("Accept", "a/b")]),
        sampleData: .json(JSONStub(checkedText: Data(#"{"id": 1}"#.utf8))), source: "v1:shop.json")

    @Test func versionsOfOneTargetAreAlikeAndEachCheckedFieldTellsThemApart() throws {
        var version = Self.base
        version.service = "Shop@v2"
        version.name = "item (renamed)"
        version.source = "v2:shop.json"
        version.ref = "v2"
        version.declaration = SourcePlace(file: "v2:shop.json", line: 9, column: 3)
        #expect(Self.base.checksAlike(version) && version.checksAlike(Self.base))
        #expect(Self.base.checksAlike(Self.base))

        let changes: [(String, (inout Contract) -> Void)] = [
            ("stub text", { $0.sampleData = .json(JSONStub(checkedText: Data(#"{"id": "1"}"#.utf8))) }),
            ("stub kind", { $0.sampleData = .none }),
            ("method", { $0.request.method = "HEAD" }),
            ("url", { $0.request.url = "http://127.0.0.1/item?x=1" }),
            ("header", { $0.request.headers = [HTTPHeader("Accept", "a/c")] }),
            ("body", { $0.request.body = Data("x".utf8) }),
            ("status", { $0.sampleResponse = .network(statusCode: 404, headers: []) }),
            ("stub headers", { $0.sampleResponse = .network(statusCode: 200, headers: [HTTPHeader("ETag", "1")]) }),
            ("valid statuses", { $0.validStatusCodes = [200, 201] }),
            ("rules", { $0.rules = ContractRules(isStrict: true) }),
            ("steps", { $0.steps = Steps() }),
        ]
        for (what, change) in changes {
            var changed = version
            change(&changed)
            #expect(!Self.base.checksAlike(changed) && !changed.checksAlike(Self.base), "\(what)")
            // A caller that knows both send one request does not have them compared: only the request's changes
            // then leave the two alike.
            let isRequest = ["method", "url", "header", "body"].contains(what)
            #expect(Self.base.checksAlike(changed, sendingOneRequest: true) == isRequest, "\(what)")
        }
    }
}

/// `Contract.sendsTheRequest(of:)`: the runner's test for one request sent for several versions' targets. Requests
/// with the same bits (a later version's target keeps the earlier one's request) and equal requests held in other
/// buffers both send one request; a difference in any part of the request sends two.
@Suite struct SendsTheRequestTests {
    /// `http://127.0.0.1:8080/items/<path>`, made at run time: a string of its own, not a shared literal.
    static func url(_ path: String) -> String { "http://127.0.0.1:8080/items/" + path }

    static func contract(_ request: HTTPRequest) -> Contract {
        Contract(
            service: "Shop@v1", name: "item", baseURL: "http://127.0.0.1:8080", request: request,
            sampleData: .none, source: "v1:shop.json")
    }

    static let request = HTTPRequest(
        method: "POST", url: url("42"), headers: [HTTPHeader("Accept", "application/json")],
        body: Data(String(repeating: "x", count: 40).utf8))

    @Test func aVersionKeepingTheRequestAndAnEqualRequestElsewhereSendOne() {
        let base = Self.contract(Self.request)
        #expect(base.sendsTheRequest(of: base))
        var version = base  // a storage of its own, the request's buffers shared
        version.service = "Shop@v2"
        version.source = "v2:shop.json"
        #expect(version.sendsTheRequest(of: base) && base.sendsTheRequest(of: version))
        // Equal, in buffers of their own: compared by value.
        let rebuilt = Self.contract(
            HTTPRequest(
                method: String("POST".reversed().reversed()), url: Self.url(String(42)),
                headers: [HTTPHeader("Accept", "application/" + "json")],
                body: Data(String(repeating: "x", count: 40).utf8)))
        #expect(rebuilt.sendsTheRequest(of: base) && base.sendsTheRequest(of: rebuilt))
    }

    @Test func eachPartOfTheRequestTellsTwoApart() {
        let base = Self.contract(Self.request)
        let changes: [(String, (inout HTTPRequest) -> Void)] = [
            ("method", { $0.method = "PUT" }),
            ("url", { $0.url = Self.url("43") }),
            ("header value", { $0.headers = [HTTPHeader("Accept", "application/xml")] }),
            ("another header", { $0.headers.append(HTTPHeader("X-Trace", "1")) }),
            ("body", { $0.body = Data(String(repeating: "y", count: 40).utf8) }),
            ("no body", { $0.body = nil }),
        ]
        for (what, change) in changes {
            var request = Self.request
            change(&request)
            let changed = Self.contract(request)
            #expect(!changed.sendsTheRequest(of: base) && !base.sendsTheRequest(of: changed), "\(what)")
        }
    }
}
