"""Where bots are tested before they play: an owner's SPRT of a new version against its ladder
version (models, the write paths in :mod:`webui.training.sprt_tests`, the pages)."""
