"""The checks on a script's file name: the repository's naming rule, and what the name says against the row.

The rule is a setting (:func:`sphinx_rlresources.core.naming.naming_rule`): the seed
page's ``[model]_[task]_[gpunums]_[device]_[train]_[infer].sh`` by default, verl's
current ``run_<model>_<backend>.sh``, NeMo-RL's ``<algo>-<model>-<N>n<G>g[-variant].yaml``
or a pattern of ``{fields}``.  Only the fields the rule names are compared with the
row; where the script itself settles a field, the advice points toward what it runs.
"""

from __future__ import annotations

import re

from sphinx_rlresources.core import crosscheck, naming
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.core.naming import NamingRule
from sphinx_rlresources.estimator.devices import canonical
from sphinx_rlresources.safe.models import loaded_model, model_key
from sphinx_rlresources.safe.sizes import billions_in_name
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.frameworks import name_says_task
from sphinx_rlresources.scripts.frameworks.vocabulary import family
from sphinx_rlresources.scripts.run import Run


def row_diagnostic(entry: Entry, field: str, subtype: Subtype, message: str) -> Diagnostic:
    """A finding located at one field of a row (its line, column and JSON path): the checks' one way to make one."""
    line, column = entry.at(field)
    return Diagnostic(entry.source.path, line, column, subtype, message, json_path=f"{entry.source.json_path}.{field}")


def check_naming(entry: Entry, run: Run | None, rule: NamingRule) -> list[Diagnostic]:
    """The file name follows the rule and what it names agrees with the row and with what the script trains."""
    found = check_seed(entry, run) if rule.name == "seed" else check_rule(entry, run, rule)
    named = rule.parse(entry.script_name)
    if named is not None:
        found += check_model(entry, run, named.get("model"))
    found += check_size(entry, named.get("model") if named else None)
    found += check_model_id(entry)
    return found


def check_model_id(entry: Entry) -> list[Diagnostic]:
    """The row's ``model`` against its own ``model_id``: one names what the other loads.

    Both are reduced to what identifies a model (:func:`model_key`: ``Qwen/Qwen2.5-7B-Instruct``
    -> ``qwen257b``); one containing the other agrees (``Llama-3.1-8B`` and
    ``meta-llama/Meta-Llama-3.1-8B-Instruct``), anything else is a finding.
    """
    if not entry.model_id:
        return []
    said, loads = model_key(entry.model), model_key(entry.model_id)
    if not said or not loads or said in loads or loads in said:
        return []
    return [
        row_diagnostic(
            entry,
            "model_id",
            Subtype.MODEL_ID,
            f"row says model '{one_line(entry.model, 60)}' but its model_id '{one_line(entry.model_id, 120)}' is "
            "another model; fix model (the name the tables show) or model_id (the checkpoint it was measured with)",
        )
    ]


def _script_runs(run: Run | None, name: str) -> str | None:
    """What the script itself settles for a field of its name (None: it does not say)."""
    if run is None:
        return None
    found = {"gpunums": run.gpus, "infer": run.engine, "train": run.train_backend}.get(name)
    if found is None or not crosscheck.known(found):
        return None
    return str(found.value)


def check_seed(entry: Entry, settings: Run | None = None) -> list[Diagnostic]:
    """The file name follows the rule and agrees with the row's values.

    Where the script itself settles a field (``settings``: its GPUs, engine, backend),
    the advice points toward what the script runs, as the cross-check's does: the row
    and the name are both measured against the script, never the script against them.
    """
    filename = entry.script_name
    parsed, problem = naming.parse(filename)
    if parsed is None:
        want = _wanted(entry, filename)
        return [
            row_diagnostic(
                entry,
                "script",
                Subtype.NAMING,
                f"{problem}; name it by the rule {naming.RULE}, e.g. '{want.filename}'",
            )
        ]
    row = {
        "task": entry.task,
        "gpunums": str(entry.gpus),
        "device": entry.device,
        "train": entry.train,
        "infer": entry.infer,
    }
    got = {
        "task": parsed.task,
        "gpunums": str(parsed.gpus),
        "device": parsed.device,
        "train": parsed.train,
        "infer": parsed.infer,
    }
    field_of = {"task": "task", "gpunums": "gpus", "device": "device", "train": "train", "infer": "infer"}
    found: list[Diagnostic] = []
    differ = [(name, value) for name, value in row.items() if value.lower() != got[name]]
    if not differ:
        return found  # most rows: the name needs no advice, so none is made
    want = _wanted(entry, filename)
    want_named = naming.ScriptName(parsed.model, want.task, want.gpus, want.device, want.train, want.infer)
    for name, value in differ:
        runs = _script_runs(settings, name)
        if name == "device" and canonical(value) is None and canonical(got[name]) is not None:
            # 'H10O' is no device: renaming the script after a typo would spread it
            advice = f"'{value}' is no device the project knows and '{got[name]}' is: fix the row"
        elif runs is None:
            advice = f"fix the row, or rename the script to '{want_named.filename}'"
        elif runs == got[name]:
            advice = f"the script runs {name} '{runs}' as its name says: fix the row"
        elif runs == value.lower():
            advice = (
                f"the script runs {field_of[name]} '{runs}' as the row says: "
                f"rename the script to '{want_named.filename}'"
            )
        else:
            toward = dict(got, **{name: runs})
            renamed = naming.ScriptName(
                parsed.model, toward["task"], int(toward["gpunums"]), toward["device"], toward["train"], toward["infer"]
            )
            advice = f"the script runs {name} '{runs}': fix the row, and rename the script to '{renamed.filename}'"
        found.append(
            row_diagnostic(
                entry,
                field_of[name],
                Subtype.NAMING,
                f"script name '{filename}' says {name} '{got[name]}' but the row says "
                f"{field_of[name]} '{value}'; {advice}",
            )
        )
    return found


