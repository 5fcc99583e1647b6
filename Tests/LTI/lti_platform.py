#!/usr/bin/python3
"""The smallest LTI 1.3 platform (a learning platform such as Moodle or Canvas) for Podium's LTI
tests, built on PyPI's lti1p3platform (installed by `scripts/setup --test` into
.build/python-packages; PyJWT, jwcrypto and requests are Debian's).

It keeps one registration of Podium as a tool and serves, on 127.0.0.1:

  GET  /jwks                  the platform's public key set (Podium verifies launches with it)
  GET  /start?hint=…          a course link: sends the browser to Podium's OIDC login initiation
  GET  /auth?…                the OIDC authorisation endpoint: answers Podium's redirect with the
                              signed launch, an auto-posted form to the redirect_uri
  POST /deep-link-return      where a deep linking response comes back: its JWT verified
                              against Podium's key set (GET /api/v1/lti/jwks)

The course link's `hint` (base64url JSON, sent on as lti_message_hint) says who launches and how:
{"user", "roles", "name", "email", "custom", "kind": "resource"|"deep", "deployment",
"course": the context's id (default course-1, "Physics 101"), "locale": the launch_presentation
claim's locale (none by default), "rogue": sign with a key that is not the platform's,
"omitDeployment": leave lti_deployment_id out of the login initiation}.
"""

import base64
import html
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / ".build" / "python-packages"))
sys.path.append("/usr/lib/python3/dist-packages")  # Debian's PyJWT, jwcrypto, requests under a pyenv python

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract  # noqa: E402
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract  # noqa: E402
from lti1p3platform.oidc_login import OIDCLoginAbstract  # noqa: E402
from lti1p3platform.registration import Registration  # noqa: E402
from lti1p3platform.request import Request  # noqa: E402

CLIENT_ID = "podium-tool"
DEPLOYMENT_ID = "deployment-1"


def new_key():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


def encode_hint(hint):
    return base64.urlsafe_b64encode(json.dumps(hint).encode()).decode().rstrip("=")


def decode_hint(text):
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


class RogueRegistration(Registration):
    """Signs with another key under the platform's key id: a forged launch."""

    rogue_key = None

    def platform_encode_and_sign(self, payload, expiration=None):
        return Registration.encode_and_sign(payload, self.rogue_key, {"kid": self.get_kid()}, expiration=expiration)


class Platform(LTI1P3PlatformConfAbstract):
    """The platform's registration of Podium (lti1p3platform's configuration class)."""

    def __init__(self, server, deployment_id=DEPLOYMENT_ID, rogue=False):
        self.server = server
        self.deployment_id = deployment_id
        self.rogue = rogue
        super().__init__()

    def init_platform_config(self, **kwargs):
        tool = self.server.tool
        registration = RogueRegistration() if self.rogue else Registration()
        registration.rogue_key = self.server.rogue_private
        registration.set_iss(self.server.issuer) \
            .set_client_id(CLIENT_ID) \
            .set_deployment_id(self.deployment_id) \
            .set_launch_url(tool + "/api/v1/lti/launch") \
            .set_deeplink_launch_url(tool + "/api/v1/lti/launch") \
            .set_oidc_login_url(tool + "/api/v1/lti/login") \
            .set_tool_key_set_url(tool + "/api/v1/lti/jwks") \
            .set_platform_public_key(self.server.public) \
            .set_platform_private_key(self.server.private)
        self._registration = registration

    def get_registration_by_params(self, **kwargs):
        return self._registration


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


class QueryRequest(Request):
    def build_metadata(self, request):
        return {"method": "GET", "form_data": {}, "get_data": request, "headers": {}, "content_type": None,
                "path": "/auth", "json": None}


