"""A bot that never starts: it sleeps where it should serve (its start's deadline ends it)."""

import time

time.sleep(3600)
