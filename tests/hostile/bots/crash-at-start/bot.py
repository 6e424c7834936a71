"""A bot that dies before it listens."""

import sys

print("crash-at-start: giving up", file=sys.stderr)
sys.exit(3)
