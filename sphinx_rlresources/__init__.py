"""Hardware-resource tables for RL training, drawn from checked YAML data.

The package is six rooms (see ``docs/architecture.rst``): :mod:`.safe` reads untrusted
YAML and text, :mod:`.scripts` reads launch scripts without running them,
:mod:`.estimator` bounds a run's memory, :mod:`.core` reads and checks the data without
Sphinx, :mod:`.sphinxext` draws the data in a Sphinx build, and :mod:`.cli` is the
``rlresources`` command.  Importing the package imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

#: Bump when what the extension keeps on the build environment changes shape (3: the store's
#: digests of what each size shows; rows that say their markers once per page; 4: the state
#: moved into the ``rlresources`` domain).
ENV_VERSION = 4


def setup(app: Sphinx) -> ExtensionMetadata:
    """Register the Sphinx layer (``extensions = ["sphinx_rlresources"]``)."""
    from sphinx_rlresources.sphinxext import register

    register(app)
    return {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
