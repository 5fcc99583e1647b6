#!/usr/bin/env bash
# The pointer side log's size per hour of recording (issue #44): see replay-side-log.py.
exec /usr/bin/python3 "$(dirname "$0")/replay-side-log.py" "$@"
