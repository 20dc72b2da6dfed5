"""The committed published-number tables load, carry their source, and give the spread and correlations of 02 and 04."""

import numpy as np
import pytest
from conftest import DATA, needs_data, needs_data_folder

from eqbench_nb.analysis import stats as S
from eqbench_nb.eqbench.study import published as P


@pytest.mark.parametrize("name", list(P.TABLES))
def test_table_loads_with_source_column(name):
    df = P.load_table(name)
    assert len(df) > 0
    assert "source" in df.columns and "table_source" in df.columns
    assert df["source"].notna().any()
    assert all(c == P.normalise_column(c) for c in df.columns)


def test_table_shapes():
    assert len(P.benchmarks_joined()) == 199
    assert len(P.paper_scores()) == 38
    assert len(P.leaderboard_v2()) == 185
    assert len(P.paper_repeatability()) == 13


@needs_data_folder
@pytest.mark.parametrize("name", list(P.TABLES))
def test_committed_tables_are_not_byte_copies(name):
    shared = DATA / "paper" / P.TABLES[name][0]
    ours = P.data_dir() / f"{name}.csv"
    assert ours.read_bytes() != shared.read_bytes()


@needs_data_folder
def test_write_tables_reproduces_committed(tmp_path):
    for path in P.write_tables(DATA / "paper", tmp_path):
        assert path.read_bytes() == (P.data_dir() / path.name).read_bytes()


def test_normalise_column():
    assert P.normalise_column("eqbench_v1_chart_2023-12-11") == "eqbench_v1_chart_20231211"
    assert P.normalise_column(" Arena Elo rating ") == "arena_elo_rating"


def test_v1_spread_matches_paper():
    v1 = P.v1_paper_scores()
    assert S.spread(v1) == (2.25, 62.52)
    assert v1.idxmin() == "text-ada-001" and v1.idxmax() == "gpt-4-0613"


def test_v2_leaderboard_scores():
    v2 = P.v2_leaderboard_scores()
    assert "random-baseline" not in v2.index and len(v2) == 172
    assert P.v2_leaderboard_scores(include_baseline=True)["random-baseline"] == 0.0
    assert 80 < v2.max() < 90


def _corr(df, x, y):
    return S.bootstrap_corr_ci(df[x], df[y], reps=500, seed=0, interval="percentile")


def test_correlations_reproduce_spec():
    b = P.benchmarks_joined()
    ollb = b[P.is_ollb_mmlu(b.mmlu_source)]
    v1 = _corr(ollb, "eqbench_v1", "mmlu")
    assert v1.estimate == pytest.approx(0.92, abs=0.03) and v1.n == 22
    v2 = _corr(ollb, "eqbench_v2", "mmlu")
    assert v2.estimate == pytest.approx(0.81, abs=0.03) and abs(v2.n - 91) <= 3
    magi = _corr(b, "eqbench_v2", "magi_hard")
    assert magi.estimate == pytest.approx(0.70, abs=0.03) and magi.n == 161
    arena = _corr(b, "eqbench_v2", "arena_elo")
    assert arena.estimate == pytest.approx(0.71, abs=0.03) and arena.n == 77
    for iv in (v1, v2, magi, arena):
        assert iv.low < iv.estimate < iv.high


def test_paper_mmlu_claim_is_in_table():
    pc = P.paper_correlations()
    row = pc[pc.benchmark == "MMLU"].iloc[0]
    assert row.r == P.PAPER_MMLU_R and "primary" in row.source_type


def test_mmlu_kind_families():
    kinds = set(P.benchmarks_joined().mmlu_kind.dropna())
    assert kinds <= {"OLLB-v1 final", "OLLB-v1", "vendor-5shot", "vendor", "vendor-0shotCoT"}


@needs_data
def test_question_score_matrix_reproduces_official_scores():
    from eqbench_nb.eqbench.conventions import score_run
    from eqbench_nb.eqbench.study.table import published_runs

    runs = published_runs()
    m = P.question_score_matrix(runs)
    assert m.shape == (86, 171)
    official = np.array([score_run(r).score for r in runs])
    assert np.abs(10 * np.nanmean(m.to_numpy(), axis=1) - official).max() < 0.01


def test_base_models_cover_the_v1_models_with_ollb_mmlu():
    bm = P.base_models()
    assert bm["source"].notna().all() and not bm["model"].duplicated().any()
    b = P.benchmarks_joined()
    used = b[P.is_ollb_mmlu(b.mmlu_source) & b.eqbench_v1.notna()].model
    assert set(used) <= set(bm.model), sorted(set(used) - set(bm.model))
    assert bm.set_index("model").loc["huggingfaceh4/zephyr-7b-beta", "base_model"] == "mistralai/Mistral-7B-v0.1"


