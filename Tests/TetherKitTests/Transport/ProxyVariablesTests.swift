import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// Where no proxy variable is set, the transport tells libcurl there is no proxy instead of letting it read the
/// environment at every request; where one is, libcurl reads them as it always did.
@Suite struct ProxyVariablesTests {
    @Test func aNameEndingInProxyInAnyCaseNamesAProxy() {
        for entry in [
            "http_proxy=http://p:8080", "HTTPS_PROXY=x", "no_proxy=localhost", "NO_PROXY", "all_proxy=",
            "ALL_PROXY=socks5://p", "ftp_proxy=x", "Http_Proxy=x", "_proxy=x",
        ] {
            #expect(entry.withCString { ProxyVariables.namesAProxy($0) }, "\(entry)")
        }
        for entry in [
            "PATH=/usr/bin", "HOME=/root", "proxy=x", "http_proxy_port=8080", "HTTP_PROXYX=1", "=x",
            "", "MY_VALUE=a_proxy", "proxyless=1",
        ] {
            #expect(!entry.withCString { ProxyVariables.namesAProxy($0) }, "\(entry)")
        }
    }

    /// The built binary, with only PATH and the variables given in its environment, against a server and a second one
    /// that stands for a proxy: each request goes where libcurl's own reading of the variables sends it (an
    /// uppercase `HTTP_PROXY` is ignored for http, `NO_PROXY` wins over `http_proxy`).
    @Test(
        arguments: [
            ([:], false), (["http_proxy": "PROXY"], true), (["HTTP_PROXY": "PROXY"], false),
            (["http_proxy": "PROXY", "NO_PROXY": "127.0.0.1"], false), (["ALL_PROXY": "PROXY"], true),
        ] as [([String: String], Bool)])
    func requestsGoWhereTheProxyVariablesSay(variables: [String: String], viaProxy: Bool) throws {
        let direct = SeenRequests()
        let proxied = SeenRequests()
        let server = try MockServer { request in
            direct.record(request)
            return .json(#"{"id": 1}"#)
        }
        let proxy = try MockServer { request in
            proxied.record(request)
            return .json(#"{"id": 1}"#)
        }
        let manifest = """
            {"service": "Shop", "baseURL": "\(server.baseURL)", "targets": [
              {"name": "item", "path": "/item", "sampleData": {"json": {"id": 1}}}]}
            """
        let folder = try ContractFolder(["shop.json": manifest])
        let environment = variables.mapValues { $0 == "PROXY" ? proxy.baseURL : $0 }
        let run = try TetherBinary.run(["verify", folder.path, "--no-color"], environment: environment)
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        if viaProxy {
            // The server's host in the request the proxy got (its absolute-form target reads as its path).
            #expect(direct.all.isEmpty)
            #expect(proxied.all.map(\.path) == ["/item"])
            let host = proxied.all.first?.headers.first { $0.name.lowercased() == "host" }?.value
            #expect(host.map { "http://" + $0 } == server.baseURL)
        } else {
            #expect(direct.all.map(\.path) == ["/item"])
            #expect(proxied.all.isEmpty)
        }
        // The product's User-Agent, once, whether libcurl also has it as an option (a proxy variable is set: for a
        // proxy's CONNECT) or the header list alone has it.
        let agents = (viaProxy ? proxied : direct).all.map {
            $0.headers.filter { $0.isNamed("User-Agent") }.map(\.value)
        }
        #expect(agents == [[CurlTransport.userAgent]])
    }
}
