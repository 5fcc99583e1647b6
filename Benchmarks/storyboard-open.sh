#!/usr/bin/env bash
# Opening a storyboard of 500 shots in the browser (issue #19): see storyboard-open.py.
exec /usr/bin/python3 "$(dirname "$0")/storyboard-open.py" "$@"
