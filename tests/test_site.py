"""The replication site (src/lsvi/pipeline/site.py): built from the committed smoke report into a
temporary directory, checked as HTML and, in headless Chromium, as a reader's browser shows it.

The site under test: ``results/smoke/claims.csv`` and ``REPLICATION.md`` as committed; the committed
``figures/smoke/*.png``; a tiny executed notebook per listed notebook (the real ones are pipeline
outputs, not committed) except the last, which has none; and a cpu report whose rows are the
committed cpu ones with one status flipped, so that the scale-dependence marks are known.
Nothing tracked is modified. The browser test keeps a screenshot of the index in its tmp_path.
"""
from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat import v4

from lsvi.pipeline.claims import FAIL, NOT_ASSESSABLE, PASS, read_claims, write_claims
from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.site import PAPERS, build_site, main, paper_of, render_notebook

ROOT = repo_root()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    cfg = load_config(ROOT / "config" / "scales.yaml", {"scale": "smoke"}, check_notebooks=False)
    res = tmp / "results"
    (res / "smoke").mkdir(parents=True)
    for f in ("claims.csv", "REPLICATION.md"):
        shutil.copyfile(ROOT / "results" / "smoke" / f, res / "smoke" / f)
    cpu = read_claims(ROOT / "results" / "cpu" / "claims.csv")
    flip = next(i for i, c in enumerate(cpu) if c.status == PASS)
    cpu[flip] = replace(cpu[flip], status=FAIL)
    write_claims(res / "cpu" / "claims.csv", cpu)
    stems = list(cfg.notebooks)
    for stem in stems[:-1]:
        nb = v4.new_notebook(cells=[
            v4.new_markdown_cell(f"# {stem}\n\nA tiny stand-in for the executed notebook, $x^2$."),
            v4.new_code_cell("1 + 1", execution_count=1,
                             outputs=[v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]),
        ])
        (res / "smoke" / stem).mkdir()
        nbformat.write(nb, res / "smoke" / stem / "executed.ipynb")
    counts = build_site(res / "smoke", cfg, "smoke", tmp / "site", ROOT / "figures", res, ROOT)
    return {"dir": tmp / "site", "cfg": cfg, "rows": read_claims(res / "smoke" / "claims.csv"), "cpu": cpu,
            "counts": counts, "no_notebook": stems[-1], "flipped": cpu[flip].key}


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_paper_of_prefix_table():
    assert paper_of("00_datasets")[0] == "LSVI"
    assert paper_of("31_bsl_toads")[0] == "LSVI"
    assert paper_of("40_rabvi_anything")[0] == "RABVI"
    assert paper_of("50_ngvi_rates")[0] == "NGVI"
    assert paper_of("51_ngvi_more")[0] == "NGVI"
    assert paper_of("52_alquier_online_vi")[0] == "Alquier"
    assert paper_of("53_alquier_more")[0] == "Alquier"
    assert paper_of("99_misc")[0] == "Other"


def paper_rows(rows):
    """The rows the headline counts: kind ``paper`` (the papers' statements)."""
    return [c for c in rows if c.kind == "paper"]


def test_summary_counts_and_rows_equal_claims_csv(site):
    doc = soup(site["dir"] / "index.html")
    paper = paper_rows(site["rows"])
    expected = Counter(c.status for c in paper)
    shown = {k: int(doc.select_one(f"#count-{k}").text) for k in ("total", "pass", "fail", "na")}
    assert shown == {"total": len(paper), "pass": expected[PASS], "fail": expected[FAIL],
                     "na": expected[NOT_ASSESSABLE]}
    assert int(doc.select_one("#count-rows").text) == len(site["rows"])  # every kind is listed, counted apart
    trs = doc.select("tr.claim")
    assert len(trs) == len(site["rows"])
    assert Counter(tr["data-status"] for tr in trs) == Counter(c.status for c in site["rows"])
    # each row shows its kind
    assert Counter(tr.select("td")[1].text for tr in trs) == Counter(c.kind for c in site["rows"])


def test_every_local_reference_resolves_and_nothing_is_loaded_from_the_network(site):
    d = site["dir"]
    pages = [d / "index.html", *sorted((d / "notebooks").glob("*.html"))]
    assert len(pages) == len(site["cfg"].notebooks)  # the index and all notebooks but the one without a copy
    for page in pages:
        doc = soup(page)
        for tag, attr in (("img", "src"), ("script", "src"), ("link", "href")):
            for el in doc.find_all(tag):
                url = el.get(attr)
                if url and not url.startswith("data:"):
                    assert not urlparse(url).scheme, f"{page.name} loads {url}"
                    assert (page.parent / unquote(url)).is_file(), f"{page.name}: {url}"
    for a in soup(d / "index.html").find_all("a", href=True):
        if not a["href"].startswith("#"):
            assert (d / unquote(a["href"])).is_file(), a["href"]
        else:
            assert soup(d / "index.html").find(id=a["href"][1:]) is not None, a["href"]


