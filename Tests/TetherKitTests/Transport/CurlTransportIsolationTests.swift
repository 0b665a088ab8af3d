import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// One slow request among fast ones to the same host, over each protocol nginx speaks, at several `--jobs`.
struct IsolationCase: Sendable, CustomTestStringConvertible {
    enum Position: String, Sendable, CaseIterable { case first, middle, last }

    var mode: NginxServer.Mode
    var position: Position
    var jobs: Int
    /// How many fast requests beside the slow one: 100 makes a run long enough to be sent by several loops
    /// (`CurlTransport.loops`) on a machine with more than one core.
    var fastCount = 12

    var testDescription: String {
        "\(mode), slow \(position), --jobs \(jobs)" + (fastCount == 12 ? "" : ", \(fastCount) fast")
    }

    static let all: [IsolationCase] =
        NginxServer.Mode.allCases.flatMap { mode in
            Position.allCases.flatMap { position in
                [1, 8, 32].map { IsolationCase(mode: mode, position: position, jobs: $0) }
            }
        }
        + NginxServer.Mode.allCases.flatMap { mode in
            [8, 32].map { IsolationCase(mode: mode, position: .first, jobs: $0, fastCount: 100) }
        }
}

/// A target's verdict and duration never depend on the other targets in flight: real libcurl against nginx on
/// 127.0.0.1, the slow response from a `SlowServer` behind it.
@Suite struct CurlTransportIsolationTests {
    /// The slow endpoint answers long after the timeout, so the slow request always times out.
    static let timeout = 2.0
    /// Two cases at a time, each off the cooperative pool (see `offPool`).
    static let slots = Slots(2)

    /// A `SlowServer` and nginx in `mode` in front of it, started off the cooperative pool.
    static func servers(_ mode: NginxServer.Mode) async throws -> (SlowServer, NginxServer) {
        try await offPool {
            let upstream = try SlowServer()
            return (upstream, try NginxServer(mode: mode, upstream: upstream))
        }
    }

    @Test(arguments: IsolationCase.all)
    func aSlowRequestNeverHoldsBackTheOthers(_ test: IsolationCase) async throws {
        try await Self.slots.run { try await check(test) }
    }

    private func check(_ test: IsolationCase) async throws {
        let (upstream, nginx) = try await Self.servers(test.mode)
        defer {
            nginx.stop()
            upstream.stop()
        }
        var requests = (0..<test.fastCount).map { HTTPRequest(method: "GET", url: "\(nginx.baseURL)/fast/\($0)") }
        let slowIndex: Int
        switch test.position {
        case .first: slowIndex = 0
        case .middle: slowIndex = test.fastCount / 2
        case .last: slowIndex = test.fastCount
        }
        requests.insert(HTTPRequest(method: "GET", url: "\(nginx.baseURL)/delay/8/slow"), at: slowIndex)
        let options = TransportOptions(
            jobs: test.jobs, timeout: Self.timeout, caCertificatePath: test.mode.isTLS ? nginx.caCertificate : nil)

        let sent = requests
        let results = try await offPool { CurlTransport().send(sent, options: options) }

        #expect(results.count == requests.count)
        guard case .failure(let slow) = results[slowIndex] else {
            Issue.record("the slow request should time out, got \(results[slowIndex])")
            return
        }
        #expect(slow.code == 28, "\(slow)")
        #expect(slow.message.hasPrefix("Operation timed out after"), "\(slow.message)")
        #expect(slow.message.hasSuffix("(raise --timeout to wait longer)"), "\(slow.message)")
        #expect(slow.url == requests[slowIndex].url)
        #expect(slow.duration >= Self.timeout - 0.01, "\(slow.duration)")
        for (index, result) in results.enumerated() where index != slowIndex {
            switch result {
            case .success(let response):
                #expect(response.statusCode == 200, "\(requests[index].url)")
                #expect(String(decoding: response.body, as: UTF8.self) == SlowServer.fastBody)
                #expect(
                    response.duration < slow.duration / 2,
                    "\(requests[index].url) took \(response.duration) s beside a slow one of \(slow.duration) s")
            case .failure(let error):
                Issue.record("a fast request failed beside the slow one: \(error)")
            }
        }
        // The protocol is the one the case is about.
        let protocols = Set(nginx.loggedRequests.filter { $0.uri.hasPrefix("/fast/") }.map(\.protocolName))
        #expect(protocols == [test.mode == .tlsHTTP2 ? "HTTP/2.0" : "HTTP/1.1"])
    }

    @Test func http2RequestsShareAConnection() async throws {
        let (upstream, nginx) = try await Self.servers(.tlsHTTP2)
        defer { upstream.stop() }
        let requests = (0..<20).map { HTTPRequest(method: "GET", url: "\(nginx.baseURL)/fast/\($0)") }
        let options = TransportOptions(jobs: 8, caCertificatePath: nginx.caCertificate)
        let results = try await offPool { CurlTransport().send(requests, options: options) }
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 }, "\(results)")
        let logged = nginx.loggedRequests
        #expect(logged.count == 20)
        #expect(logged.allSatisfy { $0.protocolName == "HTTP/2.0" }, "\(logged)")
        let connections = Set(logged.map(\.connection))
        #expect(connections.count <= 2, "20 requests came on \(connections.count) connections")
    }

    @Test func aLongRunSentBySeveralLoopsSendsEachRequestOnceOnAtMostJobsConnections() async throws {
        let (upstream, nginx) = try await Self.servers(.plain)
        defer { upstream.stop() }
        let requests = (0..<300).map { HTTPRequest(method: "GET", url: "\(nginx.baseURL)/fast/\($0)") }
        let options = TransportOptions(jobs: 8)
        #expect(CurlTransport.loops(requests: 300, options: options).reduce(0, +) == 8)
        let results = try await offPool { CurlTransport().send(requests, options: options) }
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 }, "\(results)")
        let logged = nginx.loggedRequests
        #expect(logged.map(\.uri).sorted() == requests.map { String($0.url.dropFirst(nginx.baseURL.count)) }.sorted())
        let connections = Set(logged.map(\.connection))
        #expect(connections.count <= 8, "300 requests at --jobs 8 came on \(connections.count) connections")
    }

    @Test func plainHTTPRequestsReuseKeptAliveConnections() async throws {
        let (upstream, nginx) = try await Self.servers(.plain)
        defer { upstream.stop() }
        let requests = (0..<40).map { HTTPRequest(method: "GET", url: "\(nginx.baseURL)/fast/\($0)") }
        let results = try await offPool { CurlTransport().send(requests, options: TransportOptions(jobs: 4)) }
        #expect(results.allSatisfy { (try? $0.get().statusCode) == 200 }, "\(results)")
        let connections = Set(nginx.loggedRequests.map(\.connection))
        #expect(connections.count <= 4, "40 requests at --jobs 4 came on \(connections.count) connections")
    }
}
