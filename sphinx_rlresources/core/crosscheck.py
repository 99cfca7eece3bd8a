"""Check a row against what its script runs, whatever the framework.

Readers size their clusters from the rows, so a row that claims 32 GPUs for a script
that asks for 8, or LoRA for a script that trains the full model, is worse than no row.
Each claim is compared with the script's :class:`~sphinx_rlresources.scripts.run.Run`
(read by the framework's adapter, :mod:`sphinx_rlresources.scripts.frameworks`), so a
row that contradicts a modern verl, OpenRLHF or slime script gets the same findings as
one that contradicts a legacy verl script.  A value the reader cannot know is never
reported.  Every finding is located at the row's field in the data file (that is what a
contributor edits) and names the script line it disagrees with.  No Sphinx import: the
build and ``rlresources lint`` share this.
"""

from __future__ import annotations

import re

from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.safe.models import loaded_model
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.frameworks import vocabulary_of
from sphinx_rlresources.scripts.frameworks.vocabulary import family, task_key
from sphinx_rlresources.scripts.records import SCRIPT_COMMENT
from sphinx_rlresources.scripts.run import Found, Origin, Problem, Requirement, Run

_LORA_PARTS = frozenset({"lora", "qlora"})

_VERSION_SUFFIX = re.compile(r"[0-9.]+$")


def task_parts(task: str) -> tuple[str, bool]:
    """``GRPO-LoRA`` -> (``grpo``, True): the algorithm and whether only adapters train."""
    parts = task.lower().split("-")
    lora = any(part in _LORA_PARTS for part in parts)
    return "-".join(part for part in parts if part not in _LORA_PARTS), lora


MAX_COUNT = 1_000_000
"""The most GPUs or nodes a count from the row's env may say (far beyond any run): more is a typo."""

CHECKED = (
    ("gpus", "gpus"),
    ("engine", "infer"),
    ("train_backend", "train"),
    ("lora_rank", "task"),
    ("algorithm", "task"),
    ("model", "model"),
    ("train_batch_size", "max_batch"),
)
"""The script settings the checks compare, and the row field each is compared with."""
#: A Hub id as scripts write it (Qwen/Qwen2.5-7B): its last part is the model's own name.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
#: A size a folder's name states (1.5B, 16b, 500M), not a version (2.5-math).
_SIZE = re.compile(r"(\d+(?:\.\d+)?)[bm](?![a-z])")


def _local_folder_agrees(path: str, last: str, model: str) -> bool:
    """Whether a local checkpoint folder cannot be told from ``model``: its name is its owner's choice.

    SkyRL's examples train ``$HOME/qwen2.5-math`` and ``$HOME/moonlight16b`` (NovaSky-AI/SkyRL
    examples/train/algorithms/dapo/, megatron/): such a name is held against the row only by the
    sizes it states, so ``/root/Qwen2.5-1.5B-Instruct`` still disagrees with a 7B row.
    """
    if _HUB_ID.fullmatch(path):
        return False
    return not set(_SIZE.findall(last.lower())) - set(_SIZE.findall(model.lower()))


_USES = re.compile(r"uses \$([A-Za-z_][A-Za-z0-9_]*)")


def known(found: Found[object]) -> bool:
    """A value the script settles (written, defaulted by it, given by the row's env, or its framework's own default)."""
    return found.value is not None and found.origin not in (Origin.UNKNOWN, Origin.RUNTIME)


def stated(found: Found[object]) -> bool:
    """A value the script (or the row's env) states itself, not one its framework fills in."""
    return known(found) and found.origin is not Origin.FRAMEWORK_DEFAULT


def cross_check(
    entry: Entry, run: Run, script_display: str, requires: tuple[Requirement, ...] = ()
) -> list[Diagnostic]:
    """Every disagreement between the row and what the script runs.

    ``script_display`` is how messages name the script (its path from the root);
    ``requires`` are the engine versions the repository's metadata demands
    (:mod:`.requirements`), checked after the script's own.
    """
    check = _Check(entry, run, script_display)
    found = check.run()
    if not any(d.subtype is Subtype.ENGINE_VERSION for d in found):
        check.versions(requires)
    return check.found