def _wanted(entry: Entry, filename: str) -> naming.ScriptName:
    """The name the row's values call for, keeping the model part the script's name has."""
    return naming.expected(
        naming.model_field(filename, entry.model), entry.task, entry.gpus, entry.device, entry.train, entry.infer
    )


#: A rule's field -> the row field it is compared with.
ROW_FIELDS = {"model": "model", "task": "task", "gpus": "gpus", "device": "device", "train": "train", "infer": "infer"}
_ALNUM = re.compile(r"[^a-z0-9]+")


def _norm(text: str) -> str:
    return _ALNUM.sub("", text.lower())


def _agrees(field: str, named: str, entry: Entry) -> bool:
    """Whether what the name says of ``field`` is what the row says (in the name's own spelling)."""
    if field == "model":
        got = _norm(named)
        return any(got in _norm(want) or _norm(want) in got for want in (entry.model, entry.model_id or "") if want)
    if field == "task":
        return name_says_task(named, entry.task) is not False
    if field == "gpus":
        return named.isdigit() and int(named) == entry.gpus
    if field == "train":
        want = family(entry.train) or entry.train.lower()
        return (family(named) or named.lower()) == want
    if field == "infer":
        return _norm(named) == _norm(re.sub(r"[0-9.]+$", "", entry.infer.lower()) or entry.infer)
    return _norm(named) == _norm(getattr(entry, ROW_FIELDS[field]))


def check_rule(entry: Entry, run: Run | None, rule: NamingRule) -> list[Diagnostic]:
    """A preset or pattern other than the seed's: the name follows it, and each field it names agrees."""
    filename = entry.script_name
    problem = rule.problem(filename)
    if problem is not None:
        return [row_diagnostic(entry, "script", Subtype.NAMING, f"{problem}; name it by the rule {rule.shown}")]
    named = rule.parse(filename) or {}
    found = []
    for field, value in named.items():
        if field not in ROW_FIELDS or _agrees(field, value, entry):
            continue
        row_field = ROW_FIELDS[field]
        runs = _script_runs(run, "gpunums" if field == "gpus" else field)
        if runs is not None and _agrees(field, runs, entry):
            advice = f"the script runs {row_field} '{runs}' as the row says: rename the script"
        elif runs is not None and runs == value.lower():
            advice = f"the script runs {row_field} '{runs}' as its name says: fix the row"
        else:
            advice = "fix the row, or rename the script"
        found.append(
            row_diagnostic(
                entry,
                row_field,
                Subtype.NAMING,
                f"script name '{filename}' says {field} '{value}' but the row says {row_field} "
                f"'{getattr(entry, row_field)}'; {advice}",
            )
        )
    return found


def check_model(entry: Entry, run: Run | None, named: str | None) -> list[Diagnostic]:
    """The model a script's name says against the checkpoint it loads (``qwen2-7b_…`` loading Qwen2.5-7B)."""
    if run is None or not named:
        return []
    found = run.model
    path = loaded_model(found.value, found.tail)
    if not path or found.line == 0:
        return []
    if any(p.severity == "error" and p.key and found.written.startswith(p.key + "=") for p in run.problems):
        return []  # a mistake already reported there (model.path=model_path): not compared too
    loaded, said = model_key(path), model_key(named)
    if not loaded or not said or said in loaded or loaded in said:
        return []
    where = f"{found.file or entry.script}:{found.line}"
    return [
        row_diagnostic(
            entry,
            "script",
            Subtype.NAMING,
            f"script name '{entry.script_name}' says model '{named}' but {where} trains "
            f"{one_line(path, 120)}; name the script after the model it trains (or load the model it names)",
        )
    ]


def _size_of(text: str) -> str | None:
    found = billions_in_name(text)
    return found[-1] if found else None


def check_size(entry: Entry, named_model: str | None) -> list[Diagnostic]:
    """The size the script's folder and name say against the row's size section (``70b/qwen2-72b_…`` under 70B)."""
    section = entry.size.lower()
    parts = entry.script.split("/")
    folder = parts[-2].lower() if len(parts) > 1 else ""
    found = []
    stem = entry.source.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()  # a size label the file's name gives
    if billions_in_name(folder) == [folder] and folder not in (section, stem):
        found.append(
            row_diagnostic(
                entry,
                "script",
                Subtype.NAMING,
                f"script '{entry.script}' lives in {folder}/ but the row is in the {entry.size} section; move the row "
                f"to {folder.upper()}'s data file, or the script to a {section}/ folder",
            )
        )
    said = _size_of(named_model or "")
    # A section groups sizes (70B holds 72B models); it misleads only when the row hides the size too.
    if said and said != section and folder in (section, "") and _size_of(entry.model) != said:
        where = f"its folder ({folder}/) and " if folder else ""
        found.append(
            Diagnostic(
                entry.source.path,
                *entry.at("script"),
                Subtype.NAMING,
                f"script name '{entry.script_name}' says {said.upper()}, but {where}the row's section say "
                f"{entry.size}, and the row's model '{entry.model}' does not say {said.upper()} either: a reader "
                f"looking for {said.upper()} does not find it; name the model with its size",
                severity="warning",
                json_path=f"{entry.source.json_path}.script",
            )
        )
    return found
