"""``arena bench hosts``: worker hosts in network namespaces (:mod:`workers.bench.hostlab`,
the scenarios in :mod:`workers.bench.hosts`, the site host's side in
:mod:`workers.bench.hosts_admin`), joined to ``arena bench`` as an entry point of
``scopa_arena.bench`` (see :mod:`arena.plugins`).
"""