def test_figures_sit_beside_their_notebooks_claims(site):
    doc = soup(site["dir"] / "index.html")
    n_img = 0
    for stem, spec in site["cfg"].notebooks.items():
        section = doc.select_one(f"#nb-{stem}")
        assert section is not None
        srcs = [img["src"] for img in section.select(".figs img")]
        expected = [f"figures/{f}.png" for f in spec.figures if (ROOT / "figures" / "smoke" / f"{f}.png").is_file()]
        assert srcs == expected
        n_img += len(srcs)
        ids = {td.text.strip() for td in section.select("tr.claim td:first-child")}
        assert ids == {c.id for c in site["rows"] if c.notebook == stem}
    assert n_img > 0


def test_notebook_links_and_missing_notebook(site):
    doc = soup(site["dir"] / "index.html")
    missing = doc.select_one(f"#nb-{site['no_notebook']}")
    assert not missing.select("a.nblink") and "no executed notebook" in missing.text
    stem = next(iter(site["cfg"].notebooks))
    links = {a["href"] for a in doc.select(f"#nb-{stem} a.nblink")}
    assert links == {f"notebooks/{stem}.html"}
    assert stem in (site["dir"] / "notebooks" / f"{stem}.html").read_text()


def test_side_by_side_status_marks_exactly_the_scale_dependent_claims(site):
    smoke = {c.key: c.status for c in site["rows"]}
    cpu = {c.key: c.status for c in site["cpu"]}
    differs = {k for k in smoke if k in cpu and cpu[k] != smoke[k]}
    assert site["flipped"] in cpu
    doc = soup(site["dir"] / "index.html")
    assert int(doc.select_one("#count-differs").text) == len(differs)
    nb, cid = site["flipped"]
    row = next(tr for tr in doc.select(f"#nb-{nb} tr.claim") if tr.select_one("td").text.strip() == cid)
    cells = [td.text.strip() for td in row.find_all("td")]
    assert cells[-1] == cpu[site["flipped"]]  # the cpu column
    assert ("scale-dependent" in cells[-2]) == (site["flipped"] in differs)


def test_per_source_summary_adds_up_and_follows_the_paper_table(site):
    doc = soup(site["dir"] / "index.html")
    rows = [[td.text.strip() for td in tr.find_all("td")] for tr in doc.select("#sources ~ table tr")[1:]]
    assert sum(int(r[3]) for r in rows) == len(site["rows"])
    assert sum(int(r[4]) for r in rows) == sum(c.status == PASS for c in site["rows"])
    papers = list(dict.fromkeys(r[0] for r in rows))
    order = [p[0] for p in PAPERS] + ["Other"]
    assert papers == sorted(papers, key=order.index)
    assert {(r[0], r[2]) for r in rows} == {(paper_of(c.notebook)[0], c.source.strip()) for c in site["rows"]}


def test_mathjax_only_when_asked(tmp_path):
    nb = v4.new_notebook(cells=[v4.new_markdown_cell("$x^2$")])
    nbformat.write(nb, tmp_path / "a.ipynb")
    render_notebook(tmp_path / "a.ipynb", tmp_path / "plain.html")
    render_notebook(tmp_path / "a.ipynb", tmp_path / "mj.html", mathjax_url="mathjax/MathJax.js")
    plain, mj = (soup(tmp_path / f) for f in ("plain.html", "mj.html"))
    assert [s["src"] for s in plain.find_all("script", src=True)] == []
    assert [s["src"] for s in mj.find_all("script", src=True)] == ["mathjax/MathJax.js"]
    assert "$x^2$" in plain.text


def test_cli_without_claims_fails(tmp_path, capsys):
    assert main([str(tmp_path / "smoke")]) == 1
    assert "run the pipeline" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the browser

HARNESS = """<!DOCTYPE html><html><body><pre id="result">pending</pre>
<iframe id="f" src="site/index.html" style="width:1400px;height:900px"></iframe>
<script>
function probe(url) {  // does a file:// URL resolve? (needs --allow-file-access-from-files)
  return new Promise(resolve => {
    const x = new XMLHttpRequest();
    x.onload = () => resolve(x.responseText.length > 0);
    x.onerror = () => resolve(false);
    try { x.open("GET", url); x.send(); } catch (e) { resolve(false); }
  });
}
document.getElementById("f").addEventListener("load", async () => {
  const doc = document.getElementById("f").contentDocument;
  const imgs = Array.from(doc.images);
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = r; i.onerror = r; })));
  const links = Array.from(doc.querySelectorAll("a[href]")).filter(a => !a.getAttribute("href").startsWith("#"));
  const ok = await Promise.all(links.map(a => probe(a.href)));
  const num = id => Number(doc.getElementById(id).textContent);
  document.getElementById("result").textContent = JSON.stringify({
    images: imgs.length,
    broken: imgs.filter(i => !(i.naturalWidth > 0)).map(i => i.getAttribute("src")),
    links: links.length,
    nblinks: links.filter(a => a.classList.contains("nblink")).length,
    unresolved: links.filter((a, k) => !ok[k]).map(a => a.getAttribute("href")),
    counts: {total: num("count-total"), pass: num("count-pass"), fail: num("count-fail"), na: num("count-na")},
    rows: doc.querySelectorAll("tr.claim").length,
  });
});
</script></body></html>
"""


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        msg = "headless Chromium is not installed (make setup installs Debian's chromium where it can)"
        if os.environ.get("LSVI_REQUIRE_BROWSER") == "1":
            pytest.fail(msg + "; LSVI_REQUIRE_BROWSER=1 requires it")
        pytest.skip(msg)
    return exe