class _Check:
    def __init__(self, entry: Entry, run: Run, script: str) -> None:
        self.entry = entry
        self.r = run
        self.script = script
        self.found: list[Diagnostic] = []
        self.env_broke_gpus = False
        """Whether the row's env made a GPU count no number (said once, not compared as well)."""
        # A value the sanity check already blames (model.path=model_path) is not compared too.
        self.blamed = {problem.key for problem in run.problems if problem.key and problem.severity == "error"}

    def run(self) -> list[Diagnostic]:
        for problem in self.r.problems:
            where = f"{self.script}:{problem.line}" if problem.line > 0 else self.script
            uses = _USES.search(problem.message) if problem.kind == "unset" else None
            if uses is not None and uses.group(1) == uses.group(1).upper():
                self.runtime(problem, where, uses.group(1))  # an environment variable's name: given at run time
                continue
            self.report("script", Subtype.SCRIPT_SANITY, f"{where}: {problem.message}", problem.severity)
        if self.r.launch_line or self.r.framework:
            self.env_counts()
            self.gpus()
            self.infer()
            self.train()
            self.lora()
            self.algorithm()
            self.model()
            self.batch()
            self.records()
            self.versions(self.r.requires)
        return self.found

    # -- helpers -----------------------------------------------------------------------
    def report(self, field: str, subtype: Subtype, message: str, severity: str = "error") -> None:
        line, column = self.entry.at(field)
        json_path = f"{self.entry.source.json_path}.{field}"
        self.found.append(
            Diagnostic(self.entry.source.path, line, column, subtype, message, severity=severity, json_path=json_path)
        )

    def at(self, found: Found[object]) -> str:
        """``script:line`` of a setting (or of the launch, for a default)."""
        line = found.line or self.r.launch_line
        return f"{found.file or self.script}:{line}" if line else found.file or self.script  # a recipe has no launch

    def blamed_for(self, found: Found[object]) -> bool:
        """Whether a sanity problem already blames this setting (it is then not compared too)."""
        return any(found.written.startswith(key + "=") for key in self.blamed if key)

    def clear(self, found: Found[object]) -> bool:
        """Whether a setting may be compared: known, and not already blamed as a mistake."""
        return known(found) and not self.blamed_for(found)

    def decides(self, key: str) -> str | None:
        """The row field whose check a script setting decides (None: no checked value depends on it)."""
        if not key:
            return None
        pattern = re.compile(rf"(?<![\w.]){re.escape(key)}(?![\w.])")
        for setting, field in CHECKED:
            if pattern.search(getattr(self.r, setting).written):
                return ("model_id" if self.entry.model_id else "model") if field == "model" else field
        return None

    def runtime(self, problem: Problem, where: str, var: str) -> None:
        """An environment variable (upper case) the script reads without setting it or a default: given at run time.

        NeMo-RL's launchers pass checkpoints so (``policy.model_name=$NRL_..._CKPT``): that is no
        mistake, and a finding only when the value decides something a row states and the row's
        ``env:`` does not give it (with it, the variable is set and no problem is made).  A lower-case
        name (``$data_path``) is the script's own variable by convention, never set: still a mistake.
        """
        field = self.decides(problem.key)
        if field is None:
            return
        self.report(
            field,
            Subtype.SCRIPT_SANITY,
            f"{where}: {problem.key} is given at run time by ${var}, which the script reads without setting it or "
            f"giving a default, so the row's {field} cannot be checked against it; give it in the row's env "
            f"(env: {{{var}: ...}}) with the value the row was measured with",
            "warning",
        )

    # -- the checks ----------------------------------------------------------------------
    def env_counts(self) -> None:
        """A count of GPUs or nodes that the row's env makes text, NaN, a fraction, huge or not positive.

        Left alone it would only be unknown, and the GPU check would say nothing: the row's
        own data broke it, so the finding is at the row's env, with the fix.
        """
        roles = self.r.roles
        counts = [("nodes", self.r.nodes), ("gpus_per_node", self.r.gpus_per_node)]
        counts += [("nodes", r.nodes) for r in roles] + [("gpus_per_node", r.gpus_per_node) for r in roles]
        totals = [("gpus", found) for found in [self.r.gpus, *(r.gpus for r in roles)]]
        said: set[str] = set()
        for name, found in counts + totals:
            if name == "gpus" and said:
                break  # a total made of counts already reported is not said again
            if found.origin is not Origin.ENV or _is_count(found.value) or found.written in said:
                continue
            said.add(found.written)
            self.report(
                "env",
                Subtype.SCRIPT_GPUS,
                f"the row's env makes {self.at(found)} {_w(found)}, which is not a count of {_noun(name)}: it must "
                "be a whole number from 1 up; fix the value in env (until then the GPUs are not checked)",
            )
        self.env_broke_gpus = bool(said)

    def gpus(self) -> None:
        gpus = self.r.gpus
        if self.env_broke_gpus or not self.clear(gpus) or gpus.value == self.entry.gpus:
            return
        self.report(
            "gpus",
            Subtype.SCRIPT_GPUS,
            f"row says gpus {self.entry.gpus} but {self.at(gpus)} runs {gpus.written} = {gpus.value} GPUs"
            f"{_because(gpus)}; fix the row or the script",
        )

    def infer(self) -> None:
        engine = self.r.engine
        if not stated(engine) or not self.clear(engine):
            return
        name = str(engine.value)
        row = _VERSION_SUFFIX.sub("", self.entry.infer.lower()) or self.entry.infer.lower()
        if row in (name, name.split("_", 1)[0]):
            return
        self.report(
            "infer",
            Subtype.SCRIPT_INFER,
            f"row says infer '{self.entry.infer}' but {self.at(engine)} runs {_w(engine)}"
            f"{_because(engine)}; fix the row or the script",
        )

    def train(self) -> None:
        want = family(self.entry.train)
        got = self.r.train_backend
        if want is None or not self.clear(got) or want == family(str(got.value)):
            return
        words = vocabulary_of(self.r.framework)
        advice = words and (words.to_backend.get(want) or words.from_backend.get(str(got.value)))
        hint = advice or f"make it train with {self.entry.train}"
        self.report(
            "train",
            Subtype.SCRIPT_TRAIN,
            f"row says train '{self.entry.train}' but {self.at(got)} runs {got.value}: {_w(got)}; fix the row, "
            f"or {hint}",
        )

    def lora(self) -> None:
        rank = self.r.lora_rank
        if not known(rank):
            return
        _algorithm, says_lora = task_parts(self.entry.task)
        task = self.entry.task
        value = int(rank.value or 0)
        key = _key(rank) or "the LoRA rank"
        if says_lora and value <= 0:
            what = f"{self.at(rank)} sets {_w(rank)}" if stated(rank) else f"{self.at(rank)} sets no {key}"
            self.report(
                "task",
                Subtype.SCRIPT_LORA,
                f"task '{task}' says LoRA but {what}, so it trains the full model; drop '-LoRA' from the task, or "
                f"set {key} in the script",
            )
        elif not says_lora and value > 0 and stated(rank):
            self.report(
                "task",
                Subtype.SCRIPT_LORA,
                f"task '{task}' does not say LoRA but {self.at(rank)} sets {_w(rank)} (LoRA); "
                f"name the task '{task}-LoRA', or remove {key} from the script",
            )

    def algorithm(self) -> None:
        """The task against the algorithm the script runs, in its framework's vocabulary (unknown: not compared)."""
        found = self.r.algorithm
        words = vocabulary_of(self.r.framework)
        if words is None or not stated(found) or not self.clear(found):
            return
        if words.runs(str(found.value), self.entry.task) is not False:
            return
        key = _key(found)
        means = " or ".join(f"{key}={value}" if key else str(value) for value in words.means(self.entry.task))
        runs = words.label(str(found.value), self.r.dynamic_sampling.value)
        self.report(
            "task",
            Subtype.SCRIPT_ALGORITHM,
            f"task '{self.entry.task}' "
            + (f"means {means}" if means else f"is not what {self.r.framework} runs")
            + f" but {self.at(found)} runs {_w(found)}"
            + (f" ({runs})" if runs and task_key(runs) != task_key(str(found.value)) else "")
            + "; fix the task or the script",
        )

    def model(self) -> None:
        found = self.r.model
        if found.line == 0 or self.blamed_for(found):
            return
        loaded = loaded_model(found.value, found.tail)
        if loaded is None:
            return  # the last part is not wholly known: $MODEL_DIR, ${PREFIX}-7B
        path = loaded.rstrip("/")
        last = path.rsplit("/", 1)[-1]
        if not last:
            return
        model_id = self.entry.model_id
        if model_id:
            want = model_id.lower()
            got = path.lower()
            if got == want or got.endswith("/" + want) or last.lower() == want.rsplit("/", 1)[-1]:
                return
            if _local_folder_agrees(path, last, model_id):
                return
            self.report(
                "model_id",
                Subtype.SCRIPT_MODEL,
                f"row says model_id '{model_id}' but {self.at(found)} trains {_w(found)}; fix model_id or the script",
            )
            return
        if self.entry.model.lower() in last.lower() or _local_folder_agrees(path, last, self.entry.model):
            return
        self.report(
            "model",
            Subtype.SCRIPT_MODEL,
            f"row says model '{self.entry.model}' but {self.at(found)} trains {_w(found)}, whose "
            f"last part '{one_line(last, 60)}' does not contain '{self.entry.model}'; fix the row (or give it a "
            "model_id) or the script",
        )

    def records(self) -> None:
        _records(self)

    def versions(self, requires: tuple[Requirement, ...]) -> None:
        """The row's engine version against what the script (or the framework) requires of that engine."""
        row_engine = _VERSION_SUFFIX.sub("", self.entry.infer.lower()) or self.entry.infer.lower()
        version = self.entry.infer_version
        if not version:
            return
        for need in requires:
            if need.engine == row_engine and older(version, need.version):
                file = self.script if need.source == SCRIPT_COMMENT else need.source.split(" at ", 1)[0]
                at = f" at {need.source.split(' at ', 1)[1]}" if " at " in need.source else ""
                self.report(
                    "infer_version",
                    Subtype.ENGINE_VERSION,
                    f"row says {self.entry.infer} {version} but {file}:{need.line}{at} requires "
                    f"{need.engine} >= {need.version}; run it again with a supported version and update the row",
                )
                return

    def batch(self) -> None:
        found = self.r.train_batch_size
        if not stated(found) or not self.clear(found) or self.entry.max_batch is None:
            return
        if found.value == self.entry.max_batch:
            return
        self.report(
            "max_batch",
            Subtype.SCRIPT_BATCH,
            f"row says max_batch {self.entry.max_batch} but {self.at(found)} runs {_w(found)}"
            f"{_because(found)}; fix the row (the largest batch that ran) or the script",
        )


