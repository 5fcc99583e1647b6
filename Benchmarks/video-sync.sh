#!/usr/bin/env bash
# The video sync benchmark (issue #18): see video-sync.py for what it measures and its options.
exec python3 "$(dirname "$0")/video-sync.py" "$@"
