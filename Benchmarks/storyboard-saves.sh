#!/usr/bin/env bash
# Storyboard confirmed-save latency, five editors at 20 strokes/s (issue #19): see storyboard-saves.py.
# --store postgres runs it on a throwaway PostgreSQL on port 55497.
exec /usr/bin/python3 "$(dirname "$0")/storyboard-saves.py" "$@"
