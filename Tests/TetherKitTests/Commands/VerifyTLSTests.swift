import Foundation
import Testing

@testable import TetherContracts
@testable import TetherCore
@testable import TetherEngine
@testable import TetherKit

/// An HTTPS server on 127.0.0.1 (Python's ssl module, a certificate made by openssl for this test), so TLS
/// verification, `--cacert` and `--insecure` are checked against a real handshake.
final class TLSServer: PythonServer, @unchecked Sendable {
    let folder: String

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: PythonServer.python) }

    static let script = """
        import http.server, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b'{"secure": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    init() throws {
        let folder = NSTemporaryDirectory() + "tether-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // OpenSSL 3: Homebrew's openssl@3 before macOS's LibreSSL (see `OpenSSL`); none is a clear error.
        let openssl = try ChildProcess.run(
            try OpenSSL.path.get(),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ])
        guard openssl.status == 0 else {
            throw Failure.notStarted(name: "HTTPS test server", "openssl req failed: \(openssl.stderrText)")
        }
        self.folder = folder
        try super.init(
            script: Self.script, name: "HTTPS test server", arguments: [folder + "/cert.pem", folder + "/key.pem"])
    }

    var certificate: String { folder + "/cert.pem" }
    override var baseURL: String { "https://127.0.0.1:\(port)" }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

@Suite(.enabled(if: TLSServer.isAvailable, "python3 is missing"))
struct VerifyTLSTests {
    @Test func verificationIsOnAndCACertOrInsecureChangeIt() throws {
        let server = try TLSServer()
        let folder = try ContractFolder([
            "tls.json":
                #"{"service": "Secure", "baseURL": "\#(server.baseURL)", "targets": [{"name": "a", "path": "/a", "sampleData": {"json": {"secure": false}}}]}"#
        ])
        let untrusted = try TetherBinary.run(["verify", folder.path, "--no-color"])
        #expect(untrusted.exitCode == 4, "\(untrusted.stdout)")
        #expect(untrusted.stdout.contains("ERROR Secure.a"))
        #expect(untrusted.stdout.contains("certificate"), "\(untrusted.stdout)")
        let trusted = try TetherBinary.run(["verify", folder.path, "--cacert", server.certificate, "--no-color"])
        #expect(trusted.exitCode == 0, "\(trusted.stdout)")
        let insecure = try TetherBinary.run(["verify", folder.path, "--insecure", "--no-color"])
        #expect(insecure.exitCode == 0, "\(insecure.stdout)")
    }
}
