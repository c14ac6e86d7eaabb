"""Stand-ins of the tests' own for an OpenID Connect provider and for ORCID, on 127.0.0.1.

The OpenID Connect one serves a discovery document, an authorization endpoint (never called
by the site: the test follows its redirect by hand, as a browser would), a token endpoint
whose id_token is signed with an RSA key made for the test, a userinfo endpoint and the key
set. `person` says who signs in next. The ORCID one answers ORCID's token and public record
endpoints. Nothing reaches the internet.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "paper-browser"
CLIENT_SECRET = "test-secret"
KEY_ID = "test-key"


class _Handler(BaseHTTPRequestHandler):
    server: ProviderServer

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        routes = {
            "/.well-known/openid-configuration": self.server.discovery,
            "/jwks": self.server.jwks,
            "/userinfo": self.server.userinfo,
        }
        if path.startswith("/v3.0/") and path.endswith("/record"):
            self._json(self.server.orcid_record(path.split("/")[2]))
        elif path in routes:
            self._json(routes[path]())
        else:
            self._json({"error": "not_found"}, 404)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        form = {k: v[0] for k, v in parse_qs(body).items()}
        self.server.token_requests.append(form)
        if urlsplit(self.path).path == "/token":
            self._json(self.server.token(form))
        elif urlsplit(self.path).path == "/oauth/token":
            self._json(self.server.orcid_token())
        else:
            self._json({"error": "not_found"}, 404)

    def _json(self, data: dict, status: int = 200) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class ProviderServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.person = {
            "sub": "subject-1",
            "email": "ada@lab.example.org",
            "email_verified": True,
            "preferred_username": "ada",
            "name": "Ada Lovelace",
        }
        self.orcid_id = "0000-0002-1825-0097"
        self.token_requests: list[dict] = []

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "id_token_signing_alg_values_supported": ["RS256"],
        }

    def jwks(self) -> dict:
        key = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**key, "kid": KEY_ID, "use": "sig", "alg": "RS256"}]}

    def token(self, form: dict) -> dict:
        now = int(time.time())
        claims = {
            **self.person,
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
            "jti": uuid.uuid4().hex,
        }
        id_token = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": KEY_ID})
        return {
            "access_token": "access-" + form.get("code", ""),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": id_token,
        }

    def userinfo(self) -> dict:
        return dict(self.person)

    def orcid_token(self) -> dict:
        return {
            "access_token": "orcid-access",
            "token_type": "bearer",
            "expires_in": 300,
            "orcid": self.orcid_id,
            "name": "Ada Lovelace",
        }

    def orcid_record(self, orcid_id: str) -> dict:
        return {
            "orcid-identifier": {"path": orcid_id},
            "person": {
                "name": {
                    "given-names": {"value": "Ada"},
                    "family-name": {"value": "Lovelace"},
                },
                "emails": {"email": []},
            },
        }

    def __enter__(self) -> ProviderServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
