#!/usr/bin/python3
"""HTTPS served by podium itself (#43): Chromium opens the library at an https:// address and the
page is a secure context (what the microphone, a second screen's placement and the clipboard
need), loaded over HTTPS with no mixed content and no errors in the console.

The server gets a certificate for localhost and 127.0.0.1 from a CA made here with openssl;
Chromium trusts that certificate's key only (`--ignore-certificate-errors-spki-list`, which
Chromium honours with the profile directory chromedriver gives it), not every certificate.
Its own server, on port 26170 (plus its HTTP port 26171, which redirects).
Alone:  python3 Tests/Browser/run_browser_tests.py https
"""

import base64
import hashlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
PORT = 26170
HTTP_PORT = 26171


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def make_certificate(directory):
    """A CA and a certificate it signed for localhost and 127.0.0.1; the certificate's SPKI hash."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Podium Browser Test CA", cwd=directory)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=directory)
    with open(os.path.join(directory, "server.ext"), "w") as ext:
        ext.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7",
            "-days", "2", "-extfile", "server.ext", "-out", "server.pem", cwd=directory)
    public = subprocess.run(["openssl", "x509", "-in", "server.pem", "-pubkey", "-noout"], cwd=directory,
                            check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public, check=True,
                         capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


class HTTPSTests(BrowserTest):
    def test_library_over_https_is_a_secure_context(self):
        directory = tempfile.mkdtemp(prefix="podium-https-")
        process = None
        driver = None
        try:
            spki = make_certificate(directory)
            password = "pw-https-test"
            env = dict(os.environ, PODIUM_ADMIN_PASSWORD=password, PODIUM_METRICS_ADDRESS="off", PODIUM_NO_DISCOVERY="1")
            env.pop("PODIUM_PUBLIC_URL", None)
            log = open(harness.ARTIFACTS / "browser-https-server.log", "wb")
            process = subprocess.Popen(
                [str(harness.REPO / os.environ.get("PODIUM_BIN", ".build/debug/podium")),
                 "serve", "--host", "127.0.0.1", "--port", str(PORT), "--http-port", str(HTTP_PORT),
                 "--data-dir", os.path.join(directory, "data"),
                 "--tls-cert", os.path.join(directory, "server.pem"), "--tls-key", os.path.join(directory, "server.key")],
                cwd=str(harness.REPO), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            context = ssl.create_default_context(cafile=os.path.join(directory, "ca.pem"))
            base = f"https://localhost:{PORT}"
            deadline = time.monotonic() + 60
            while True:
                self.assertIsNone(process.poll(), "the HTTPS server exited; see browser-https-server.log")
                try:
                    with urllib.request.urlopen(base + "/healthz", timeout=2, context=context) as response:
                        if response.status == 200:
                            break
                except (urllib.error.URLError, ConnectionError, OSError):
                    pass
                self.assertLess(time.monotonic(), deadline, "no answer over HTTPS within 60 s")
                time.sleep(0.2)
            request = urllib.request.Request(
                base + "/api/v1/auth/login", method="POST", headers={"Content-Type": "application/json"},
                data=json.dumps({"email": "admin", "password": password}).encode())
            with urllib.request.urlopen(request, context=context) as response:
                token = json.load(response)["token"]

            options = webdriver.ChromeOptions()
            options.binary_location = harness.CHROMIUM
            for argument in (
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,800",
                "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions", "--mute-audio",
                "--lang=en-US", f"--ignore-certificate-errors-spki-list={spki}",
            ):
                options.add_argument(argument)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            driver = webdriver.Chrome(service=Service(harness.CHROMEDRIVER), options=options)
            # Plain HTTP is sent to HTTPS.
            driver.get(f"http://localhost:{HTTP_PORT}/healthz")
            harness.wait_for(driver, lambda d: d.current_url.startswith(base), "the HTTP port redirects to HTTPS")
            driver.add_cookie({"name": "podium_auth", "value": token, "path": "/", "secure": True})
            driver.get(base + "/library")
            harness.wait_for(driver, lambda d: d.find_element(By.ID, "user-name").text.strip() != "",
                             "the library shows who is signed in")
            # The demo deck's thumbnail, a blob: read from its file into TLS records (no sendfile).
            harness.wait_for(driver, lambda d: d.execute_script(
                "const images = [...document.querySelectorAll('img')].filter(i => i.src.includes('/blobs/'));"
                "return images.length > 0 && images.every(i => i.complete && i.naturalWidth > 0)"),
                "the deck's thumbnail is shown")
            self.assertTrue(driver.execute_script("return window.isSecureContext"), "the page is a secure context")
            self.assertEqual(driver.execute_script("return location.protocol"), "https:")
            # Every resource came over HTTPS, and nothing went wrong on the way.
            insecure = driver.execute_script(
                "return performance.getEntriesByType('resource').map(e => e.name)"
                ".filter(n => !n.startsWith('https:') && !n.startsWith('data:') && !n.startsWith('blob:'))")
            self.assertEqual(insecure, [], "resources loaded without TLS")
            harness.screenshot(driver, "https-library")
            logs = driver.get_log("browser")
            problems = [e["message"] for e in logs
                        if e["level"] == "SEVERE" or "Mixed Content" in e["message"] or "not secure" in e["message"]]
            self.assertEqual(problems, [], "console errors over HTTPS")
        finally:
            if driver is not None:
                driver.quit()
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)
            shutil.rmtree(directory, ignore_errors=True)
