#!/usr/bin/env bash
# Storyboard stroke latency between two browsers (issue #19): see storyboard-latency.py.
exec /usr/bin/python3 "$(dirname "$0")/storyboard-latency.py" "$@"
