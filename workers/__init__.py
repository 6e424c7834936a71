"""Celery workers of the arena: the app (:mod:`workers.celery_app`, the league's queue with the
tasks included) and the tasks (:mod:`workers.tasks`, :mod:`workers.ladder`, :mod:`workers.play`).
The top of the platform: nothing imports it; ``arena worker`` runs it.
"""
