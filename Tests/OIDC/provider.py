#!/usr/bin/python3
"""An OpenID Connect provider for Podium's single sign-on tests.

Authlib's OAuth 2.0 and OpenID Connect server (Debian's python3-authlib, on python3-flask) does the
protocol for real: discovery, the authorization code flow with PKCE (RFC 7636, S256 and plain),
client authentication at the token endpoint (client_secret_basic and client_secret_post), ID
tokens signed RS256 with a key made at start and published as a JWKS, UserInfo. This file only
keeps its state in memory and gives the tests their handles:

- PUT /users/<sub> with a JSON object sets that person's claims (email, email_verified, name,
  groups, ...), which the next ID token carries;
- the authorization page is a form: POST sub=<sub>&action=allow signs that person in,
  action=deny answers access_denied, as a person pressing "No" would.

Run: provider.py --port 0 --client-id podium --client-secret s3cret; it prints
"listening on <port>" once it accepts connections, and stops on SIGTERM or when stdin closes.
"""

import argparse
import os
import secrets
import sys
import threading
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.jose import JsonWebKey, KeySet
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Flask, jsonify, request
from werkzeug.serving import make_server

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--client-id", default="podium")
parser.add_argument("--client-secret", default="s3cret")
parser.add_argument("--auth-method", default="client_secret_basic",
                    choices=["client_secret_basic", "client_secret_post"])
arguments = parser.parse_args()

KEY = JsonWebKey.generate_key("RSA", 2048, is_private=True, options={"kid": "test-key-1"})
USERS = {}  # sub -> claims
CODES = {}  # code -> AuthorizationCode
TOKENS = {}  # access token -> (sub, scope)
ISSUER = None  # set once the port is known


class Client(ClientMixin):
    def get_client_id(self):
        return arguments.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope

    def check_redirect_uri(self, redirect_uri):
        # Any callback on this machine: the tests' servers listen on ports chosen at start.
        return redirect_uri.startswith("http://127.0.0.1:") or redirect_uri.startswith("http://localhost:")

    def check_client_secret(self, client_secret):
        return secrets.compare_digest(client_secret, arguments.client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return endpoint != "token" or method == arguments.auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type == "authorization_code"


CLIENT = Client()


class User:
    def __init__(self, sub):
        self.id = sub

    def get_user_id(self):
        return self.id


class AuthorizationCode:
    def __init__(self, code, sub, redirect_uri, scope, nonce, challenge, method):
        self.code = code
        self.user_id = sub
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.nonce = nonce
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.auth_time = int(time.time())

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def save_authorization_code(self, code, request):
        CODES[code] = AuthorizationCode(
            code, request.user.id, request.redirect_uri, request.scope, request.data.get("nonce"),
            request.data.get("code_challenge"), request.data.get("code_challenge_method"))

    def query_authorization_code(self, code, client):
        return CODES.get(code)

    def delete_authorization_code(self, authorization_code):
        CODES.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return User(authorization_code.user_id)


class OpenIDClaims(OpenIDCode):
    def exists_nonce(self, nonce, request):
        return any(code.nonce == nonce for code in CODES.values())

    def get_jwt_config(self, grant):
        return {"key": KEY.as_dict(is_private=True), "alg": "RS256", "iss": ISSUER, "exp": 300}

    def generate_user_info(self, user, scope):
        return UserInfo(sub=user.id, **USERS.get(user.id, {}))


def save_token(token, request):
    TOKENS[token["access_token"]] = (request.user.id, token.get("scope", ""))


app = Flask(__name__)
server = AuthorizationServer(app, query_client=lambda client_id: CLIENT if client_id == arguments.client_id else None,
                             save_token=save_token)
server.register_grant(CodeGrant, [OpenIDClaims(require_nonce=True), CodeChallenge(required=True)])


@app.get("/.well-known/openid-configuration")
def discovery():
    return jsonify({
        "issuer": ISSUER,
        "authorization_endpoint": ISSUER + "/authorize",
        "token_endpoint": ISSUER + "/token",
        "userinfo_endpoint": ISSUER + "/userinfo",
        "jwks_uri": ISSUER + "/jwks",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": [arguments.auth_method],
        "code_challenge_methods_supported": ["S256", "plain"],
        "scopes_supported": ["openid", "email", "profile"],
    })


@app.get("/jwks")
def jwks():
    return jsonify(KeySet([KEY]).as_dict())


@app.put("/users/<sub>")
def put_user(sub):
    USERS[sub] = request.get_json(force=True)
    return "", 204


@app.route("/authorize", methods=["GET", "POST"])
def authorize():
    if request.method == "GET":
        # Checks the request (client, redirect URI, PKCE's challenge) before showing the form.
        try:
            server.get_consent_grant(end_user=None)
        except Exception as error:  # an invalid request gets an error page, as a provider shows
            return f"invalid authorization request: {error}", 400
        return '<form method="post"><input name="sub"><button name="action" value="allow">Yes</button>' \
               '<button name="action" value="deny">No</button></form>'
    if request.form.get("action") != "allow":
        return server.create_authorization_response(grant_user=None)
    return server.create_authorization_response(grant_user=User(request.form["sub"]))


@app.post("/token")
def token():
    return server.create_token_response()


class Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        held = TOKENS.get(token_string)
        if not held:
            return None

        class Token:
            def __init__(self):
                self.user = User(held[0])
                self.scope = held[1]

            def is_expired(self):
                return False

            def is_revoked(self):
                return False

            def get_scope(self):
                return self.scope

        return Token()


protect = ResourceProtector()
protect.register_token_validator(Validator())


@app.get("/userinfo")
@protect("openid")
def userinfo():
    from authlib.integrations.flask_oauth2 import current_token
    sub = current_token.user.id
    return jsonify({"sub": sub, **USERS.get(sub, {})})


def main():
    global ISSUER
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # plain HTTP on this machine only
    http = make_server("127.0.0.1", arguments.port, app, threaded=True)
    ISSUER = f"http://127.0.0.1:{http.server_port}"
    print(f"listening on {http.server_port}", flush=True)
    # Ends when whoever started it closes our stdin (a test that died leaves no provider behind).
    threading.Thread(target=lambda: (sys.stdin.read(), http.shutdown()), daemon=True).start()
    http.serve_forever()


if __name__ == "__main__":
    main()
