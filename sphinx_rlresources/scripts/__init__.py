"""Reading a launch script without running it: what GPUs, engine, backend and batch it asks for.

A leaf: it imports nothing else from the package.  The comparison of a row with its
script lives in :mod:`sphinx_rlresources.core.crosscheck`, which speaks in rows and
diagnostics.
"""
