"""The estimator: a lower bound of per-GPU and host memory for a colocated RL run, phase by phase.

No Sphinx, no docutils, no torch: arithmetic over a model's shape
(:mod:`.architectures`), a device table (:mod:`.devices`) and a run's settings
(:mod:`.memory`).  It answers the question the hardware pages exist for -- how much
hardware a run needs before anyone runs it -- and lets the checks refuse a row that
cannot have run (``rlresources.implausible``).  docs/estimator.rst gives the formulas,
their sources and the validation.
"""