# the benchmark columns 04 correlates with EQ-Bench (v1 or v2), and the paper-era columns of paper_scores.csv
BENCHMARK_COLUMNS = ["eqbench_v1", "eqbench_v2", "mmlu", "magi_hard", "arena_elo", "arc", "hellaswag", "truthfulqa",
                     "winogrande", "gsm8k", "ollb_average"]  # fmt: skip
PAPER_ERA_COLUMNS = ["ollb_mmlu", "mmlu_lmsys_20231206", "arena_elo_20231206", "mt_bench_20231206",
                     "alpacaeval_v1_winrate", "ollb_hellaswag", "ollb_arc"]  # fmt: skip


def _models_correlated(df, versions, columns) -> set[str]:
    """Every model with an EQ-Bench score (one of ``versions``) and a value of one of ``columns``: the models a
    correlation of notebook 04 (or 08's capability control, a subset) can resample."""
    return {m for v in versions for c in columns if c != v for m in df.loc[df[v].notna() & df[c].notna(), "model"]}


def test_the_lineage_table_covers_every_model_each_analysis_resamples():
    """Issue 38: every correlation over models resamples lineages, so each model it uses needs a row."""
    have = set(P.base_models().model)
    b, ps = P.benchmarks_joined(), P.paper_scores()
    analyses = {
        "04 (benchmarks_joined)": _models_correlated(b, ["eqbench_v1", "eqbench_v2"], BENCHMARK_COLUMNS),
        "04 (paper_scores, paper era)": _models_correlated(ps, ["eqbench_v1"], PAPER_ERA_COLUMNS),
        "08 capability control": set(b.dropna(subset=["eqbench_v2", "arena_elo", "mmlu"]).model),
    }
    for what, used in analyses.items():
        assert used, what
        assert used <= have, f"{what}: no lineage for {sorted(used - have)}"


@needs_data
def test_the_lineage_table_covers_the_86_published_runs():
    from eqbench_nb.eqbench.study.table import published_runs

    runs = published_runs()
    assert len(runs) == 86
    missing = {r.model for r in runs} - set(P.base_models().model)
    assert not missing, sorted(missing)


def test_every_lineage_row_says_whether_a_card_or_a_name_rule_gave_it():
    bm = P.base_models()
    assert set(bm.source_kind) == set(P.SOURCE_KINDS)
    rule = bm.source_kind == "name rule"
    assert bm.source[rule].str.startswith("name").all(), bm.model[rule & ~bm.source.str.startswith("name")].tolist()
    # a card row quotes where it comes from; a name-rule row never poses as a card
    assert not bm.source[~rule].str.startswith("name rule").any()
    assert (bm.source.str.len() > 30).all()


def test_snapshots_of_one_closed_model_count_as_one_lineage():
    """Issue 38: gpt-3.5-turbo, -0613, -16k and -16k-0613 (one snapshot, one day) are not four independent models."""
    lin = P.base_models().set_index("model").lineage
    snaps = ["gpt-3.5-turbo", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-16k", "gpt-3.5-turbo-16k-0613"]
    assert lin[snaps].nunique() == 1
    # quantised copies share the lineage of the model they copy
    assert lin["TheBloke/Llama-2-70B-Chat-GGUF"] == lin["meta-llama/Llama-2-70b-chat-hf"]


def test_a_lineage_table_with_an_unknown_source_kind_is_refused(tmp_path, monkeypatch):
    bm = P.base_models()
    bm.loc[0, "source_kind"] = "hunch"
    bm.to_csv(tmp_path / P.BASE_MODELS_FILE, index=False)
    monkeypatch.setattr(P, "data_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="source_kind"):
        P.base_models()


@needs_data  # rescores the published runs
def test_stored_question_scores_against_a_rescoring(tmp_path):
    import json

    from eqbench_nb import load_questions
    from eqbench_nb.eqbench.scoring import score_question

    q = load_questions("v2")[0]
    exact = {e: str(int(q.reference[e])) for e in q.emotions}  # scores 10
    off = {e: "5" for e in q.emotions}
    run = {
        "model_path": "m",
        "eqbench_version": "v2",
        "benchmark_score": 100.0,
        "raw_results": {
            "1": {
                "respondent_answers": {q.id: {"first_pass": exact, "revised": off}},
                "individual_scores": {q.id: {"first_pass_score": 7.0, "revised_score": None}},
            }
        },
    }
    path = tmp_path / "m_eqbench_v2_results.json"
    path.write_text(json.dumps(run))
    s = P.stored_question_scores([path]).set_index("pass")
    assert s.loc["first_pass", "stored"] == 7.0 and s.loc["first_pass", "rescored"] == pytest.approx(10.0)
    assert np.isnan(s.loc["revised", "stored"])
    assert s.loc["revised", "rescored"] == pytest.approx(score_question({e: 5 for e in q.emotions}, q, "v2"))
    r = P.stored_run_scores(P.stored_question_scores([path])).iloc[0]
    assert r.from_stored == pytest.approx(70.0) and r.from_rescored == pytest.approx(100.0)
    assert r.published_score == 100.0
