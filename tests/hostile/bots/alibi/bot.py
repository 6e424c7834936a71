"""A bot that fails its start and blames the sandbox: what bubblewrap prints when it fails."""

import sys

print("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", file=sys.stderr)
sys.exit(1)
