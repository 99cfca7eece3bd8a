"""The released artefacts work on their own: a wheel installed away from the checkout.

The wheel and the sdist are built from the checkout (``python -m build``, no network:
the build backend comes from the test environment).  The wheel is installed into a
fresh virtual environment that sees the test environment's dependencies (Sphinx,
PyYAML, jsonschema) but not the checkout, then its ``rlresources`` command and a
Sphinx build run from there, so a schema, template, static asset or catalog missing
from the wheel fails here rather than for a user.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, TESTS, unbroken

pytestmark = pytest.mark.slow

PACKAGE = REPO / "sphinx_rlresources"


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``make dist`` builds, the way docs/getting-started.rst tells a user to build the wheel.

    ``BIN`` is this environment's, and ``STAMP=`` keeps make from re-creating ``.venv``.
    """
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = tmp_path_factory.mktemp("dist")
    bin_dir = Path(sys.executable).parent
    result = _run("make", "--no-print-directory", "dist", f"BIN={bin_dir}", "STAMP=", f"DIST={out}", cwd=REPO)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return out


def test_make_dist_builds_the_wheel_the_install_page_names(dist: Path) -> None:
    page = (REPO / "docs" / "getting-started.rst").read_text(encoding="utf-8")
    (named,) = re.findall(r"\$ pip install dist/(\S+\.whl)", page)
    assert sorted(p.name for p in dist.iterdir()) == sorted([named, named.split("-py3")[0] + ".tar.gz"])


def _shipped_package_files() -> set[str]:
    """Every file of the package in the checkout that a user needs (not caches)."""
    names = set()
    for path in PACKAGE.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            names.add(path.relative_to(REPO).as_posix())
    return names


def test_wheel_holds_the_package_data(dist: Path) -> None:
    (wheel,) = dist.glob("sphinx_rlresources-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "sphinx_rlresources/py.typed",
        "sphinx_rlresources/schema/rlresources.schema.json",
        "sphinx_rlresources/locale/sphinx_rlresources.pot",
        "sphinx_rlresources/locale/de/LC_MESSAGES/sphinx_rlresources.mo",
    ):
        assert needed in names, needed
    assert any(n.startswith("sphinx_rlresources/sphinxext/static/") for n in names)
    assert _shipped_package_files() <= names, "files of the package left out of the wheel"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "rlresources=sphinx_rlresources.cli.main:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_sdist_holds_the_sources_tests_and_docs(dist: Path) -> None:
    (sdist,) = dist.glob("sphinx_rlresources-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for needed in (
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "docs/conf.py",
        "tests/conftest.py",
        "data/70b.yaml",
        ".ci/matrix",
        ".readthedocs.yaml",
        ".pre-commit-config.yaml",
    ):
        assert needed in names, needed
    assert not any(name.startswith(("docs/_build/", ".venv", "benchmarks/_work/")) for name in names)


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; the dependencies come from this environment."""
    target = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
    python = target / "bin" / "python"
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=target)
    purelib = Path(site.stdout.strip())
    # the dependencies, not the checkout: only the test environment's site-packages
    (purelib / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    (wheel,) = dist.glob("sphinx_rlresources-*.whl")
    result = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel,
        cwd=target,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    return target


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def test_the_installed_package_is_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    result = _run(
        installed / "bin" / "python", "-c", "import sphinx_rlresources as p; print(p.__file__)",
        cwd=tmp_path, env=_clean_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(installed)


def test_installed_cli_lints_a_project(installed: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(TESTS / "roots" / "test-builders", project)
    cli = installed / "bin" / "rlresources"
    version = _run(cli, "--version", cwd=project, env=_clean_env())
    page = (REPO / "docs" / "getting-started.rst").read_text(encoding="utf-8")
    (shown,) = re.findall(r"\$ rlresources --version\n\s+(.*)\n", page)
    assert (version.returncode, version.stdout.strip()) == (0, shown)
    schema = _run(cli, "schema", cwd=project, env=_clean_env())
    assert schema.returncode == 0 and '"$schema"' in schema.stdout
    lint = _run(cli, "lint", "--data", "data", "--root", ".", cwd=project, env=_clean_env())
    assert lint.returncode == 0, lint.stdout + lint.stderr
    # a broken file is reported with its location, from the installed package data (the schema)
    (project / "data" / "7b.yaml").write_text("size: 7B\nentries:\n  - tag: NOPE\n", encoding="utf-8")
    broken = _run(cli, "lint", "--data", "data", "--root", ".", cwd=project, env=_clean_env())
    assert broken.returncode == 1
    assert "data/7b.yaml:3:" in broken.stdout


def test_installed_extension_builds_docs(installed: Path, tmp_path: Path) -> None:
    project = tmp_path / "docs"
    shutil.copytree(TESTS / "roots" / "test-builders", project)
    out = tmp_path / "html"
    result = _run(
        installed / "bin" / "python", "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", ".", out,
        cwd=project, env=_clean_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    html = unbroken((out / "index.html").read_text(encoding="utf-8"))
    assert 'class="rlresources-table' in html and "Qwen2.5-72B" in html
    de = tmp_path / "html-de"
    result = _run(
        installed / "bin" / "python", "-m", "sphinx", "-W", "-q", "-D", "language=de", "-b", "html", ".", de,
        cwd=project, env=_clean_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "<p>Modell</p>" in (de / "index.html").read_text(encoding="utf-8")


def test_pip_installs_straight_from_a_checkout(tmp_path: Path) -> None:
    """``pip install ./sphinx-rlresources``, the first command of docs/getting-started.rst."""
    target = tmp_path / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
    python = target / "bin" / "python"
    site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=target)
    (Path(site.stdout.strip()) / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    checkout = tmp_path / "sphinx-rlresources"
    skipped = shutil.ignore_patterns(".venv*", "_build", "_work", ".git", "__pycache__", "dist")
    shutil.copytree(REPO, checkout, ignore=skipped)
    result = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--no-build-isolation",
        "--quiet", "./sphinx-rlresources", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    version = _run(target / "bin" / "rlresources", "--version", cwd=tmp_path, env=_clean_env())
    assert (version.returncode, version.stdout.strip()) == (0, "rlresources 0.1.0")
