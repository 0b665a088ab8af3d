# A live service for the record tests, on 127.0.0.1 (port from the system, printed first). It echoes the
# credentials it is sent in every encoding a careless API might: raw, JSON-escaped, percent-encoded, base64, in a
# cookie and inside binary bytes, so that a recording that leaks one is caught.
import base64, gzip, http.server, json, sys, urllib.parse

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body, content_type="application/json", headers=(), compress=False):
        if compress:
            body = gzip.compress(body)
            headers = list(headers) + [("Content-Encoding", "gzip")]
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        auth = self.headers.get("Authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else auth
        if url.path == "/user":
            text = json.dumps({
                "login": "octocat", "id": 1, "email": "octocat@example.com",
                "plan": {"name": "pro", "private_repos": 9999},
                "echo": auth,
                "echo_escaped": token.replace("/", "\\/"),
                "echo_base64": base64.b64encode(token.encode()).decode(),
            })
            # json.dumps doubled the backslash of \/; put back the JSON escape a PHP or Java API writes
            text = text.replace("\\\\/", "\\/")
            self.answer(200, text.encode(), compress=True,
                        headers=[("Set-Cookie", "session=" + token + "; Path=/; HttpOnly")])
        elif url.path == "/search/repositories":
            body = {"total_count": 3, "query_echo": url.query,
                    "items": [{"id": 1, "full_name": "octocat/hello", "owner": {"login": "octocat", "email": "o@example.com"}}]}
            self.answer(200, json.dumps(body).encode())
        elif url.path == "/avatar":
            self.answer(200, b"\x89PNG\r\n\x1a\n\x00\xff" + token.encode() + b"\xfe\x00", content_type="image/png")
        elif url.path == "/repos/octocat/hello":
            self.answer(200, json.dumps({"id": 1, "stargazers_count": "12"}).encode())
        elif url.path == "/gone":
            self.answer(404, b'{"message": "Not Found"}')
        else:
            self.answer(404, b'{"message": "no route"}')

    def log_message(self, *args):
        pass

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
