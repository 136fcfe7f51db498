"""Built-in ext_pillar modules (the ``pillar`` module family of the loader).

Each module defines ``ext_pillar(minion_id, pillar, *args, **kwargs)`` and
returns only the keys it adds, as Salt's documented contract says.
"""
