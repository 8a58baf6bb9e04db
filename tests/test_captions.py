"""Figure and table captions (src/lsvi/pipeline/captions.py, config/captions/*.yaml): every figure and table a
notebook declares has a caption that renders at every scale and names rows its notebook has; malformed caption
files and undefined parameters are clear errors."""
from __future__ import annotations

import pytest

from lsvi.pipeline import captions as cap
from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root

ROOT = repo_root()


def test_every_declared_figure_and_table_has_a_caption_that_renders_at_every_scale():
    cfg = load_config(ROOT / "config" / "scales.yaml", {"scale": "smoke"}, check_notebooks=False)
    caps = cap.load_captions(ROOT)
    assert set(cap.declared(cfg)) <= set(caps)
    assert cap.check(cfg, caps, ROOT / "results") == []
    for name, stem in cap.declared(cfg).items():
        for scale in cfg.scales:
            assert len(cap.render(caps[name], cap.scale_params(cfg, stem, scale))) > 40


def test_render_fills_the_runs_parameters_and_rejects_unknown_names():
    c = cap.Caption("fig01_x", "{{ reps }} runs on {{ data|join(', ') }} ({{ data|length }} data sets)")
    assert cap.render(c, {"reps": 5, "data": ["pima", "sonar"]}) == "5 runs on pima, sonar (2 data sets)"
    with pytest.raises(cap.CaptionError, match="fig01_x"):
        cap.render(c, {"reps": 5})


def test_supported_rows_exact_and_prefix():
    c = cap.Caption("f", "t", ("fig7_*", "c10_rmsprop"))
    ids = ["fig7_a", "c10_rmsprop", "c10_rmsprop_x", "other", "fig7_b"]
    assert cap.supported(c, ids) == ["fig7_a", "c10_rmsprop", "fig7_b"]


@pytest.mark.parametrize("text, match", [
    ("fig01_x:\n  caption: ''\n", "empty caption"),
    ("fig01_x:\n  rows: [a]\n", "'caption' required"),
    ("fig01_x:\n  caption: t\n  colour: red\n", "expected keys"),
    ("fig01_x:\n  caption: t\n  rows: a\n", "rows must be a list"),
    ("- a\n- b\n", "expected a mapping"),
    ("fig01_x: [unclosed\n", "not valid YAML"),
])
def test_malformed_caption_files_are_clear_errors(tmp_path, text, match):
    d = tmp_path / cap.CAPTIONS_DIR
    d.mkdir(parents=True)
    (d / "a.yaml").write_text(text)
    with pytest.raises(cap.CaptionError, match=match):
        cap.load_captions(tmp_path)


def test_a_name_captioned_twice_is_an_error(tmp_path):
    d = tmp_path / cap.CAPTIONS_DIR
    d.mkdir(parents=True)
    (d / "a.yaml").write_text("fig01_x:\n  caption: t\n")
    (d / "b.yaml").write_text("fig01_x:\n  caption: u\n")
    with pytest.raises(cap.CaptionError, match="also defined in a.yaml"):
        cap.load_captions(tmp_path)


def test_check_reports_missing_unknown_and_unmatched(tmp_path):
    cfg = load_config(ROOT / "config" / "scales.yaml", {"scale": "smoke"}, check_notebooks=False)
    caps = {"not_a_figure": cap.Caption("not_a_figure", "t", (), "a.yaml"),
            "thm_rabvi_theory": cap.Caption("thm_rabvi_theory", "{{ no_such_param }}", (), "a.yaml"),
            "rabvi_fig07_gaussian_targets": cap.Caption("rabvi_fig07_gaussian_targets", "d = {{ d }}", ("zz_*",), "a.yaml")}
    problems = "\n".join(cap.check(cfg, caps, ROOT / "results"))
    assert "table02_datasets (00_datasets): no caption" in problems
    assert "not_a_figure: not a figure or table" in problems
    assert "no_such_param" in problems
    assert "rows pattern 'zz_*' matches no row of 41_rabvi_gaussian_targets" in problems
