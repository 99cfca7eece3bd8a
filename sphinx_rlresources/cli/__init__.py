"""The ``rlresources`` command: :mod:`.main` parses, one module per command runs.

Nothing here imports Sphinx, which keeps the command fast enough for a pre-commit hook.
"""
