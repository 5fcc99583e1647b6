#!/usr/bin/python3
"""LTI 1.3 (issue #43): Podium launched from a real LTI 1.3 platform, Tests/LTI/lti_platform.py (PyPI's
lti1p3platform in a small HTTP server started here): the OIDC login initiation's redirect, a
teacher's signed launch landing in the library signed in, a student's landing on the session's
join page with their name, a forged signature, an unknown deployment and a replayed launch
refused with a page that says so, a deep linking round trip (the picker, the signed answer
the platform verifies against Podium's key set), a course's second teacher running the session
the first placed there, and the launch's language on the page it lands on.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness and server). Alone:  python3 Tests/Browser/run_browser_tests.py LTITests
"""

import html
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot
wait_translated = harness.wait_translated
stage_attr = harness.stage_attr

INSTRUCTOR = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
LEARNER = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
FIXTURE = harness.FIXTURES / "cairo-slides.pdf"


def setUpModule():
    if not harness.DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def load_platform_module():
    """Tests/LTI/lti_platform.py, loaded by its path (Tests/LTI is not on the module path)."""
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "LTI" / "lti_platform.py"
    spec = importlib.util.spec_from_file_location("lti_test_platform", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["lti_test_platform"] = module
    spec.loader.exec_module(module)
    return module


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url, form=None, cookie=None):
    """One request, redirects not followed: (status, headers, body text)."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if form is not None else "GET")
    if form is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if cookie:
        request.add_header("Cookie", cookie)
    request.add_header("Accept", "text/html")
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def launch_form(page):
    """The platform's auto-posted launch form: (action, id_token, state)."""
    action = re.search(r'action="([^"]+)"', page).group(1)
    token = re.search(r'name="id_token" value="([^"]+)"', page).group(1)
    state = re.search(r'name="state" value="([^"]+)"', page).group(1)
    return html.unescape(action), html.unescape(token), html.unescape(state)


def health_findings(driver):
    """The page-health sweep's layout checks and axe-core's serious findings (test_page_health.py)."""
    import test_page_health
    return test_page_health.page_findings(driver) + test_page_health.test_screens.axe_findings(driver)


def reason_of(page):
    found = re.search(r'data-reason="([^"]*)"', page)
    return found.group(1) if found else None


