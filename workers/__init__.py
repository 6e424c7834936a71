"""Celery workers of the arena: the app (:mod:`workers.celery_app`), the tasks
(:mod:`workers.tasks`) and local worker processes for the embedded default (:mod:`workers.local`).
"""
