"""``hearth-manage`` commands: each module defines ``register(subparsers)``."""
