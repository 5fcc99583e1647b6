#!/usr/bin/python3
"""Browser tests of the channel's places: the list and the map (Leaflet on the offline basemap),
the list sorted by an emulated location, and directions for members only.

Places are made through the API as an admin. A visitor's phone (not signed in, so not a member)
allows geolocation at Brno (Chromium's emulated location), sorts by distance, sees the markers
and the basemap's tiles on the map, and is told how to become a member when it asks for
directions; the admin (a member) gets the geo: and OpenStreetMap links.
Alone:  python3 Tests/Browser/run_browser_tests.py ChannelPlaces
"""

import sys
import urllib.parse

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

PLACES = [
    ("Pražský hrad", 50.0911, 14.4016, "Hradčany, 119 08 Praha 1"),
    ("Špilberk", 49.1946, 16.5994, "Špilberk 210/1, 662 24 Brno"),
    ("The Met", 40.7794, -73.9632, "1000 5th Ave, New York"),
]
BRNO = (49.1951, 16.6068)
SEEDED = {}


def setUpModule():
    if not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def seed():
    """The category and places, made once per server; their ids by name."""
    if SEEDED.get("base") == SERVER.base:
        return SEEDED["ids"]
    status, category = SERVER.api("POST", "/api/v1/channel/pois/categories", {"name": "Sights"})
    assert status == 201, (status, category)
    ids = {}
    for name, lat, lon, address in PLACES:
        status, place = SERVER.api("POST", "/api/v1/channel/pois", {
            "name": name, "latitude": lat, "longitude": lon, "address": address, "categoryId": category["id"],
            "published": True, "phone": "+420 224 372 423", "website": "https://example.org/", "openingHours": "Daily 9–17",
        })
        assert status == 201, (status, place)
        ids[name] = place["id"]
    SEEDED.update(base=SERVER.base, ids=ids)
    return ids


def at_brno(driver):
    """The browser may tell where it is, and it is in Brno."""
    driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": SERVER.base, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {
        "latitude": BRNO[0], "longitude": BRNO[1], "accuracy": 50})


