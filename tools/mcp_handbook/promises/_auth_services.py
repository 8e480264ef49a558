"""The services the auth gate's checks stand up on loopback for a block to talk to: an HTTP server answering with
a route, an authorization server's signing key and key set (tokens are RS256, signed with keys made for the run,
with PyJWT and ``cryptography``), and the constants the pages' blocks use for the issuer and the resources."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

ISSUER = "https://auth.example.com"
"""The issuer the pages' blocks trust (a block's own ``ISSUER`` wins)."""

RESOURCE = "https://notes.example.com/mcp"
"""This server's canonical URI in the pages' blocks (a block's own ``RESOURCE`` wins)."""

OTHER_RESOURCE = "https://calendar.example.com/mcp"
"""Another resource of the same issuer: a token for it is genuine, and not for this server."""

KID = "hb-key-1"

Route = Callable[[str, dict[str, str]], tuple[int, bytes]]
"""(path, headers with lower-cased names) -> (status, body) for one GET."""


@contextmanager
def serve(route: Route, seen: list[tuple[str, dict[str, str], bytes]] | None = None) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering GET (and POST) with ``route``; every request is recorded in ``seen``.
    Yields its base URL; stopped on leaving."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, 1 << 20)) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            if seen is not None:
                seen.append((self.path, headers, body))
            status, payload = route(self.path, headers)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _answer

        def log_message(self, *_args: Any) -> None:  # the block's stderr stays its own
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class Issuer:
    """An authorization server's signing key, its JWKS on loopback, and tokens minted with it."""

    def __init__(self, block: ModuleType) -> None:
        import jwt  # PyJWT: imported here, so importing this module needs no third-party library
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.jwt = jwt
        self.issuer = str(getattr(block, "ISSUER", ISSUER))
        self.resource = str(getattr(block, "RESOURCE", RESOURCE))
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # the same kid, another key
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = json.dumps({"keys": [{**public, "kid": KID, "use": "sig", "alg": "RS256"}]}).encode()

    def token(self, *, audience: str | None = None, lifetime: float = 600, scope: str = "", forged: bool = False,
              **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": self.issuer, "sub": "alice", "aud": audience or self.resource, "iat": now - 5,
                "exp": now + int(lifetime), **({"scope": scope} if scope else {}), **claims}
        return self.jwt.encode(body, self.forger if forged else self.key, algorithm="RS256", headers={"kid": KID})

    @contextmanager
    def serving(self, block: ModuleType) -> Iterator[None]:
        """Serve the key set on loopback and point the block's ``JWKS`` client at it."""
        with serve(lambda path, _h: (200, self.jwks) if path.endswith("/jwks.json") else (404, b"{}")) as base:
            if hasattr(block, "JWKS"):
                vars(block)["JWKS"] = self.jwt.PyJWKClient(f"{base}/.well-known/jwks.json")
            yield


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}