class LTITests(BrowserTest):
    @classmethod
    def setUpClass(cls):
        module = load_platform_module()
        cls.module = module
        cls.platform = None
        # A port of the LTI tests' own range, else any free one.
        for port in list(range(26410, 26500)) + [0]:
            try:
                cls.platform = module.PlatformServer(SERVER.base, port).start()
                break
            except OSError:
                continue
        harness.add_origin(cls.platform.server_address[1])
        status, registered = SERVER.api("POST", "/api/v1/lti/platforms", cls.platform.registration_body())
        assert status == 201, (status, registered)
        cls.registration = registered
        # The teacher's first launch makes their account; they then upload a deck and go live.
        cls.teacher = dict(user="teacher-1", roles=INSTRUCTOR, name="Tess Teacher", email="tess@school.example")
        final = cls.launch_http(**cls.teacher)["final"]
        assert final[0] == 303 and final[1]["Location"] == "/library", final[:2]
        cls.teacher_token = re.search(r"podium_auth=([0-9a-f]+)", final[1]["Set-Cookie"]).group(1)
        cls.deck = cls.upload_deck("Optics")
        status, session = SERVER.request("POST", "/api/v1/sessions", {"deckId": cls.deck["id"]}, token=cls.teacher_token)
        assert status == 201, (status, session)
        cls.session = session

    @classmethod
    def tearDownClass(cls):
        if cls.platform:
            cls.platform.stop()
            harness.remove_origin(cls.platform.server_address[1])
        SERVER.api("DELETE", f"/api/v1/lti/platforms/{cls.registration['id']}")

    @classmethod
    def upload_deck(cls, title):
        """A deck of the first teacher's, uploaded and processed."""
        status, deck = SERVER.request(
            "POST", f"/api/v1/decks?title={title}", token=cls.teacher_token, raw=FIXTURE.read_bytes())
        assert status == 201, (status, deck)
        deadline = time.monotonic() + 120
        while True:
            status, deck = SERVER.request("GET", f"/api/v1/decks/{deck['id']}", token=cls.teacher_token)
            if deck["status"] != "processing":
                break
            assert time.monotonic() < deadline, "the teacher's deck is still processing"
            time.sleep(0.25)
        assert deck["status"] == "ready", deck
        return deck

    @classmethod
    def launch_http(cls, **hint):
        """A whole launch without a browser: the course link, Podium's login initiation, the
        platform's authorisation, the posted launch. Every step's (status, headers, body)."""
        steps = {}
        steps["start"] = fetch(cls.platform.course_link(**hint))
        assert steps["start"][0] == 302, steps["start"]
        steps["login"] = fetch(steps["start"][1]["Location"])
        if steps["login"][0] != 302:
            steps["final"] = steps["login"]
            return steps
        steps["auth"] = fetch(steps["login"][1]["Location"])
        assert steps["auth"][0] == 200, steps["auth"]
        action, token, state = launch_form(steps["auth"][2])
        steps["form"] = {"action": action, "id_token": token, "state": state}
        steps["final"] = fetch(action, {"id_token": token, "state": state})
        return steps

    def test_lti_1_the_login_initiation_sends_the_browser_to_the_platform_with_a_state_and_nonce(self):
        """GET and POST login initiations answer 302 to the platform's authentication request URL
        with what OIDC's implicit flow and LTI 1.3 ask for; each has its own state and nonce; an
        unknown issuer or deployment gets a page saying so."""
        link = urllib.parse.urlsplit(self.platform.course_link(user="someone", roles=LEARNER))
        status, headers, _ = fetch(self.platform.course_link(user="someone", roles=LEARNER))
        self.assertEqual(status, 302)
        initiation = headers["Location"]
        self.assertTrue(initiation.startswith(SERVER.base + "/api/v1/lti/login?"), initiation)
        sent = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(initiation).query))
        self.assertEqual(sent["iss"], self.platform.issuer)
        self.assertEqual(sent["lti_deployment_id"], self.module.DEPLOYMENT_ID)
        self.assertTrue(link.query)

        answers = [fetch(initiation), fetch(SERVER.base + "/api/v1/lti/login", form=sent)]
        seen = []
        for status, headers, body in answers:
            self.assertEqual(status, 302, body[:300])
            target = urllib.parse.urlsplit(headers["Location"])
            self.assertEqual(f"{target.scheme}://{target.netloc}{target.path}", self.platform.issuer + "/auth")
            query = dict(urllib.parse.parse_qsl(target.query))
            self.assertEqual(query["scope"], "openid")
            self.assertEqual(query["response_type"], "id_token")
            self.assertEqual(query["response_mode"], "form_post")
            self.assertEqual(query["prompt"], "none")
            self.assertEqual(query["client_id"], self.module.CLIENT_ID)
            self.assertEqual(query["redirect_uri"], SERVER.base + "/api/v1/lti/launch")
            self.assertEqual(query["login_hint"], "someone")
            self.assertEqual(query["lti_message_hint"], sent["lti_message_hint"])
            self.assertGreaterEqual(len(query["state"]), 32)
            self.assertGreaterEqual(len(query["nonce"]), 32)
            seen += [query["state"], query["nonce"]]
        self.assertEqual(len(set(seen)), 4, "every login has its own state and nonce")

        unknown = dict(sent, iss="https://unknown.example")
        status, _, page = fetch(SERVER.base + "/api/v1/lti/login?" + urllib.parse.urlencode(unknown))
        self.assertEqual((status, reason_of(page)), (400, "lti-platform"))
        wrong = dict(sent, lti_deployment_id="deployment-9")
        status, _, page = fetch(SERVER.base + "/api/v1/lti/login?" + urllib.parse.urlencode(wrong))
        self.assertEqual((status, reason_of(page)), (403, "lti-deployment"))

    def test_lti_2_a_teacher_lands_in_the_library_signed_in(self):
        """A teacher's launch from the course, in a browser: their library, signed in as the account
        made from the launch's name and address; a link naming a deck opens its console, or its Go
        live dialog when it is not live."""
        driver = self.driver(1280, 800)
        driver.get(self.platform.course_link(**self.teacher))
        wait_for(driver, lambda d: d.current_url == SERVER.base + "/library", "the library after the launch")
        wait_translated(driver)
        chip = wait_for(driver, lambda d: visible(d, "#user-chip"), "the signed-in account in the library")
        self.assertEqual(text_of(driver, "#user-name"), "Tess Teacher")
        self.assertTrue(chip.is_displayed())
        wait_for(driver, lambda d: "Optics" in (text_of(d, "body") or ""), "the teacher's deck in the library")
        me = driver.execute_async_script(
            "const done = arguments[0]; fetch('/api/v1/me').then((r) => r.json()).then(done, (e) => done(String(e)));")
        self.assertEqual((me["name"], me["email"], me["role"]), ("Tess Teacher", "tess@school.example", "presenter"))
        screenshot(driver, "lti-teacher-library")

        # A link naming a deck: the console of the teacher's live session of it.
        driver.get(self.platform.course_link(**self.teacher, custom={"podium_deck": self.deck["id"]}))
        wait_for(driver, lambda d: d.current_url == f"{SERVER.base}/present/{self.session['code']}",
                 "the console of the deck's live session")
        # Not presented yet, the library opens with the deck's Go live dialog (the link the
        # launch gives then), and the address loses the parameter (a reload opens no dialog).
        driver.get(f"{SERVER.base}/library?golive={self.deck['id']}")
        wait_for(driver, lambda d: visible(d, "#golive-dialog") and "Optics" in (text_of(d, "#golive-dialog") or ""),
                 "the Go live dialog of the deck")
        self.assertTrue(visible(driver, "#golive-start"))
        self.assertEqual(driver.current_url, f"{SERVER.base}/library")

    def test_lti_3_a_student_lands_on_the_join_page_with_their_name(self):
        """A student's launch of a link naming the session: the session's join page, the code
        known, their name already in the field, nothing to type; Join takes them in."""
        driver = self.driver(390, 844)
        code = self.session["code"]
        driver.get(self.platform.course_link(
            user="student-1", roles=LEARNER, name="Ada Lovelace", custom={"podium_session": code}))
        wait_for(driver, lambda d: d.current_url.startswith(f"{SERVER.base}/s/{code}"), "the session's join page")
        wait_translated(driver)
        field = wait_for(driver, lambda d: visible(d, "#viewer-name"), "the name field of the join gate")
        wait_for(driver, lambda d: field.get_attribute("value") == "Ada Lovelace", "the student's name in the field")
        self.assertEqual(text_of(driver, "#gate-code"), code)
        button = visible(driver, "#join-button")
        self.assertIsNotNone(button)
        screenshot(driver, "lti-student-join")
        button.click()
        self.wait_watching(driver)

        # A student's link to a deck goes to its live session; the same deck not presented: a page.
        final = self.launch_http(user="student-2", roles=LEARNER, name="Bo", custom={"podium_deck": self.deck["id"]})["final"]
        self.assertEqual((final[0], final[1]["Location"]), (303, f"/s/{code}?name=Bo"))
        final = self.launch_http(user="student-2", roles=LEARNER, custom={"podium_deck": "d_nothing"})["final"]
        self.assertEqual((final[0], reason_of(final[2])), (404, "lti-not-live"))

    def test_lti_3b_a_student_joins_a_session_with_a_passcode_without_typing_it(self):
        """The course vouches for its students: a launch of a session with a passcode brings it in
        the address's fragment, which the join page takes out of the address at once; the passcode
        field is not shown, Join takes the student in; after the host changes it, the next launch brings the new one."""
        code = self.session["code"]
        status, _ = SERVER.request("PATCH", f"/api/v1/sessions/{code}", {"passcode": "owl 42/7"}, token=self.teacher_token)
        self.assertEqual(status, 200)
        try:
            final = self.launch_http(user="student-5", roles=LEARNER, name="Mo", custom={"podium_session": code})["final"]
            self.assertEqual((final[0], final[1]["Location"]), (303, f"/s/{code}?name=Mo#passcode=owl%2042%2F7"))

            driver = self.driver(390, 844)
            driver.get(self.platform.course_link(
                user="student-5", roles=LEARNER, name="Mo Student", custom={"podium_session": code}))
            wait_for(driver, lambda d: d.current_url.startswith(f"{SERVER.base}/s/{code}"), "the session's join page")
            wait_translated(driver)
            field = wait_for(driver, lambda d: visible(d, "#viewer-name"), "the name field of the join gate")
            wait_for(driver, lambda d: field.get_attribute("value") == "Mo Student", "the student's name in the field")
            self.assertNotIn("#", driver.current_url, "the passcode left in the address")
            self.assertNotIn("owl", driver.current_url)
            self.assertIsNone(visible(driver, "#passcode-field"), "a passcode field the student has nothing to type in")
            screenshot(driver, "lti-student-join-passcode")
            visible(driver, "#join-button").click()
            self.wait_watching(driver)

            # The host changes it: the next launch brings the new one, and Join still takes them in.
            status, _ = SERVER.request("PATCH", f"/api/v1/sessions/{code}", {"passcode": "new-one"}, token=self.teacher_token)
            self.assertEqual(status, 200)
            other = self.driver(390, 844)
            other.get(self.platform.course_link(user="student-6", roles=LEARNER, name="Li", custom={"podium_session": code}))
            wait_for(other, lambda d: d.current_url.startswith(f"{SERVER.base}/s/{code}"), "the session's join page")
            wait_translated(other)
            wait_for(other, lambda d: visible(d, "#join-button"), "the join button").click()
            self.wait_watching(other)
        finally:
            SERVER.request("PATCH", f"/api/v1/sessions/{code}", {"passcode": None}, token=self.teacher_token)

    def test_lti_4_a_forged_signature_is_refused_with_a_page_that_says_so(self):
        """A launch signed with a key that is not the platform's (under the platform's key id)."""
        steps = self.launch_http(user="student-3", roles=LEARNER, name="Eve", custom={"podium_session": self.session["code"]},
                                 rogue=True)
        status, headers, page = steps["final"]
        self.assertEqual((status, reason_of(page)), (401, "lti-signature"))
        self.assertNotIn("Set-Cookie", headers)
        driver = self.driver(800, 700)
        driver.get(self.platform.course_link(user="student-3", roles=LEARNER, rogue=True,
                                             custom={"podium_session": self.session["code"]}))
        wait_for(driver, lambda d: visible(d, "#not-found-title"), "the refusal page")
        wait_translated(driver)
        self.assertEqual(text_of(driver, "#not-found-title"), "This launch could not be verified")
        self.assertIn("not signed with its registered key", text_of(driver, "#not-found-text"))
        self.assertTrue(driver.current_url.endswith("/api/v1/lti/launch"))
        screenshot(driver, "lti-bad-signature")
        self.assertEqual(health_findings(driver), [], "the refusal page's layout and accessibility")

    def test_lti_5_a_deployment_that_is_not_registered_is_refused(self):
        """The login initiation names no deployment; the launch's deployment_id is not registered."""
        steps = self.launch_http(user="teacher-1", roles=INSTRUCTOR, deployment="deployment-9", omitDeployment=True)
        self.assertIn("form", steps, "the login initiation without a deployment goes on to the platform")
        status, headers, page = steps["final"]
        self.assertEqual((status, reason_of(page)), (403, "lti-deployment"))
        self.assertNotIn("Set-Cookie", headers)

    def test_lti_6_a_replayed_launch_is_refused(self):
        """The same launch posted again, and its id_token (with its nonce) posted with another
        login's fresh state: both refused, nobody signed in."""
        steps = self.launch_http(**self.teacher)
        self.assertEqual(steps["final"][0], 303)
        form = steps["form"]
        status, headers, page = fetch(form["action"], {"id_token": form["id_token"], "state": form["state"]})
        self.assertEqual((status, reason_of(page)), (400, "lti-expired"))
        self.assertNotIn("Set-Cookie", headers)
        # A new login initiation's state, with the old token: its nonce is not this login's.
        fresh = fetch(fetch(self.platform.course_link(**self.teacher))[1]["Location"])
        state = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(fresh[1]["Location"]).query))["state"]
        status, headers, page = fetch(form["action"], {"id_token": form["id_token"], "state": state})
        self.assertEqual((status, reason_of(page)), (401, "lti-claims"))
        self.assertNotIn("Set-Cookie", headers)

    def test_lti_7_deep_linking_places_a_deck_in_the_course(self):
        """A teacher's deep linking request: the picker lists their deck, session and report; the
        chosen deck goes back to the platform as an ltiResourceLink in a response the platform
        verifies against Podium's key set; a student's launch of that link joins the deck's session; a
        session and its report placed too, the teacher's launches of them land in the console and
        on the report."""
        before = len(self.platform.deep_links)
        driver = self.driver(820, 1180)
        driver.get(self.platform.course_link(**self.teacher, kind="deep"))
        wait_for(driver, lambda d: "/lti/pick/" in d.current_url, "the picker")
        wait_translated(driver)
        wait_for(driver, lambda d: d.execute_script("return document.getElementById('lti-pick').dataset.state") == "ready",
                 "the picker's lists")
        deck_choice = wait_for(driver, lambda d: visible(d, f'input[value="deck:{self.deck["id"]}"]'), "the deck to pick")
        self.assertTrue(visible(driver, f'input[value="session:{self.session["code"]}"]'))
        self.assertTrue(visible(driver, f'input[value="report:{self.session["code"]}"]'))
        screenshot(driver, "lti-picker")
        self.assertEqual(health_findings(driver), [], "the picker's layout and accessibility")
        # What the eye sees at the choice is the choice's own label, not something over it.
        label = deck_choice.find_element(By.XPATH, "..")
        covering = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            "return arguments[0].contains(e);", label)
        self.assertTrue(covering, "the deck's choice is on top")
        label.click()
        driver.find_element(By.ID, "lti-add").click()
        wait_for(driver, lambda d: visible(d, "#items"), "the platform's page after the deep linking response")
        items = json.loads(text_of(driver, "#items"))
        self.assertEqual(len(self.platform.deep_links), before + 1)
        claims = self.platform.deep_links[-1]["claims"]
        self.assertEqual(claims["iss"], self.module.CLIENT_ID)
        self.assertEqual(claims["aud"], self.platform.issuer)
        self.assertEqual(claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"], self.module.DEPLOYMENT_ID)
        self.assertEqual(claims["https://purl.imsglobal.org/spec/lti/claim/message_type"], "LtiDeepLinkingResponse")
        self.assertEqual(claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"], "opaque-course-data")
        self.assertEqual(items, [{
            "type": "ltiResourceLink", "title": "Optics", "url": SERVER.base + "/api/v1/lti/launch",
            "custom": {"podium_deck": self.deck["id"]},
        }])
        screenshot(driver, "lti-deep-link-returned")
        # The placed link, launched by a student: the deck's live session, with the name.
        final = self.launch_http(user="student-4", roles=LEARNER, name="Grace", custom=items[0]["custom"])["final"]
        self.assertEqual((final[0], final[1]["Location"]), (303, f"/s/{self.session['code']}?name=Grace"))
        # The picker's request is used up.
        picker = driver.execute_script("return location.href")
        self.assertTrue(picker.startswith(self.platform.issuer))

        # A session and its report placed the same way: the teacher's launch of each lands in the
        # session's console and on its report.
        code = self.session["code"]
        for kind, parameter, landing in (("session", "podium_session", f"/present/{code}"),
                                         ("report", "podium_report", f"/report.html?code={code}")):
            driver.get(self.platform.course_link(**self.teacher, kind="deep"))
            wait_for(driver, lambda d: "/lti/pick/" in d.current_url, f"the picker for a {kind}")
            wait_for(driver, lambda d: d.execute_script(
                "return document.getElementById('lti-pick').dataset.state") == "ready", "the picker's lists")
            choice = wait_for(driver, lambda d: visible(d, f'input[value="{kind}:{code}"]'), f"the {kind} to pick")
            choice.find_element(By.XPATH, "..").click()
            driver.find_element(By.ID, "lti-add").click()
            wait_for(driver, lambda d: visible(d, "#items"), f"the platform's page after placing the {kind}")
            placed = json.loads(text_of(driver, "#items"))
            self.assertEqual([item["custom"] for item in placed], [{parameter: code}])
            final = self.launch_http(**self.teacher, custom=placed[0]["custom"])["final"]
            self.assertEqual((final[0], final[1]["Location"]), (303, landing))

    def test_lti_8_the_admin_page_shows_podiums_urls_and_registers_a_platform(self):
        """Channel admin, Courses (LTI): the URLs to paste into the platform, the platform the
        tests registered, and the form registering another (then removed again)."""
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/channel/admin#lti")
        wait_translated(driver)
        launch = wait_for(driver, lambda d: visible(d, "#lti-tool-launchURL"), "the tool's launch URL")
        self.assertEqual(launch.get_attribute("value"), SERVER.base + "/api/v1/lti/launch")
        self.assertEqual(driver.find_element(By.ID, "lti-tool-loginURL").get_attribute("value"), SERVER.base + "/api/v1/lti/login")
        self.assertEqual(driver.find_element(By.ID, "lti-tool-jwksURL").get_attribute("value"), SERVER.base + "/api/v1/lti/jwks")
        wait_for(driver, lambda d: self.platform.issuer in (text_of(d, "#lti-platforms") or ""), "the registered platform")
        values = {
            "name": "Canvas of the school", "issuer": "https://canvas.instructure.com", "clientId": "10000000000001",
            "deploymentIds": "12:abc, 13:def", "authLoginURL": "https://sso.canvaslms.com/api/lti/authorize_redirect",
            "tokenURL": "https://sso.canvaslms.com/login/oauth2/token", "jwksURL": "https://sso.canvaslms.com/api/lti/security/jwks",
        }
        for name, value in values.items():
            field = driver.find_element(By.ID, "lti-field-" + name)
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
            field.send_keys(value)
        screenshot(driver, "lti-admin-form")
        driver.find_element(By.ID, "lti-register-submit").click()
        row = wait_for(driver, lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, "#lti-platforms tbody tr")
                                          if "Canvas of the school" in r.text], "the new platform's row")[0]
        self.assertIn("12:abc, 13:def", row.text)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        screenshot(driver, "lti-admin-platforms")
        row.find_element(By.CSS_SELECTOR, "[data-action=remove]").click()
        driver.switch_to.alert.accept()
        wait_for(driver, lambda d: "Canvas of the school" not in (text_of(d, "#lti-platforms") or ""), "the platform removed")

    def test_lti_9_a_second_teacher_of_the_course_runs_the_session(self):
        """A course's second teacher (their own account, made by their first launch) opens the
        session's link the first teacher placed in the course: the console is theirs to run (its
        controls on screen, the slide they turn reaches a viewer), the grant is in the audit log,
        once; a teacher of another course with the same link gets the console's refusal."""
        code = self.session["code"]
        link = {"podium_session": code}
        # The first teacher's launch of the link places it in the course (as deep linking does).
        final = self.launch_http(**self.teacher, custom=link)["final"]
        self.assertEqual((final[0], final[1]["Location"]), (303, f"/present/{code}"))
        self.assertGreaterEqual(self.deck["pageCount"], 2, "a deck with a slide to turn to")
        # The first teacher prepared a poll in the deck's question bank.
        status, question = SERVER.request(
            "POST", f"/api/v1/decks/{self.deck['id']}/questions",
            {"poll": {"kind": "open", "question": "Which lens bends light more?"}}, token=self.teacher_token)
        self.assertEqual(status, 201, question)

        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Vi")
        colleague = self.driver(1280, 800)
        colleague.get(self.platform.course_link(
            user="teacher-2", roles=INSTRUCTOR, name="Cora Colleague", email="cora@school.example", custom=link))
        wait_for(colleague, lambda d: d.current_url == f"{SERVER.base}/present/{code}", "the session's console")
        wait_translated(colleague)
        wait_for(colleague, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the console to connect as the session's presenter")
        wait_for(colleague, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the slide on the console")
        self.assertIsNone(visible(colleague, "#console-message"), "no refusal over the console")
        self.assertEqual(text_of(colleague, "#join-code"), code)
        self.assertIsNotNone(visible(colleague, "#end-session"))
        turn = wait_for(colleague, lambda d: visible(d, "#controls [data-action=next]"), "the next-slide control")
        self.assertTrue(turn.is_enabled())
        before = int(stage_attr(viewer, "data-page"))
        self.assertLess(before, self.deck["pageCount"], "a slide after the viewer's")
        turn.click()
        wait_for(colleague, lambda d: stage_attr(d, "data-page") == str(before + 1), "the console on the next slide")
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == str(before + 1), "the viewer on the slide the colleague turned to")
        # The deck's prepared poll is theirs to send too, and nothing on the console failed.
        colleague.find_element(By.ID, "tab-polls").click()
        wait_for(colleague, lambda d: "Which lens bends light more?" in (text_of(d, "#pane-polls .bank-list") or ""),
                 "the first teacher's prepared poll in the colleague's Polls tab")
        self.assertEqual(colleague.find_elements(By.CSS_SELECTOR, "#toasts .toast-error"), [], "an error on the console")
        screenshot(colleague, "lti-co-teacher-console")
        colleague.find_element(By.ID, "tab-join").click()
        colleague.find_element(By.CSS_SELECTOR, "#controls [data-action=prev]").click()
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == str(before), "the viewer back on the first teacher's slide")

        # In the audit log, once, however many times the colleague comes back.
        self.assertEqual(self.launch_http(user="teacher-2", roles=INSTRUCTOR, custom=link)["final"][0], 303)
        status, audit = SERVER.api("GET", "/api/v1/audit?limit=100")
        self.assertEqual(status, 200, audit)
        grants = [e for e in audit["entries"] if e["action"] == "lti.cohost_granted"]
        self.assertEqual([e["target"] for e in grants], ["cora@school.example"])
        self.assertIn(f"session {code}, course Physics 101", grants[0]["detail"])

        # A teacher of another course, the same link: the console refuses them, as it refuses
        # anyone who is not the session's host.
        stranger = self.driver(1280, 800)
        stranger.get(self.platform.course_link(
            user="teacher-3", roles=INSTRUCTOR, name="Sam Stranger", course="course-2", custom=link))
        wait_for(stranger, lambda d: d.current_url == f"{SERVER.base}/present/{code}", "the console's address")
        wait_translated(stranger)
        wait_for(stranger, lambda d: "Not your session" in (text_of(d, "#console-message") or ""), "the console's refusal")
        self.assertEqual(stage_attr(viewer, "data-page"), str(before))

    def test_lti_9c_a_second_teacher_starts_a_placed_deck_that_is_not_live(self):
        """The first teacher placed a deck in the course and is away: the second teacher's launch
        of its link opens the library's Go live dialog for it, which says whose it is; Start takes
        them to the console of a session presented by the first teacher (what a viewer's join page
        says), the slide they turn reaches the viewer. A student before the start, and a teacher of
        another course, get nothing."""
        deck = self.upload_deck("Waves")
        link = {"podium_deck": deck["id"]}
        # The first teacher's launch of the link places it in the course (as deep linking does).
        final = self.launch_http(**self.teacher, custom=link)["final"]
        self.assertEqual((final[0], final[1]["Location"]), (303, f"/library?golive={deck['id']}"))
        # Not started: a student finds no lecture; a teacher of another course lands in their library.
        status, _, page = self.launch_http(user="student-9", roles=LEARNER, name="Ada", custom=link)["final"]
        self.assertEqual(status, 404)
        self.assertIn("The lecture has not started yet", page)
        final = self.launch_http(user="teacher-3", roles=INSTRUCTOR, name="Sam Stranger", course="course-2",
                                 custom=link)["final"]
        self.assertEqual((final[0], final[1]["Location"]), (303, "/library"))

        colleague = self.driver(1280, 800)
        colleague.get(self.platform.course_link(
            user="teacher-2", roles=INSTRUCTOR, name="Cora Colleague", email="cora@school.example", custom=link))
        wait_for(colleague, lambda d: visible(d, "#golive-dialog") and "Waves" in (text_of(d, "#golive-dialog") or ""),
                 "the Go live dialog of the first teacher's deck")
        wait_translated(colleague)
        self.assertEqual(colleague.current_url, f"{SERVER.base}/library")
        self.assertIn("A teacher of your course placed this deck in it", text_of(colleague, "#golive-course-deck"))
        screenshot(colleague, "lti-co-teacher-go-live")
        colleague.find_element(By.ID, "golive-start").click()
        wait_for(colleague, lambda d: "/present/" in d.current_url, "the console of the started session")
        code = colleague.current_url.rsplit("/", 1)[1]
        wait_for(colleague, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the console to connect as the session's presenter")
        self.assertIsNone(visible(colleague, "#console-message"), "no refusal over the console")

        # The viewer's join page names the deck's owner as its presenter.
        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_translated(viewer)
        wait_for(viewer, lambda d: "by Tess Teacher" in (text_of(d, "#gate-presenter") or ""),
                 "the join page's presenter")
        self.join_as_viewer(viewer, code, name="Vi")
        turn = wait_for(colleague, lambda d: visible(d, "#controls [data-action=next]"), "the next-slide control")
        before = int(stage_attr(viewer, "data-page"))
        self.assertLess(before, deck["pageCount"], "a slide after the viewer's")
        turn.click()
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == str(before + 1), "the viewer on the slide the colleague turned to")
        self.assertEqual(colleague.find_elements(By.CSS_SELECTOR, "#toasts .toast-error"), [], "an error on the console")

        # Back in their library, the session is the colleague's to return to, as it is its
        # presenter's; the live list says whose it is to everyone else.
        colleague.get(f"{SERVER.base}/library")
        banner = wait_for(colleague, lambda d: visible(d, "#live-banner"), "the library's you're-live banner")
        wait_translated(colleague)
        theirs = colleague.execute_async_script(
            "const done = arguments[0]; fetch('/api/v1/sessions?live=true').then((r) => r.json())"
            ".then((list) => done(list.filter((s) => s.yours).map((s) => s.code)));")
        self.assertEqual(theirs[0], code, "the newest of theirs first")
        # Co-host of this one and, from the course's earlier launches, of the placed session.
        self.assertIn(f"code {code}" if len(theirs) == 1 else f"You have {len(theirs)} live sessions", banner.text)
        self.assertGreater(banner.size["height"], 20, "a banner one can read")
        # One console link per live session of theirs, the newest first, each inside the banner.
        links = banner.find_elements(By.CSS_SELECTOR, "a.btn")
        self.assertEqual([a.get_attribute("href") for a in links], [f"{SERVER.base}/present/{c}" for c in theirs])
        box = banner.rect
        for a in links:
            self.assertTrue(a.is_displayed())
            self.assertLessEqual(a.rect["x"] + a.rect["width"], box["x"] + box["width"] + 1, "a link past the banner")
        if len(theirs) > 1:
            self.assertIn(code, links[0].text)
        # On a phone the links wrap inside the banner; the page stays the phone's width.
        harness.size_driver(colleague, 390, 844)
        wait_for(colleague, lambda d: d.execute_script("return window.innerWidth") == 390, "a 390 px window")
        for a in links:
            self.assertLessEqual(a.rect["x"] + a.rect["width"], 391, "a link past the phone's edge")
        self.assertLessEqual(colleague.execute_script("return document.documentElement.scrollWidth"), 390, "the library wider than a phone")
        screenshot(colleague, "lti-co-teacher-library-live-phone")
        harness.size_driver(colleague, 1280, 800)
        screenshot(colleague, "lti-co-teacher-library-live")
        status, live = SERVER.request("GET", "/api/v1/sessions?live=true", token=self.teacher_token)
        self.assertEqual(status, 200, live)
        self.assertEqual([s["yours"] for s in live if s["code"] == code], [True], "the presenter's own")
        status, live = SERVER.request("GET", "/api/v1/sessions?live=true")
        self.assertEqual([s["yours"] for s in live if s["code"] == code], [False], "signed out: nobody's")

        # The colleague's grant is in the audit log; the session is the first teacher's, who ends it.
        status, audit = SERVER.api("GET", "/api/v1/audit?limit=100")
        self.assertEqual(status, 200, audit)
        self.assertTrue([e for e in audit["entries"] if e["action"] == "lti.cohost_granted"
                         and e["target"] == "cora@school.example" and f"session {code}," in e["detail"]])
        status, ended = SERVER.request("POST", f"/api/v1/sessions/{code}/end", token=self.teacher_token)
        self.assertEqual((status, ended["presenter"]), (200, "Tess Teacher"))

    def test_lti_9b_the_launch_lands_in_the_persons_language(self):
        """The launch's locale (launch_presentation) goes on to the page it lands on: a student's
        join page in German, a teacher's library in French (a regional tag); a language Podium
        lacks falls back to the browser's (English here)."""
        code = self.session["code"]
        student = self.driver(390, 844)
        student.get(self.platform.course_link(
            user="student-7", roles=LEARNER, name="Lena", locale="de", custom={"podium_session": code}))
        wait_for(student, lambda d: d.current_url.startswith(f"{SERVER.base}/s/{code}"), "the session's join page")
        wait_translated(student)
        button = wait_for(student, lambda d: visible(d, "#join-button"), "the join button")
        self.assertEqual(button.text, "Beitreten")
        self.assertEqual(student.execute_script("return document.documentElement.lang"), "de")
        field = visible(student, "#viewer-name")
        self.assertEqual(field.get_attribute("value"), "Lena")
        screenshot(student, "lti-student-join-german")

        teacher = self.driver(1280, 800)
        teacher.get(self.platform.course_link(**self.teacher, locale="fr_CA"))
        wait_for(teacher, lambda d: d.current_url.startswith(f"{SERVER.base}/library"), "the library")
        wait_translated(teacher)
        self.assertEqual(teacher.execute_script("return document.documentElement.lang"), "fr")
        wait_for(teacher, lambda d: "Passer en direct" in (text_of(d, "body") or ""), "the library in French")

        other = self.driver(390, 844)
        other.get(self.platform.course_link(
            user="student-8", roles=LEARNER, name="Min", locale="ko-KR", custom={"podium_session": code}))
        wait_for(other, lambda d: d.current_url.startswith(f"{SERVER.base}/s/{code}"), "the session's join page")
        wait_translated(other)
        self.assertEqual(wait_for(other, lambda d: visible(d, "#join-button"), "the join button").text, "Join")
