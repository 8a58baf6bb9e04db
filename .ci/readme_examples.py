"""Run the README's Python examples (each code block after a line ``<!-- ... example ... -->``) in this environment,
then check that no module of the experiment stack was imported: `make check-install` runs it in an environment where
only the library (`pip install .`) is installed, so an example that needed the experiment stack fails there."""
import re
import sys
from pathlib import Path

EXPERIMENT_STACK = ("pandas", "matplotlib", "pymc", "blackjax", "tensorflow", "snakemake", "papermill", "gmmvi", "seaborn")

text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
blocks = re.findall(r"<!-- [^>]*example[^>]*-->\s*```python\n(.*?)```", text, re.S)
if not blocks:
    sys.exit("README.md has no marked Python example")
for i, code in enumerate(blocks, 1):
    print(f"--- README example {i} ---\n{code}", flush=True)
    exec(compile(code, f"README example {i}", "exec"), {"__name__": f"readme_example_{i}"})  # noqa: S102

def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "_", dist).lower()


def library_closure(dist: str = "lsvi-replication") -> set:
    """The library's distribution and every distribution its own (non-extra) requirements pull in, transitively,
    as normalised names. A module of the experiment stack that one of them needs (arviz imports pandas and
    matplotlib) is part of the library's installation, not of the experiment stack."""
    from importlib import metadata

    seen, todo = set(), [dist]
    while todo:
        name = todo.pop()
        if _name(name) in seen:
            continue
        seen.add(_name(name))
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [re.match(r"[A-Za-z0-9_.-]+", r)[0] for r in reqs if "extra ==" not in r.partition(";")[2]]
    return seen


closure = library_closure()
loaded = sorted(m for m in EXPERIMENT_STACK if m in sys.modules and _name(m) not in closure)
if loaded:
    sys.exit(f"the README examples imported modules of the experiment stack: {loaded}")
print(f"{len(blocks)} README example(s) ran with the library's dependencies only")
