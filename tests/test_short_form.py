"""`eqbench-nb run --form shortK`: only the form's questions are asked, the header records the form, the
table reports the predicted full score with its prediction interval; the committed forms are what the
validation (notebook 08 §5) builds from the published runs."""

import json

import pytest
from cli_helper import cli
from conftest import KEY, needs_data
from fake_openai_server import FakeOpenAI

from eqbench_nb.eqbench import short_form
from eqbench_nb.eqbench.questions import load_questions
from eqbench_nb.eqbench.study import short_forms


def test_committed_forms_are_valid_v2_questions_with_a_calibrated_interval():
    forms = short_form.load_forms()
    assert forms, "data/short_forms.json holds no form"
    ids = {q.id for q in load_questions("v2")}
    for name, f in forms.items():
        assert name == f"short{len(f.question_ids)}"
        assert set(f.question_ids) <= ids and len(set(f.question_ids)) == len(f.question_ids)
        v = f.validation
        assert abs(v["coverage_runs_and_questions"] - 0.95) < 0.05 and abs(v["coverage_full_score_runs"] - 0.95) < 0.05
        assert v["rmse_new_questions"] < v["rmse_new_questions_random_form"]
        pred, lo, hi = f.predict(60.0)
        assert lo < pred < hi and hi - lo > 2 * f.sd


@needs_data
def test_committed_forms_are_what_the_validation_builds():
    assert short_forms.build_forms() == json.loads(short_form.forms_path().read_text())


def test_run_with_a_form_asks_only_its_questions_and_predicts_the_full_score(tmp_path):
    name = short_form.form_names()[0]
    form = short_form.load_forms()[name]
    with FakeOpenAI(api_key=KEY) as url:
        proc = cli(
            "run", "--base-url", url, "--model", "fake-model", "--form", name, "--out", tmp_path, "--no-progress",
            env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (path,) = tmp_path.glob("*.jsonl")
    header = json.loads(path.read_text().splitlines()[0])
    assert header["form"]["name"] == name and header["form"]["k"] == len(form.question_ids)
    assert sorted(header["question_ids"], key=int) == sorted(form.question_ids, key=int)
    line = next(x for x in proc.stdout.splitlines() if x.startswith(f"short form {name}"))
    official = next(x for x in proc.stdout.splitlines() if x.startswith("official"))
    pred, lo, hi = form.predict(float(official.split()[1]))
    assert f"{pred:.2f}" in line and f"{lo:.2f} to {hi:.2f}" in line
    assert KEY not in path.read_text() + proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--form", "short7"], ["unknown short form", "short40"]),
        (["--form", "short40", "--set", "v1"], ["--set v2"]),
        (["--form", "short40", "--limit", "3"], ["drop --questions and --limit"]),
    ],
)
def test_form_mistakes_are_one_line_errors(tmp_path, extra, words):
    proc = cli("run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out", tmp_path, *extra,
               env={"OPENAI_API_KEY": KEY})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    err = proc.stderr.strip().splitlines()[-1]
    assert err.startswith("error: ") and all(w in err for w in words), err