def names(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#places-list .place-name")]


class ChannelPlacesTests(BrowserTest):
    def test_1_map_shows_places_and_list_sorts_by_distance(self):
        seed()
        phone = self.driver(390, 844)
        at_brno(phone)
        phone.get(SERVER.base + "/channel#places")
        wait_for(phone, lambda d: len(names(d)) == 3, "the three places listed")
        self.assertEqual(names(phone), ["Pražský hrad", "Špilberk", "The Met"])  # the admin's order
        phone.find_element(By.CSS_SELECTOR, ".places-near").click()
        wait_for(phone, lambda d: names(d)[:1] == ["Špilberk"], "the nearest place first")
        self.assertEqual(names(phone), ["Špilberk", "Pražský hrad", "The Met"])
        distances = [e.text for e in phone.find_elements(By.CSS_SELECTOR, "#places-list .place-distance")]
        self.assertEqual(len(distances), 3)
        self.assertTrue(distances[0].endswith(" m"), distances)
        screenshot(phone, "channel-places-list-phone")

        # The map tab: a marker per place, and the basemap's tiles with their credit.
        phone.find_element(By.CSS_SELECTOR, ".places-tab[data-view=map]").click()
        wait_for(phone, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#places-map .leaflet-marker-icon")) == 3, "three markers")
        wait_for(phone, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#places-map img.leaflet-tile-loaded")) > 0, "tiles loaded")
        loaded = phone.execute_script(
            "return [...document.querySelectorAll('#places-map img.leaflet-tile-loaded')].filter(i => i.naturalWidth === 256).length")
        self.assertGreater(loaded, 0)
        # Fitted to the places: every marker inside the map's box, and land (not only sea) behind them.
        inside = phone.execute_script("""
            const box = document.getElementById('places-map').getBoundingClientRect();
            return [...document.querySelectorAll('#places-map .leaflet-marker-icon')].every(m => {
              const r = m.getBoundingClientRect();
              return r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom;
            });""")
        self.assertTrue(inside, "a marker is outside the map's view")
        attribution = phone.find_element(By.CSS_SELECTOR, "#places-map .leaflet-control-attribution").text
        self.assertIn("OpenStreetMap", attribution)
        screenshot(phone, "channel-places-map-phone")

        # A marker's popup leads to the place.
        # (At the world's zoom Brno's marker may lie under Prague's: the click goes to it directly.)
        marker = phone.find_element(By.CSS_SELECTOR, "#places-map .leaflet-marker-icon[title='Špilberk']")
        phone.execute_script("arguments[0].click()", marker)
        wait_for(phone, lambda d: visible(d, ".place-popup a"), "the marker's popup")
        phone.find_element(By.CSS_SELECTOR, ".place-popup a").click()
        wait_for(phone, lambda d: visible(d, ".place-title"), "the place's page")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".place-title").text, "Špilberk")

        # A laptop shows the list and the map side by side.
        laptop = self.driver(1280, 800)
        laptop.get(SERVER.base + "/channel#places")
        wait_for(laptop, lambda d: len(names(d)) == 3, "the list on a laptop")
        wait_for(laptop, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#places-map .leaflet-marker-icon")) == 3, "markers on a laptop")
        self.assertTrue(visible(laptop, "#places-list") and visible(laptop, "#places-map"))
        screenshot(laptop, "channel-places-laptop")

    def test_2_directions_are_for_members(self):
        ids = seed()
        castle = ids["Pražský hrad"]
        phone = self.driver(390, 844)
        phone.get(SERVER.base + "/channel#places/" + castle)
        wait_for(phone, lambda d: visible(d, ".place-directions-button"), "the place's page")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".place-facts a[href^='tel:']").get_attribute("href"), "tel:+420224372423")
        phone.find_element(By.CSS_SELECTOR, ".place-directions-button").click()
        wait_for(phone, lambda d: "member" in d.find_element(By.CSS_SELECTOR, ".place-directions").text.lower(), "the membership message")
        self.assertEqual(phone.find_elements(By.CSS_SELECTOR, ".place-directions a[href^='geo:']"), [])
        screenshot(phone, "channel-places-directions-nonmember")

        member = self.driver(390, 844)
        self.sign_in_with_cookie(member)
        member.get(SERVER.base + "/channel#places/" + castle)
        wait_for(member, lambda d: visible(d, ".place-directions-button"), "the place's page, signed in")
        member.find_element(By.CSS_SELECTOR, ".place-directions-button").click()
        wait_for(member, lambda d: visible(d, ".place-geo"), "the directions links")
        geo = member.find_element(By.CSS_SELECTOR, ".place-geo").get_attribute("href")
        osm = member.find_element(By.CSS_SELECTOR, ".place-osm").get_attribute("href")
        self.assertTrue(geo.startswith("geo:50.0911,14.4016?q="), geo)
        self.assertTrue(osm.startswith("https://www.openstreetmap.org/directions?route=%3B50.0911%2C14.4016"), osm)
        self.assertEqual(urllib.parse.urlparse(osm).hostname, "www.openstreetmap.org")
        screenshot(member, "channel-places-directions-member")

    def test_3_admin_places_a_point_on_the_map_reorders_and_archives(self):
        seed()
        laptop = self.driver(1280, 900)
        self.sign_in_with_cookie(laptop)
        laptop.get(SERVER.base + "/channel/admin#places")
        wait_for(laptop, lambda d: visible(d, ".admin-add-place"), "the places table")
        wait_for(laptop, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".admin-place-rows > .admin-row")) >= 3, "the rows")
        laptop.find_element(By.CSS_SELECTOR, ".admin-add-place").click()
        wait_for(laptop, lambda d: visible(d, "#admin-place-map .leaflet-tile-loaded"), "the form's map")
        laptop.find_element(By.NAME, "name").send_keys("Vyšehrad")
        laptop.find_element(By.NAME, "address").send_keys("V Pevnosti 159/5b, Praha 2")
        # A click on the map sets the coordinates (and a pin); typing moves it.
        mapbox = laptop.find_element(By.ID, "admin-place-map")
        laptop.execute_script("""
            const box = arguments[0].getBoundingClientRect();
            const at = {clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true};
            arguments[0].dispatchEvent(new MouseEvent('mousedown', at));
            arguments[0].dispatchEvent(new MouseEvent('mouseup', at));
            arguments[0].dispatchEvent(new MouseEvent('click', at));""", mapbox)
        wait_for(laptop, lambda d: d.find_element(By.NAME, "latitude").get_attribute("value") != "", "coordinates from the click")
        wait_for(laptop, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#admin-place-map .leaflet-marker-icon")) == 1, "the pin")
        latitude = laptop.find_element(By.NAME, "latitude")
        longitude = laptop.find_element(By.NAME, "longitude")
        latitude.clear()
        latitude.send_keys("50.0645")
        longitude.clear()
        longitude.send_keys("14.4181")
        screenshot(laptop, "channel-admin-place-form")
        laptop.find_element(By.CSS_SELECTOR, ".admin-place-form button[type=submit]").click()
        wait_for(laptop, lambda d: any(e.text == "Vyšehrad" for e in d.find_elements(By.CSS_SELECTOR, ".admin-row-title strong")), "the new row")
        status, places = SERVER.api("GET", "/api/v1/channel/pois?search=vysehrad")
        self.assertEqual(status, 200)
        self.assertEqual([(p["name"], p["latitude"], p["longitude"], p["address"]) for p in places],
                         [("Vyšehrad", 50.0645, 14.4181, "V Pevnosti 159/5b, Praha 2")])
        new_id = places[0]["id"]

        # The keyboard moves it to the top: focus its handle, Home.
        row = laptop.find_element(By.CSS_SELECTOR, f".admin-place-rows > .admin-row[data-id='{new_id}']")
        row.find_element(By.CSS_SELECTOR, ".reorder-handle").send_keys(Keys.HOME)
        wait_for(laptop, lambda d: SERVER.api("GET", "/api/v1/channel/pois")[1][0]["id"] == new_id, "the new order saved")
        screenshot(laptop, "channel-admin-places")

        # Dragging a row's handle (the browser's drag events, as a mouse sends them) over the top
        # of the first row puts it first.
        last = laptop.find_elements(By.CSS_SELECTOR, ".admin-place-rows > .admin-row")[-1]
        last_id = last.get_attribute("data-id")
        laptop.execute_script("""
            const [handle, target] = arguments;
            const data = new DataTransfer();
            const box = target.getBoundingClientRect();
            handle.dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: data}));
            target.dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: data,
              clientX: box.left + 10, clientY: box.top + 2}));
            target.dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: data}));
            handle.dispatchEvent(new DragEvent('dragend', {bubbles: true, dataTransfer: data}));""",
            last.find_element(By.CSS_SELECTOR, ".reorder-handle"),
            laptop.find_elements(By.CSS_SELECTOR, ".admin-place-rows > .admin-row")[0])
        wait_for(laptop, lambda d: SERVER.api("GET", "/api/v1/channel/pois")[1][0]["id"] == last_id, "the dragged order saved")

        # Delete archives; the archive restores.
        row = laptop.find_element(By.CSS_SELECTOR, f".admin-place-rows > .admin-row[data-id='{new_id}']")
        [b for b in row.find_elements(By.TAG_NAME, "button") if b.text == "Delete"][0].click()
        wait_for(laptop, lambda d: not d.find_elements(By.CSS_SELECTOR, f".admin-place-rows > .admin-row[data-id='{new_id}']"), "the row archived")
        self.assertEqual(SERVER.request("GET", f"/api/v1/channel/pois/{new_id}")[0], 404)
        laptop.find_element(By.CSS_SELECTOR, ".admin-places .admin-filter-button[data-status=archived]").click()
        wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, f".admin-place-rows > .admin-row[data-id='{new_id}']"), "the archive")
        row = laptop.find_element(By.CSS_SELECTOR, f".admin-place-rows > .admin-row[data-id='{new_id}']")
        [b for b in row.find_elements(By.TAG_NAME, "button") if b.text == "Restore"][0].click()
        wait_for(laptop, lambda d: SERVER.request("GET", f"/api/v1/channel/pois/{new_id}")[0] == 200, "restored")
