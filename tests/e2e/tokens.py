"""Throwaway signing keys and the JWT access tokens they sign, as an OAuth authorization server
would issue them to agents (PyJWT, cryptography), and a JWKS published on loopback as its
`jwks_uri`, whose keys a test can rotate and whose fetches it can count."""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ISSUER, AUDIENCE = "https://auth.e2e.example", "https://m1nd.e2e.example/mcp"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class SigningKey:
    kid: str
    private: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def jwk(self) -> dict[str, str]:
        public = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "x": _b64url(public), "kid": self.kid, "alg": "EdDSA", "use": "sig"}

    def mint(self, agent: str, **claims: Any) -> str:
        """A token naming `agent`, good for an hour unless `claims` say otherwise."""
        now = int(time.time())
        all_claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": agent, "iat": now, "exp": now + 3600, **claims}
        return jwt.encode(all_claims, self.private, algorithm="EdDSA", headers={"kid": self.kid})


def unsigned(agent: str) -> str:
    """A token with `alg: none`: no signature at all."""
    now = int(time.time())
    header = _b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    claims = _b64url(json.dumps({"iss": ISSUER, "aud": AUDIENCE, "sub": agent, "exp": now + 3600}).encode())
    return f"{header}.{claims}."


class Publisher:
    """`GET /jwks.json` on 127.0.0.1, serving the keys given last; counts the fetches."""

    def __init__(self, keys: list[SigningKey]) -> None:
        self.body = json.dumps({"keys": [k.jwk for k in keys]}).encode()
        self.fetches = 0
        publisher = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                publisher.fetches += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(publisher.body)))
                self.end_headers()
                self.wfile.write(publisher.body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def publish(self, keys: list[SigningKey]) -> None:
        self.body = json.dumps({"keys": [k.jwk for k in keys]}).encode()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
