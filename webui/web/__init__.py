"""The site of Scopa Arena: pages, the JSON API and its OpenAPI text, forms, the replay viewer.

It reads what the data layer (:mod:`webui.league`) and the workers wrote; it never plays a match
itself, it only enqueues tasks by name.
"""
