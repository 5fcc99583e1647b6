# The two commands of the README: `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test check test-one lint build test-js test-swift test-browser test-cluster format clean

## Run Podium on http://localhost:$(PORT) with its data in ./data.
run:
	scripts/setup-beside -- $(SWIFT) build -c release --product podium
	.build/release/podium serve --port $(PORT)

## Run every test: Swift (core, media, server in-process, on SQLite and PostgreSQL), the browser
## tests and the cluster fault test.
#
# The Debian and PyPI packages are installed while the build runs (scripts/setup-beside): building
# needs none of them.
#
# Run alone, each test-* target builds what it runs first; under `make test`, which has built it
# all, they skip that: a build with nothing left to do still took 15-27 s (loading the package,
# compiling its plugins), three times.
#
# The parts run one after the other. Run side by side (the browser tests beside the Swift tests
# and then the cluster tests), a fresh clone's run was no quicker (19 min 27 s against 18 min 58 s,
# the two cores already full) and its tests slower (the Swift tests 472 s against 166 s, some
# past their bounds), so that was left. Every port the Swift and cluster tests fix is below
# Linux's ephemeral range (32768-60999), where servers that tests start on port 0 land.
test:
	scripts/setup-beside --test -- $(SWIFT) build --build-tests $(TEST_BUILD_FLAGS)
	$(MAKE) test-js test-swift test-browser test-cluster BUILD_TESTS=true BUILD_PODIUM=true

# One build of every target (BUILD_TESTS): the tests, and the podium binary that the
# crash-recovery tests and then the browser and cluster tests run.
#
# At most four tests at a time: every server test runs a real server, and with all of them at
# once on two cores, requests waited past the test client's 20 s timeout (77 s for the whole run
# unbounded, 84 s with four, 161 s one by one).
#
# The store tests and a set of server suites run on SQLite and on PostgreSQL: a throwaway server
# (scripts/postgres) in a temporary directory, on PODIUM_TEST_POSTGRES_PORT, stopped and removed
# whatever the tests' outcome. With PODIUM_TEST_DATABASE_URL already set, that server is used.
PODIUM_TEST_POSTGRES_PORT ?= 25432

# The tests' builds carry no debug information: 9 % less CPU for a fresh build (940 s against
# 857 s of CPU, measured on a fresh clone), and a test's failure still names its file and line.
# Nor do they index C: SwiftPM's index-while-building (on by default in debug builds) makes clang
# index every C file too, the two BoringSSLs above all, which nothing here reads. On Linux the
# test discovery reads the Swift modules' index (`--disable-index-store` alone fails the test
# build with "index store path does not exist"), so swiftc is still given the store SwiftPM looks
# in. (A fresh build on a busy machine: 829 s of CPU; with no index at all, 767 s up to the test
# discovery, which then fails.) Every build of `make test` uses the same flags, so the browser
# and cluster tests find the binary the Swift tests' build made.
INDEX_STORE = $(CURDIR)/.build/$(shell uname -m)-unknown-linux-gnu/debug/index/store
TEST_BUILD_FLAGS ?= -debug-info-format none \
  $(if $(filter Linux,$(shell uname -s)),--disable-index-store -Xswiftc -index-store-path -Xswiftc $(INDEX_STORE))
BUILD_TESTS ?= $(SWIFT) build --build-tests $(TEST_BUILD_FLAGS)
BUILD_PODIUM ?= $(SWIFT) build --product podium $(TEST_BUILD_FLAGS)

# The whole Swift run is killed at SWIFT_TEST_TIME_LIMIT (it takes 3-6 minutes). A test past its
# own time limit is only reported: Swift Testing cannot end a task that waits for something that
# never comes, and then the run never ends. Killed, it fails here, saying so, instead of running
# until whatever runs `make test` gives up.
SWIFT_TEST_TIME_LIMIT ?= 30m
SWIFT_TEST = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 \
  scripts/time-limit $(SWIFT_TEST_TIME_LIMIT) $(SWIFT) test --skip-build $(TEST_BUILD_FLAGS)

test-swift:
	$(BUILD_TESTS)
	@if [ -n "$$PODIUM_TEST_DATABASE_URL" ]; then \
	  $(SWIFT_TEST); \
	else \
	  dir=$$(mktemp -d -t podium-postgres.XXXXXX); \
	  trap 'scripts/postgres stop "$$dir"; rm -rf "$$dir"' EXIT; \
	  url=$$(scripts/postgres start "$$dir" $(PODIUM_TEST_POSTGRES_PORT)) || exit 1; \
	  export PODIUM_TEST_DATABASE_URL="$$url"; \
	  $(SWIFT_TEST); \
	fi

# The browser client's pure modules (the live reducer and socket, the storyboard model, stroke
# outlines) under Node's test runner, against the fixtures the Swift tests write: no build, no
# browser, a few seconds (Tests/JS).
test-js:
	node --test Tests/JS/*.test.mjs

test-browser:
	$(BUILD_PODIUM)
	/usr/bin/python3 Tests/Browser/run_browser_tests.py

# Three nodes on PostgreSQL behind HAProxy, killed and cut off while viewers watch; two storyboard
# editors on two nodes through the same faults; PostgreSQL stopped and frozen under a presenter
# (about 70 s together: 16, 21 and 33 s).
test-cluster:
	$(BUILD_PODIUM)
	/usr/bin/python3 Tests/Cluster/fault_test.py
	/usr/bin/python3 Tests/Cluster/storyboard_fault_test.py
	/usr/bin/python3 Tests/Cluster/outage_test.py

## The quick loop before a commit, a couple of minutes on a warm build: the format lint, the core
## tests, the store tests (on SQLite; on PostgreSQL too when PODIUM_TEST_DATABASE_URL is set) and
## the pure JavaScript tests. `make test` runs all of it and the rest.
#
# The store tests are the suites named *StoreTests and MigrationTests (Tests/PodiumServerTests).
CHECK_TESTS ?= ^PodiumCoreTests\.|StoreTests|^PodiumServerTests\.MigrationTests
check: lint test-js
	$(BUILD_TESTS)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 $(SWIFT) test --skip-build $(TEST_BUILD_FLAGS) --filter '$(CHECK_TESTS)'

## Some Swift tests alone, on the build `make test` made (the same flags: nothing rebuilt):
## `make test-one FILTER=StoreTests`.
test-one:
	$(BUILD_TESTS)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 $(SWIFT) test --skip-build $(TEST_BUILD_FLAGS) --filter '$(FILTER)'

## The Swift code as `make format` leaves it (.swift-format); fails on any warning (CI runs it).
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Benchmarks Package.swift

build:
	$(SWIFT) build --product podium

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

clean:
	rm -rf .build
