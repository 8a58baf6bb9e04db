"""The committed SMC reference of notebook 30 (`lsvi.papers.lsvi.variable_selection_reference`): agreement,
save / load round trip, reuse of finished runs, and the error when the file is missing. No SMC is run here."""
import json

import numpy as np
import pytest

from lsvi.papers.lsvi import variable_selection_reference as vsr


def test_agreement_is_the_max_spread_over_predictors_and_needs_two_runs():
    runs = np.array([[0.1, 0.5, 0.9], [0.12, 0.54, 0.9]])
    assert vsr.agrees(runs)
    assert not vsr.agrees(runs + np.array([[0, 0, 0], [0, 0.02, 0]]))  # spread 0.06 in one predictor
    assert not vsr.agrees(runs[:1])


def fake_run(path, marginals, log_z, settings=vsr.Settings()):
    info = {"num_particles": settings.num_particles, "len_chain": settings.len_chain, "evaluator": "jax",
            "max_rss_gib": 0.6}
    theta = np.array([[[True] * len(marginals), [False] * len(marginals), [True] * len(marginals)]])
    np.savez_compressed(path, marginals=np.asarray([marginals]), log_evidence=np.array([log_z]), theta=theta,
                        W=np.array([[0.5, 0.25, 0.25]]),
                        num_steps=np.array([17]), num_evaluations=np.array([1_800_000]), times=np.array([123.4]),
                        info=json.dumps(info))


def test_compute_reuses_the_runs_in_workdir_and_save_load_round_trip(tmp_path):
    settings = vsr.Settings(runs=2, seed=5)
    fake_run(vsr.run_file(tmp_path, settings, 5), [0.2, 0.8, 1.0], -5540.1)
    fake_run(vsr.run_file(tmp_path, settings, 6), [0.22, 0.78, 1.0], -5540.5)
    ref = vsr.compute(settings, tmp_path, processes=1)  # both runs are there: nothing is run
    assert ref.agrees and ref.provenance["agreement"]["num_predictors_above"] == 0
    assert [r["seed"] for r in ref.provenance["runs"]] == [5, 6]
    assert ref.provenance["runs"][0]["distinct_particles"] == 2 and ref.provenance["runs"][0]["ess"] == 2.7
    np.testing.assert_allclose(ref.mean, [0.21, 0.79, 1.0])
    out = vsr.save(ref, tmp_path / "ref")
    loaded = vsr.load(out.parent)
    np.testing.assert_array_equal(loaded.marginals, ref.marginals)
    np.testing.assert_array_equal(loaded.log_evidence, [-5540.1, -5540.5])
    assert loaded.agrees and loaded.provenance["settings"]["seed"] == 5


def test_a_run_of_other_settings_is_refused_and_a_missing_reference_names_its_command(tmp_path):
    settings = vsr.Settings(runs=1)
    fake_run(vsr.run_file(tmp_path, settings, 0), [0.5], -1.0, settings._replace(len_chain=1000))
    with pytest.raises(ValueError, match="P=1000"):
        vsr.compute(settings, tmp_path, processes=1)
    with pytest.raises(FileNotFoundError, match="variable_selection_reference"):
        vsr.load(tmp_path / "nowhere")


def test_the_source_commit_is_this_checkouts_or_unknown_outside_git(tmp_path):
    from lsvi.pipeline.provenance import source_commit

    here = source_commit()
    assert here == "unknown" or (len(here) == 40 and all(c in "0123456789abcdef" for c in here))
    assert source_commit(tmp_path) == "unknown"


def test_more_chains_is_written_beside_the_papers_reference(tmp_path):
    paper, more = vsr.Settings(runs=2), vsr.MORE_CHAINS._replace(runs=2)
    assert more.num_particles // more.len_chain == 1000 and paper.num_particles // paper.len_chain == 10
    for s, m in ((paper, [0.1, 0.9]), (more, [0.5, 0.5])):
        fake_run(vsr.run_file(tmp_path, s, 0), m, -1.0, s)
        fake_run(vsr.run_file(tmp_path, s, 1), m, -1.0, s)
        vsr.save(vsr.compute(s, tmp_path, processes=1), tmp_path / "ref")
    assert sorted(p.name for p in (tmp_path / "ref").iterdir()) == ["smc_reference.json", "smc_reference_N100000_P100.json"]
    np.testing.assert_array_equal(vsr.load(tmp_path / "ref").mean, [0.1, 0.9])
    loaded = vsr.load(tmp_path / "ref", vsr.MORE_CHAINS)
    np.testing.assert_array_equal(loaded.mean, [0.5, 0.5])
    assert loaded.provenance["command"].endswith("--len-chain 100 --runs 2")
    with pytest.raises(FileNotFoundError, match="--len-chain 100"):
        vsr.load(tmp_path / "nowhere", vsr.MORE_CHAINS)
