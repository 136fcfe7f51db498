"""stackctl commands, one module per subject; each defines ``register(subparsers)``."""
