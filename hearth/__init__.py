"""Hearth: declarative resource orchestration in the style of OpenStack Heat."""

import warnings

__version__ = "0.1.0"

# eventlet announces its own deprecation on import; Hearth uses it behind the
# scheduler's seam on purpose (see docs/architecture.rst), so users need not see it.
warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
