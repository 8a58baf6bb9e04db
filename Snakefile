# LSVI replication pipeline: data -> one papermill run per notebook -> aggregated report.
#
#   snakemake --cores 2 --rerun-incomplete --keep-going                     # smoke scale
#   snakemake --cores 2 --rerun-incomplete --keep-going --config scale=cpu  # or paper
#
# (`make all SCALE=cpu` runs exactly that.) Every setting that depends on the scale lives in
# config/scales.yaml; it is validated here, before any job runs (src/lsvi/pipeline/config.py).
# Outputs, for scale S:
#   data/processed/<dataset>.npz                        rule data (one job per dataset)
#   results/S/<stem>/executed.ipynb, claims.csv          rule nb_<stem> (one per notebook)
#   results/S/<stem>/benchmark.tsv                       its wall time and peak memory (Snakemake)
#   results/S/<stem>/fingerprint.json                    its inputs' sha256, taken before the run (lsvi.pipeline.fingerprint)
#   figures/S/<figure>.pdf/.png                          written by the notebooks
#   results/S/claims.csv, results/S/REPLICATION.md      rule aggregate (python -m lsvi.pipeline.report)
#   results/S/fingerprints.json                          the same rule: every notebook's fingerprint (committed)
#   results/S/site/index.html (+ notebooks/, figures/)  rule site (python -m lsvi.pipeline.site; `make report`)
# Each notebook rule's threads and resources (mem_mb, runtime in minutes, gpu) come from
# config/resources.yaml (src/lsvi/pipeline/resources.py): a cluster profile (profiles/slurm,
# `make all SCALE=paper PROFILE=slurm`) submits one job per notebook with those requests.
# Each notebook runs on `threads` cores of its own (python -m lsvi.pipeline.cores: pinned, so its thread count, hence
# its arithmetic, is the same on any machine, and XLA's idle worker in one notebook does not take the other's core).
# A notebook is executed by papermill into a temporary file that is renamed only on
# success; a failed run is kept as results/S/<stem>/failed.ipynb, Snakemake removes its
# other outputs, and the report lists the notebook as FAILED (`onerror` below).

import os
import shlex
import sys
from pathlib import Path

import yaml

# On a GPU, JAX would preallocate 75 % of the device memory in every notebook kernel and in every
# fresh process it starts for Table 1's timings; off for the whole pipeline unless set by the caller.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

ROOT = Path(workflow.basedir).resolve()
sys.path.insert(0, str(ROOT / "src"))  # so the Snakefile also works before `pip install -e .`
# Every job (papermill, the notebook kernels it starts, the data builder) imports this checkout's lsvi, whatever
# editable install the environment holds: two clones sharing one .venv would otherwise run the other clone's code
# while fingerprinting this one's files.
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])
from lsvi.pipeline.config import ConfigError, notebook_dependencies, parse_config, unlisted_notebooks  # noqa: E402
from lsvi.pipeline.paths import DATA_DIR  # noqa: E402
from lsvi.pipeline.resources import ResourcesError, check_complete, load_resources  # noqa: E402


configfile: "config/scales.yaml"


try:
    CFG = parse_config(dict(config), ROOT)
except ConfigError as err:
    raise WorkflowError(f"ConfigError in config/scales.yaml (or --config): {err}") from None

SCALE = CFG.scale
try:
    RES = load_resources(ROOT / "config" / "resources.yaml")
    check_complete(RES, CFG, [SCALE])
except ResourcesError as err:
    raise WorkflowError(f"ResourcesError: {err}") from None
for _stem in unlisted_notebooks(CFG):
    print(f"WARNING: notebooks/{_stem}.ipynb is not listed in config/scales.yaml: the pipeline skips it "
          "(add an entry under 'notebooks:')", file=sys.stderr)
PY = sys.executable  # the interpreter running Snakemake, i.e. the project's environment
RESULTS = f"results/{SCALE}"


def library_inputs(stem):
    """The library files notebook ``stem`` imports, transitively (`notebook_dependencies`):
    editing one reruns exactly the notebooks that use it. A change of parameters reruns a
    notebook through Snakemake's params trigger."""
    return [str(p.relative_to(ROOT)) for p in notebook_dependencies(ROOT / "notebooks" / f"{stem}.ipynb", ROOT / "src")]



def papermill_args(params):
    """Parameters as papermill options: -r for strings, -p for booleans and non-negative
    integers, -y (YAML) for anything else (floats, negative numbers, lists, mappings)."""
    args = []
    for name, value in params.items():
        if isinstance(value, str):
            args += ["-r", name, value]
        elif isinstance(value, bool) or (isinstance(value, int) and value >= 0):
            args += ["-p", name, str(value)]
        else:
            args += ["-y", yaml.safe_dump({name: value}, default_flow_style=True, width=10**6).strip()]
    return " ".join(shlex.quote(a) for a in args)


wildcard_constraints:
    dataset="[a-z0-9_]+",


localrules:
    all,
    aggregate,
    site,


rule all:
    default_target: True
    input:
        f"{RESULTS}/claims.csv",
        f"{RESULTS}/REPLICATION.md",
        f"{RESULTS}/site/index.html",


onstart:
    print(f"LSVI pipeline: scale {SCALE!r} ({CFG.scales[SCALE]}); notebooks: {', '.join(CFG.notebooks)}")


