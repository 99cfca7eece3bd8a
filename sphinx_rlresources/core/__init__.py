"""The core: reading, validating, checking and querying the data, with no Sphinx and no docutils.

Both front ends -- the Sphinx layer and the command line -- call this package and
nothing else for a rule about the data, so they cannot disagree.
"""
