# The two commands of the README: `make run` and `make test`.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build test-swift test-browser format clean

## Run Podium on http://localhost:$(PORT) with its data in ./data.
run:
	scripts/setup
	$(SWIFT) build -c release --product podium
	.build/release/podium serve --port $(PORT)

## Run every test: Swift (core, media, server in-process) and the browser tests.
test:
	scripts/setup --test
	$(MAKE) test-swift test-browser

# One build of every target: the tests, and the podium binary that the crash-recovery tests and
# then the browser tests run (test-browser's own build finds nothing left to do).
test-swift:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-browser:
	$(SWIFT) build --product podium
	/usr/bin/python3 Tests/Browser/run_browser_tests.py

build:
	$(SWIFT) build --product podium

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

clean:
	rm -rf .build