onerror:
    # With --keep-going the other notebooks still ran; write the report anyway so that
    # the failed / missing notebooks are listed in it instead of silently omitted.
    try:
        from lsvi.pipeline.report import write_report

        n = write_report(RESULTS, ROOT / "config" / "scales.yaml", SCALE)
        try:  # the site too, so that a reader sees the partial run as the complete one
            from lsvi.pipeline.site import build_site

            build_site(RESULTS, ROOT / "config" / "scales.yaml", SCALE)
        except Exception as e:  # noqa: BLE001
            print(f"(could not build the site: {e})", file=sys.stderr)
        print(
            f"\nPipeline incomplete: {n['failed']} notebook(s) FAILED, {n['missing']} MISSING; "
            f"partial report in {RESULTS}/REPLICATION.md and {RESULTS}/site/index.html. Fix and rerun the same command "
            "(only unfinished notebooks are redone).",
            file=sys.stderr,
        )
    except Exception as e:  # noqa: BLE001
        print(f"(could not write the partial report: {e})", file=sys.stderr)


# Datasets, built from pinned pip packages (src/lsvi/data/datasets.py). One job per
# dataset; they share data/processed/provenance.json, which the module updates under a lock.
# Seconds each: they run first (priority above every notebook's), so that the long notebooks that read them
# (24_lr_tables, 44) are not held back behind short notebooks that need no data (Snakemake does not pass a
# notebook's priority on to the jobs it waits for).
rule data:
    input:
        "src/lsvi/data/datasets.py",
    output:
        f"{DATA_DIR}/{{dataset}}.npz",
    priority: 1000
    params:
        py=PY,
    shell:
        "{params.py} -m lsvi.data.datasets --out {DATA_DIR} {wildcards.dataset}"


# One rule per notebook listed in config/scales.yaml.
for _stem, _nb in CFG.notebooks.items():
    _out = CFG.outputs(_stem)
    _res = RES.of(_stem, SCALE)

    rule:
        name:
            f"nb_{_stem}"
        input:
            notebook=f"notebooks/{_stem}.ipynb",
            lib=library_inputs(_stem),
            data=[f"{DATA_DIR}/{d}.npz" for d in _nb.data],
        output:
            executed=_out["executed"],
            claims=_out["claims"],
            fingerprint=f"{RESULTS}/{_stem}/fingerprint.json",
            figures=_out["figures"],
            tables=_out["tables"],
        benchmark:
            f"{RESULTS}/{_stem}/benchmark.tsv"
        threads: _res["threads"]
        # longest first (its declared runtime at this scale): on 2 cores the longest notebook then starts at once
        # instead of last, which shortens the whole run by up to its length
        priority: int(_res["runtime"])
        resources:
            mem_mb=_res["mem_mb"],
            runtime=_res["runtime"],
            gpu=_res["gpu"],
        params:
            py=PY,
            root=str(ROOT),
            args=papermill_args(CFG.params(_stem)),
            dir=f"{RESULTS}/{_stem}",
            tmp=f"{RESULTS}/{_stem}/executed.tmp.ipynb",
            failed=f"{RESULTS}/{_stem}/failed.ipynb",
        shell:
            """
            rm -f {params.failed:q} {params.tmp:q} {params.dir:q}/carried_over.txt
            {params.py} -m lsvi.pipeline.fingerprint write {params.dir:q} --name fingerprint.tmp.json >/dev/null
            if {params.py} -m lsvi.pipeline.cores {threads} -- \\
                   {params.py} -m papermill {input.notebook:q} {params.tmp:q} --cwd {params.root:q} \\
                   --kernel python3 --progress-bar {params.args}; then
                mv -f {params.tmp:q} {output.executed:q}
                mv -f {params.dir:q}/fingerprint.tmp.json {output.fingerprint:q}
            else
                mv -f {params.tmp:q} {params.failed:q} 2>/dev/null || true
                echo "FAILED: {input.notebook}; partially executed copy: {params.failed}" >&2
                exit 1
            fi
            """


rule aggregate:
    input:
        claims=[CFG.outputs(s)["claims"] for s in CFG.notebooks],
        executed=[CFG.outputs(s)["executed"] for s in CFG.notebooks],
        fingerprints=[f"{RESULTS}/{s}/fingerprint.json" for s in CFG.notebooks],
        code=["src/lsvi/pipeline/report.py", "src/lsvi/pipeline/claims.py", "config/scales.yaml"],
    output:
        csv=f"{RESULTS}/claims.csv",
        md=f"{RESULTS}/REPLICATION.md",
        fingerprints=f"{RESULTS}/fingerprints.json",
    params:
        py=PY,
    shell:
        "{params.py} -m lsvi.pipeline.report {RESULTS} --config config/scales.yaml"


# The replication site (static HTML, opened as a file): the aggregated claims, the executed
# notebooks rendered by nbconvert, the figures, and the other scales' committed claims.csv for the
# side-by-side status columns. `make report` runs this rule alone (--allowed-rules site), on
# whatever results and figures exist.
rule site:
    input:
        csv=f"{RESULTS}/claims.csv",
        md=f"{RESULTS}/REPLICATION.md",
        other=[f"results/{s}/claims.csv" for s in CFG.scales if s != SCALE and (ROOT / "results" / s / "claims.csv").is_file()],
        code=["src/lsvi/pipeline/site.py", "src/lsvi/pipeline/templates/site_index.html.j2", "src/lsvi/pipeline/templates/notebook.html.j2"],
    output:
        f"{RESULTS}/site/index.html",
    params:
        py=PY,
    shell:
        "{params.py} -m lsvi.pipeline.site {RESULTS} --config config/scales.yaml"