def test_missing_browser_skips_unless_required(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("LSVI_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium()
    monkeypatch.setenv("LSVI_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="LSVI_REQUIRE_BROWSER"):
        chromium()


def test_site_in_headless_chromium(site, tmp_path):
    exe = chromium()
    base = site["dir"].parent
    (base / "harness.html").write_text(HARNESS)
    flags = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             f"--user-data-dir={tmp_path / 'profile'}"]
    out = subprocess.run(flags + ["--allow-file-access-from-files", "--virtual-time-budget=30000", "--dump-dom",
                                  (base / "harness.html").as_uri()], capture_output=True, text=True, timeout=120)
    dom = BeautifulSoup(out.stdout, "html.parser").select_one("#result")
    assert dom is not None and dom.text != "pending", f"the harness did not finish: {out.stderr[-2000:]}"
    r = json.loads(html.unescape(dom.text))
    paper = paper_rows(site["rows"])
    expected = Counter(c.status for c in paper)
    assert r["images"] > 0 and r["broken"] == []
    assert r["nblinks"] > 0 and r["unresolved"] == []
    assert r["counts"] == {"total": len(paper), "pass": expected[PASS], "fail": expected[FAIL],
                           "na": expected[NOT_ASSESSABLE]}
    assert r["rows"] == len(site["rows"])
    shot = tmp_path / "index.png"  # the artefact: a screenshot of the index (never committed)
    subprocess.run(flags + ["--hide-scrollbars", "--window-size=1400,2000", f"--screenshot={shot}",
                            (site["dir"] / "index.html").as_uri()], capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000
    print(f"screenshot of the site's index: {shot}")


def test_notebooks_without_a_current_fingerprint_are_marked_stale(site):
    """The fixture's results hold no fingerprints.json: no notebook's rows can be shown current, and the site says so
    in the summary and beside each notebook (a notebook whose recorded inputs equal the working tree's is not marked:
    tests/test_report.py::test_check_flags_incomplete_runs)."""
    doc = soup(site["dir"] / "index.html")
    banner = doc.select_one("#stale").text
    assert f"{len(site['cfg'].notebooks)} STALE notebook(s)" in banner and "no fingerprint recorded" in banner
    assert len(doc.select("span.stale")) == len(site["cfg"].notebooks)
    assert site["counts"]["stale"] == len(site["cfg"].notebooks)


def test_every_figure_shows_its_caption_and_the_statuses_of_the_rows_it_supports(site):
    """Under each figure: its caption from config/captions/ rendered at this scale, then "Supports:" with each
    named row's id and its status in this report."""
    from lsvi.pipeline.captions import load_captions, render, scale_params, supported

    caps = load_captions(ROOT)
    doc = soup(site["dir"] / "index.html")
    status = {(c.notebook, c.id): c.status for c in site["rows"]}
    for stem, spec in site["cfg"].notebooks.items():
        section = doc.select_one(f"#nb-{stem}")
        for name, fc in zip(spec.figures, section.select(".figs figcaption")):
            text = " ".join(fc.get_text(" ").split())
            assert text.startswith(f"{name}.")
            if name not in caps:
                assert "no caption" in text
                continue
            assert render(caps[name], scale_params(site["cfg"], stem, "smoke"))[:60] in text
            ids = supported(caps[name], [c.id for c in site["rows"] if c.notebook == stem])
            shown = [(code.text, code.find_next_sibling("span").text) for code in fc.select("code")]
            assert shown == [(i, status[stem, i]) for i in ids]


def test_captions_are_shown_under_the_cells_that_save_their_figures():
    from lsvi.pipeline.site import with_captions

    nb = v4.new_notebook(cells=[
        v4.new_code_cell('fig = plot(x)\nrun.save_figure(fig,\n                "fig01_a")'),
        v4.new_markdown_cell("text naming fig01_a"),
        v4.new_code_cell('run.save_table(df, "table01_b", index=False)'),
        v4.new_code_cell('print("fig01_a")'),
    ])
    out = with_captions(nb, {"fig01_a": "Caption A.", "table01_b": "Caption B."})
    md = [(i, c.source) for i, c in enumerate(out.cells) if c.cell_type == "markdown" and c.source.startswith("**")]
    assert md == [(1, "**Figure `fig01_a`.** Caption A."), (4, "**Table `table01_b`.** Caption B.")]