class Launch(LTIAdvantageMessageLaunchAbstract):
    """Builds the launch from the hint: who, which roles, which custom parameters, which kind."""

    def __init__(self, request, platform, hint, server):
        super().__init__(request, platform)
        self.hint = hint
        self.server = server

    def prepare_launch(self, preflight_response):
        hint = self.hint
        self.set_user_data(hint["user"], hint["roles"], full_name=hint.get("name"), email_address=hint.get("email"))
        course = hint.get("course", "course-1")
        self.set_launch_context_claim(course, context_title="Physics 101" if course == "course-1" else course.title())
        if hint.get("locale"):
            # lti1p3platform's setter knows document_target and return_url only; the claim also carries the locale.
            self.set_extra_claims({"https://purl.imsglobal.org/spec/lti/claim/launch_presentation": {
                "document_target": "window", "locale": hint["locale"]}})
        if hint.get("kind") == "deep":
            self.set_dl(self.server.issuer + "/deep-link-return", title="Physics 101",
                        accept_types={"ltiResourceLink"}, extra_data="opaque-course-data")
        else:
            self.set_resource_link_claim(hint.get("link", "link-1"), title="Lecture")
            self.set_custom_parameters_claim(hint.get("custom", {}))

    def render_launch_form(self, launch_data, **kwargs):
        self.server.launches.append(launch_data)
        action = html.escape(launch_data["launch_url"], quote=True)
        return f"""<!doctype html><html><head><title>Launching Podium</title></head>
<body><form id="launch" method="post" action="{action}">
<input type="hidden" name="id_token" value="{html.escape(launch_data['id_token'], quote=True)}">
<input type="hidden" name="state" value="{html.escape(launch_data['state'], quote=True)}">
<button type="submit">Open Podium</button></form>
<script>document.getElementById('launch').submit();</script></body></html>"""


class PlatformServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, tool, port=0):
        super().__init__(("127.0.0.1", port), Handler)
        self.tool = tool.rstrip("/")
        self.issuer = f"http://127.0.0.1:{self.server_address[1]}"
        self.private, self.public = new_key()
        self.rogue_private, _ = new_key()
        self.launches = []  # every launch form posted: {"id_token", "state", "launch_url"}
        self.deep_links = []  # every deep linking response verified: its content items
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.shutdown()
        self.server_close()

    def registration_body(self):
        """What an admin registers in Podium for this platform."""
        return {"name": "Test platform", "issuer": self.issuer, "clientId": CLIENT_ID, "deploymentIds": [DEPLOYMENT_ID],
                "authLoginURL": self.issuer + "/auth", "tokenURL": self.issuer + "/token",
                "jwksURL": self.issuer + "/jwks"}

    def course_link(self, **hint):
        return self.issuer + "/start?hint=" + encode_hint(hint)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/html; charset=utf-8", location=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        server = self.server
        if url.path == "/jwks":
            self.answer(200, json.dumps(Platform(server).get_jwks()), "application/json")
        elif url.path == "/start":
            hint = decode_hint(query["hint"])
            platform = Platform(server, deployment_id=hint.get("deployment", DEPLOYMENT_ID))
            login = Login(None, platform)
            login.set_lti_message_hint(hint=query["hint"])
            target = server.tool + "/api/v1/lti/launch"
            login.set_launch_url(target)
            location = login.initiate_login(hint["user"])
            if hint.get("omitDeployment"):
                parts = urllib.parse.urlsplit(location)
                kept = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "lti_deployment_id"]
                location = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(kept)))
            self.answer(302, "", location=location)
        elif url.path == "/auth":
            hint = decode_hint(query.get("lti_message_hint", ""))
            if query.get("login_hint") != hint.get("user"):
                self.answer(400, "login_hint does not match the user")
                return
            platform = Platform(server, deployment_id=hint.get("deployment", DEPLOYMENT_ID), rogue=hint.get("rogue", False))
            launch = Launch(QueryRequest(query), platform, hint, server)
            try:
                page = launch.lti_launch()
            except Exception as error:  # the library refuses a bad preflight response
                self.answer(400, f"refused: {type(error).__name__} {error}")
                return
            self.answer(200, page)
        else:
            self.answer(404, "not found")

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        if url.path != "/deep-link-return":
            self.answer(404, "not found")
            return
        platform = Platform(self.server)
        try:
            items = platform.validate_deeplinking_resp({"JWT": form.get("JWT", "")})
            claims = platform._jwt.get("body", {})
        except Exception as error:
            self.answer(400, f"<!doctype html><title>Refused</title><p id='refused'>{html.escape(str(error))}</p>")
            return
        self.server.deep_links.append({"items": items, "claims": claims})
        body = json.dumps(items)
        self.answer(200, f"<!doctype html><title>Added to the course</title><h1>Added to the course</h1>"
                         f"<pre id='items'>{html.escape(body)}</pre>")


if __name__ == "__main__":
    # By hand: lti_platform.py TOOL_URL [PORT]; prints what to register in Podium.
    server = PlatformServer(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    print(json.dumps(server.registration_body(), indent=2))
    print("course link (instructor):", server.course_link(user="t1", roles=[
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"], name="Tess Teacher"))
    server.serve_forever()
