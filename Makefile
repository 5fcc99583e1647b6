# The two commands of the README: `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build test-swift test-browser test-cluster format clean

## Run Podium on http://localhost:$(PORT) with its data in ./data.
run:
	scripts/setup
	$(SWIFT) build -c release --product podium
	.build/release/podium serve --port $(PORT)

## Run every test: Swift (core, media, server in-process) and the browser tests.
test:
	scripts/setup --test
	$(MAKE) test-swift test-browser test-cluster

# One build of every target: the tests, and the podium binary that the crash-recovery tests and
# then the browser tests run (test-browser's own build finds nothing left to do).
#
# At most four tests at a time: every server test runs a real server, and with all of them at
# once on two cores, requests waited past the test client's 20 s timeout (77 s for the whole run
# unbounded, 84 s with four, 161 s one by one).
test-swift:
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 $(SWIFT) test --skip-build

test-browser:
	$(SWIFT) build --product podium
	/usr/bin/python3 Tests/Browser/run_browser_tests.py

# Three nodes on PostgreSQL behind HAProxy, killed and cut off while viewers watch (under a minute).
test-cluster:
	$(SWIFT) build --product podium
	/usr/bin/python3 Tests/Cluster/fault_test.py

build:
	$(SWIFT) build --product podium

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

clean:
	rm -rf .build
