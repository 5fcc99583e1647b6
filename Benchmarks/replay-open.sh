#!/usr/bin/env bash
# Opening the replay of a session of ~5,000 events (issue #44): see replay-open.py.
exec /usr/bin/python3 "$(dirname "$0")/replay-open.py" "$@"
