"""Reading and showing untrusted text: the bottom room, which imports nothing else from the package.

Data files, launch scripts, recipe configs and the repositories they sit in come from
strangers.  What every other room needs to read or quote them safely lives here once:
:mod:`.yamlsafe` (YAML as nodes with lines and columns, no object construction,
bounded) and :mod:`.text` (which characters a value may hold, and the one function that
shows a name or value in a message).
"""