def _because(found: Found[object]) -> str:
    """Why the script's value is what it is, when not simply written there."""
    if found.origin is Origin.SCRIPT_DEFAULT:
        return " (the default the script documents; a row that ran with another value says so in env)"
    if found.origin is Origin.ENV:
        return " (with the row's env)"
    if found.origin is Origin.FRAMEWORK_DEFAULT:
        return " (the framework's default)"
    return ""


def _records(check: _Check) -> None:
    """The row's MaxBatch against the batch search the script records beside the value it scales."""
    entry, run = check.entry, check.r
    batch = run.train_batch_size.value if stated(run.train_batch_size) else None
    for log in run.batch_logs:
        if not batch or not log.value or batch % log.value:
            continue  # the logged value is not what the batch is made of: nothing to relate
        factor = batch // log.value
        where = f"{check.script}:{log.line}"
        ran = [value for value, ok in log.attempts if ok]
        failed = {value for value, ok in log.attempts if not ok}
        if entry.max_batch is not None and entry.max_batch % factor == 0 and entry.max_batch // factor in failed:
            per = entry.max_batch // factor
            best = max((v for v in ran if v < per), default=None)
            advice = f"; the largest that ran is {best} ({best * factor})" if best else ""
            check.report(
                "max_batch",
                Subtype.SCRIPT_RECORD,
                f"row says max_batch {entry.max_batch} ({log.variable}={per} × {factor}) but the script's own record "
                f"at {where} marks {per} as failed{advice}: use a value that ran",
            )
        elif ran and log.value < max(ran):
            check.report(
                "max_batch",
                Subtype.SCRIPT_RECORD,
                f"{where} sets {log.variable}={log.value} but its own record says {max(ran)} ran; the script (and "
                f"the row's max_batch) stop short of the largest batch that ran ({max(ran) * factor}): raise them, or "
                "say in the comment why not",
                severity="warning",
            )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_COUNT


def _noun(name: str) -> str:
    return "nodes" if name == "nodes" else "GPUs"


def _w(found: Found[object]) -> str:
    """How the script writes a setting, as a message quotes it: one line, at most 120 characters."""
    return one_line(found.written, 120)


def _key(found: Found[object]) -> str:
    """The key a setting is written with (``algorithm.adv_estimator``), when it is a ``key=value``."""
    key = found.written.split("=", 1)[0] if "=" in found.written else ""
    return key if key and " " not in key else ""


def version_key(text: str) -> tuple[int, ...] | None:
    """``0.8.3`` -> (0, 8, 3); None for anything that is not a plain dotted version."""
    parts = text.strip().lstrip("v").split(".")
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() and len(p) < 6 for p in parts) else None


def older(version: str, than: str) -> bool:
    """Whether ``version`` is older than ``than`` (missing trailing parts count as 0)."""
    mine, theirs = version_key(version), version_key(than)
    if mine is None or theirs is None:
        return False
    width = max(len(mine), len(theirs))
    return mine + (0,) * (width - len(mine)) < theirs + (0,) * (width - len(theirs))
