"""The Django project of Scopa Arena: the data layer (``webui.league``) and the site.

Configuration comes from environment variables only (see :mod:`webui.settings`).
"""
