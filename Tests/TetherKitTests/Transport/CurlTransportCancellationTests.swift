import Dispatch
import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// `TransportOptions.cancellation` raised from another thread while slow requests are in flight.
@Suite struct CurlTransportCancellationTests {
    /// The slow requests would answer after this many seconds; `send` must be back long before.
    static let slowSeconds = 20

    @Test func cancellingEndsTheRunAndAnswersEveryRequestOnce() async throws {
        let server = try await offPool { try SlowServer() }
        let slow = "\(server.baseURL)/delay/\(Self.slowSeconds)"
        // --jobs 2: fast0 finishes, then slow1 and slow2 fill both slots and fast3, fast4 are never sent.
        let requests = [
            HTTPRequest(method: "GET", url: "\(server.baseURL)/fast0"),
            HTTPRequest(method: "GET", url: "\(slow)/slow1"),
            HTTPRequest(method: "GET", url: "\(slow)/slow2"),
            HTTPRequest(method: "GET", url: "\(server.baseURL)/fast3"),
            HTTPRequest(method: "GET", url: "\(server.baseURL)/fast4"),
        ]
        let cancellation = Cancellation()
        let firstDone = DispatchSemaphore(value: 0)
        let cancelledAt = Locked<ContinuousClock.Instant?>(nil)
        DispatchQueue.global().async {
            // Once fast0 is back, slow2 is being sent; give it a moment to be in flight, then stop.
            _ = firstDone.wait(timeout: .now() + 10)
            Thread.sleep(forTimeInterval: 0.3)
            cancelledAt.withLock { $0 = ContinuousClock.now }
            cancellation.cancel()
        }
        let (results, started, returned) = try await offPool {
            var results: [Int: [Result<HTTPResponse, TransportError>]] = [:]
            let started = ContinuousClock.now
            CurlTransport().send(requests, options: TransportOptions(jobs: 2, cancellation: cancellation)) {
                index, result in
                results[index, default: []].append(result)
                if index == 0 { firstDone.signal() }
            }
            return (results, started, ContinuousClock.now)
        }

        #expect(cancellation.isCancelled)
        let cancelled = try #require(cancelledAt.withLock { $0 })
        // Back soon after the cancel, not when the slow answers would have come (a bound, not a timing).
        #expect(returned - cancelled < .seconds(5), "send returned \(returned - cancelled) after the cancel")
        #expect(returned - started < .seconds(Self.slowSeconds / 2))
        #expect(results.keys.sorted() == Array(requests.indices))
        #expect(results.values.allSatisfy { $0.count == 1 }, "\(results)")
        let first = try #require(results[0]?.first)
        #expect((try? first.get().statusCode) == 200, "\(first)")
        for index in 1..<requests.count {
            guard case .failure(let error)? = results[index]?.first else {
                Issue.record("\(requests[index].url): expected interrupted, got \(String(describing: results[index]))")
                continue
            }
            #expect(error.isInterrupted, "\(error)")
            #expect(error.url == requests[index].url)
        }
    }

    @Test func cancellingALongRunSentBySeveralLoopsAnswersEveryRequestOnce() async throws {
        let server = try await offPool { try SlowServer() }
        // Every tenth request is slow: at --jobs 16 the slow ones up to index 159 fill every slot of every loop,
        // and the requests after them are never sent.
        let requests = (0..<200).map { index in
            HTTPRequest(
                method: "GET",
                url: index % 10 == 9
                    ? "\(server.baseURL)/delay/\(Self.slowSeconds)/slow\(index)" : "\(server.baseURL)/fast/\(index)")
        }
        let options = TransportOptions(jobs: 16, cancellation: Cancellation())
        #expect(CurlTransport.loops(requests: requests.count, options: options).reduce(0, +) == 16)
        let cancellation = try #require(options.cancellation)
        let answered = Locked(0)
        let enoughDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = enoughDone.wait(timeout: .now() + 10)
            Thread.sleep(forTimeInterval: 0.3)
            cancellation.cancel()
        }
        let (results, started, returned) = try await offPool {
            var results: [Int: [Result<HTTPResponse, TransportError>]] = [:]
            let started = ContinuousClock.now
            CurlTransport().send(requests, options: options) { index, result in
                results[index, default: []].append(result)
                if answered.withLock({ count in
                    count += 1
                    return count == 100
                }) {
                    enoughDone.signal()
                }
            }
            return (results, started, ContinuousClock.now)
        }

        #expect(returned - started < .seconds(Self.slowSeconds / 2))
        #expect(results.keys.sorted() == Array(requests.indices))
        #expect(results.values.allSatisfy { $0.count == 1 }, "\(results)")
        var succeeded = 0
        for (index, answers) in results {
            switch answers.first {
            case .success(let response)?:
                #expect(index % 10 != 9, "a slow request was answered: \(requests[index].url)")
                #expect(response.statusCode == 200)
                succeeded += 1
            case .failure(let error)?:
                #expect(error.isInterrupted, "\(requests[index].url): \(error)")
                #expect(error.url == requests[index].url)
            case nil:
                Issue.record("no answer for \(requests[index].url)")
            }
        }
        #expect(succeeded >= 100)
        #expect(results[199]?.first.map { if case .failure = $0 { true } else { false } } == true)
    }

    /// A server that answers `{}` and logs every request.
    static func loggingServer() throws -> (MockServer, RequestLog) {
        let log = RequestLog()
        let server = try MockServer { request in
            log.record(request)
            return .json("{}")
        }
        return (server, log)
    }

    @Test func aRunCancelledBeforeItStartsSendsNothing() throws {
        let (server, log) = try Self.loggingServer()
        let cancellation = Cancellation()
        cancellation.cancel()
        let requests = (0..<5).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r\($0)") }
        let results = CurlTransport().send(requests, options: TransportOptions(cancellation: cancellation))
        #expect(results.count == 5)
        #expect(results.allSatisfy { if case .failure(let error) = $0 { error.isInterrupted } else { false } })
        #expect(log.all.isEmpty)
    }

    /// `send(_:options:onResult:)` hands each result over before it sends another request, so a handler that stops
    /// the run at a result (`--fail-fast`'s checks in step, at `--jobs 1`) stops it before anything more is sent.
    @Test func aResultThatStopsTheRunComesBeforeTheNextRequest() throws {
        let (server, log) = try Self.loggingServer()
        let cancellation = Cancellation()
        let requests = (0..<20).map { HTTPRequest(method: "GET", url: "\(server.baseURL)/r\($0)") }
        var handed: [Int] = []
        CurlTransport().send(requests, options: TransportOptions(jobs: 1, cancellation: cancellation)) { index, _ in
            handed.append(index)
            if handed.count == 1 { cancellation.cancel() }
        }
        Thread.sleep(forTimeInterval: 0.2)  // a request sent after the stop would be logged by now
        #expect(handed.sorted() == Array(0..<20))
        #expect(log.all.map(\.path) == ["/r0"], "requests were sent after the result that stopped the run")
    }
}
