"""EmoBench as a declaration (issue 45): its items, prompt, parse rule and score checked decision for decision
against upstream's own functions (src/utils.py, src/model.py, src/data.py @ 3b4f843, executed here from the
pinned files), then every command over a real loopback server and the bundled model, from the declaration alone."""

import ast
import hashlib
import json
import re
import types
from pathlib import Path

import pandas as pd
import pytest
from cli_helper import cli as run_cli
from conftest import DATA, KEY, needs_local_model
from fake_openai_server import FakeOpenAI

from eqbench_nb.benchmarks import emobench

pytestmark = pytest.mark.needs_data_folder  # the EmoBench files are read from the data folder (never committed)

UP = DATA / "emobench"
ROOT = Path(__file__).resolve().parent.parent


def upstream(module: str, name: str, **namespace) -> types.FunctionType:
    """Upstream's function ``name`` (a method too) from its pinned source, executed in ``namespace``."""
    tree = ast.parse((UP / "src" / f"{module}.py").read_text())
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    scope = {"re": re, "json": json, "print": lambda *a, **k: None, **namespace}
    exec(compile(ast.Module([node], []), f"{module}.py", "exec"), scope)
    return scope[name]


def load_yaml(path: str):
    import yaml

    return yaml.safe_load((UP / path).read_text())


def cli(*argv: str) -> tuple[int, str, str]:
    done = run_cli(*argv)  # the suite's one in-process helper
    return done.returncode, done.stdout, done.stderr


ITEMS = emobench.items(None)


def test_the_items_are_upstreams_in_main_pys_order_with_the_labels_as_letters():
    assert len(ITEMS) == 800 and len({i.id for i in ITEMS}) == 800
    sections = list(dict.fromkeys((i.metadata["task"], i.metadata["language"]) for i in ITEMS))
    assert sections == [("EU", "en"), ("EU", "zh"), ("EA", "en"), ("EA", "zh")]
    assert all(sum((i.metadata["task"], i.metadata["language"]) == s for i in ITEMS) == 200 for s in sections)
    first = ITEMS[0]
    assert first.id == "EU-en-1" and first.target == ["A", "B"]  # Delight; "Her daughter enjoyed the Baklava ..."
    assert first.metadata == {"task": "EU", "language": "en", "category": "complex_emotions"}


def test_the_prompt_is_upstreams_message_for_message():
    get_response_format = upstream("utils", "get_response_format", load_yaml=load_yaml)
    init_prompt = upstream("model", "init_prompt", get_response_format=get_response_format)
    rank_choices = upstream("data", "rank_choices", letters="ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    prompts = load_yaml("src/configs/prompts.yaml")
    for model in ("fake-model", "Qwen/Qwen3-8B", "org/qwen2.5"):  # init_prompt's /no_think reads the model's name
        llm = types.SimpleNamespace(prompts=prompts, use_cot=False, model_name=model.split("/")[-1].replace(".", "_"))
        for item in ITEMS[::37]:
            task, lang, r = item.metadata["task"], item.metadata["language"], item.data
            init_prompt(llm, task, lang)
            if task == "EU":  # data.DataLoader.generate_responses
                msg = prompts[task][lang].format(
                    scenario=r["scenario"],
                    subject=r["subject"],
                    emo_choices=rank_choices(None, r["emotion_choices"]),
                    cause_choices=rank_choices(None, r["cause_choices"]),
                )
            else:
                msg = prompts[task][lang].format(
                    scenario=r["scenario"],
                    subject=r["subject"],
                    choices=rank_choices(None, r["choices"]),
                    q_type=r["question type"],
                )
            assert emobench.prompt(item, model) == [*llm.messages, {"role": "user", "content": msg}], (model, item.id)
    assert emobench.prompt(ITEMS[0], "Qwen/Qwen3-8B")[0]["content"].startswith("/no_think\n\n# Instructions")


TEXTS = [
    '{"answer": "A"}',
    '  {"answer_q1": "B", "answer_q2": "C"}\n',
    'Sure!\n```json\n{"answer": "D"}\n```\nthat is all',
    '```json\n{"answer": "A"}\n``` and ```json\n{"answer": "B"}\n```',
    '```json\n{"answer": "A"}',  # no closing fence: upstream's regex finds nothing
    "A) Delight",
    '"A"',  # JSON, but no object: upstream's .get would fail
    '["A"]',
    "",
    "```json\n[1, 2]\n```",
    '{"answer": NaN}',
    "[" * 100_000,  # deeper than the JSON reader's recursion
]


@pytest.mark.parametrize("text", [*TEXTS, None])
def test_the_parse_rule_is_parse_json_response_decision_for_decision(text):
    theirs = upstream("utils", "parse_json_response")(text)
    ours = emobench.parse(text)
    if isinstance(theirs, dict):
        assert ours == theirs or (json.dumps(ours) == json.dumps(theirs))  # NaN != NaN
    else:
        assert ours is None  # upstream answers "" (gen_response's fallback) or fails on a non-object


def test_the_score_is_evaluate_results_both_letters_for_eu():
    eu, ea = ITEMS[0], next(i for i in ITEMS if i.metadata["task"] == "EA")
    assert emobench.score(eu, {"answer_q1": "A", "answer_q2": "B"}) == {"accuracy": 1, "emotion": 1, "cause": 1}
    assert emobench.score(eu, {"answer_q1": "A", "answer_q2": "C"}) == {"accuracy": 0, "emotion": 1, "cause": 0}
    assert emobench.score(eu, {"answer_q1": "A) Delight", "answer_q2": "B"})["accuracy"] == 0
    assert emobench.score(eu, None) == {"accuracy": 0, "emotion": 0, "cause": 0}
    assert emobench.score(ea, {"answer": ea.target[0]}) == {"accuracy": 1}
    assert emobench.score(ea, {"answer": ea.target[0].lower()}) == {"accuracy": 0}


def reply(prompt: str, temperature: float) -> str:
    """A deterministic mix of right, wrong, fenced and unreadable replies (the fake cannot know the answer)."""
    h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    letter, other = "ABCD"[h % 4], "ABCD"[(h // 4) % 4]
    eu = "Question 1" in prompt or "问题 1" in prompt
    body = json.dumps({"answer_q1": letter, "answer_q2": other} if eu else {"answer": letter})
    return [body, f"```json\n{body}\n```", "A) the first one", '{"answer": NaN, "answer_q1": NaN}', body][h % 5]


def upstream_accuracy(samples: list[dict]) -> dict[tuple[str, str], dict[str, float]]:
    """Upstream's evaluate_results over the same replies: its answers from parse_json_response and gen_response's
    fallback, its labels from generate_responses, its pandas groupby; by (task, language)."""
    parse = upstream("utils", "parse_json_response")
    by_id = {i.id: i for i in ITEMS}
    out = {}
    for task, lang in [("EU", "en"), ("EU", "zh"), ("EA", "en"), ("EA", "zh")]:
        rows = []
        for s in samples:
            item = by_id[s["item"]]
            if (item.metadata["task"], item.metadata["language"]) != (task, lang):
                continue
            fallback = {"answer": ""} if task == "EA" else {"answer_q1": "", "answer_q2": ""}
            got = parse(s["attempts"][0]["text"]) or fallback
            r = item.data
            if task == "EU":
                rows.append(
                    {
                        "coarse_category": r["coarse_category"],
                        "emo_label": item.target[0],
                        "emo_answer": got.get("answer_q1", ""),
                        "cause_label": item.target[1],
                        "cause_answer": got.get("answer_q2", ""),
                    }
                )
            else:
                rows.append({"category": r["category"], "label": item.target[0], "answer": got.get("answer", "")})
        if not rows:
            continue
        saved = {}
        evaluate = upstream(
            "data", "evaluate_results", save_eval_results=lambda res, *a, saved=saved: saved.update(res)
        )
        self = types.SimpleNamespace(
            task=task,
            lang=lang,
            client=types.SimpleNamespace(model_name="m"),
            load_eval_results=lambda rows=rows: pd.DataFrame(rows),
        )
        evaluate(self)
        out[(task, lang)] = saved
    return out


@pytest.fixture
def fake_run(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(responder=reply) as url:
        argv = [
            "run",
            "--benchmark",
            "emobench",
            "--base-url",
            url,
            "--model",
            "fake-model",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
        first = cli(*argv)
        again = cli(*argv)
    return tmp_path / "fake-model__emobench__x1-all.jsonl", first, again


def test_a_run_over_loopback_scores_as_upstreams_evaluate_results_and_resumes_with_nothing_asked(fake_run):
    path, (rc, out, err), (rc2, out2, err2) = fake_run
    assert rc == 0 and rc2 == 0, err + err2
    assert "records    800 of 800 (800 answered now" in out and "(0 answered now" in out2 and "requests   0 " in out2
    lines = path.read_text().splitlines()
    header, samples = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    assert header["benchmark"] == "emobench" and header["upstream"]["commit"].startswith("3b4f843")
    assert header["sampling"] == {"temperature": 0.6, "max_tokens": 256} and len(samples) == 800
    assert KEY not in path.read_text()
    rc, out, err = cli("score", str(path), "--format", "json")
    ours = {r["group"]: r for r in json.loads(out)}
    theirs = upstream_accuracy(samples)
    assert len(theirs) == 4
    for (task, lang), results in theirs.items():
        assert ours[f"{task} · {lang}"]["score"] == pytest.approx(results.pop("Overall"))
        for category, accuracy in results.items():
            assert ours[f"{task} · {lang} · {category}"]["score"] == pytest.approx(accuracy), (task, lang, category)
    overall = ours["all"]
    assert 0 < overall["score"] < 1 and overall["low"] < overall["score"] < overall["high"] and overall["items"] == 800
    nan = [s for s in samples if "NaN" in s["attempts"][0]["text"]]
    assert nan and all(s["answer"] in ({"answer": None, "answer_q1": None},) for s in nan)  # left out, said


def test_runs_leaderboard_view_and_refusals_come_from_the_declaration(fake_run, tmp_path):
    path = fake_run[0]
    rc, out, err = cli("runs", str(path), "--format", "csv")
    assert rc == 0 and "fake-model,x1-all,800,1,800,800," in out, err
    rc, out, err = cli("leaderboard", str(path), "--format", "csv")
    assert rc == 0 and out.splitlines()[0] == "model,group,accuracy,source" and "this run (x1-all)" in out, err
    rc, out, err = cli("view", str(path), "--out", str(tmp_path / "view.html"))
    assert rc == 0 and (tmp_path / "view.html").stat().st_size > 10_000, err
    rc, out, err = cli("compare", str(path), str(path))
    assert rc == 2 and "does not apply" in err
    rc, out, err = cli("run", "--benchmark", "emobench", "--repeats", "2")
    assert rc == 2 and "--repeats" in err and "EmotionBench" in err


def test_the_viewer_frame_has_every_common_column_and_the_messages_sent(fake_run):
    from eqbench_nb import samples
    from eqbench_nb.viewer.contract import COMMON_COLUMNS, FRAME_ATTRS

    frame = samples(str(fake_run[0]))
    assert set(COMMON_COLUMNS) <= set(frame.columns) and set(FRAME_ATTRS) <= set(frame.attrs)
    first = frame.set_index("item_id").loc["EU-en-1-i1"]
    assert len(frame) == 800 and first["messages"] == emobench.prompt(ITEMS[0], "fake-model")
    assert set(frame["task"]) == {"EU", "EA"} and frame["score_accuracy"].between(0, 1).all()


@pytest.mark.slow
@needs_local_model
def test_the_bundled_model_runs_it_offline(tmp_path):
    rc, out, err = cli("run", "--benchmark", "emobench", "--limit", "2", "--out", str(tmp_path), "--no-progress")
    assert rc == 0, err
    assert "SmolLM2-135M-Instruct" in out and "records    2 of 2" in out
    rc, out, err = cli("score", str(next(tmp_path.glob("*.jsonl"))))
    assert rc == 0 and "EU · en · complex_emotions" in out


def test_the_declaration_holds_at_most_60_lines_outside_its_items_prompt_parse_rule_and_score():
    """Everything else (docstring, imports, the files' locator, the declaration's fields, blank lines) counts."""
    source = (ROOT / "eqbench_nb" / "benchmarks" / "emobench.py").read_text()
    parts = {"items", "_yaml", "prompt", "RESPONSE_FORMAT", "parse", "score"}
    inside: set[int] = set()
    for node in ast.parse(source).body:
        name = getattr(node, "name", None) or (node.targets[0].id if isinstance(node, ast.Assign) else None)
        if name in parts:
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            inside |= set(range(start, node.end_lineno + 1))
    assert len(inside) > 50  # the four parts are found
    assert len(source.splitlines()) - len(inside) <= 60


def test_it_goes_through_the_batch_api_with_its_key_named_never_written(tmp_path, monkeypatch):
    monkeypatch.setenv("EMOBENCH_TEST_KEY", KEY)
    with FakeOpenAI(responder=reply, api_key=KEY) as url:
        argv = ["run", "--benchmark", "emobench", "--base-url", url, "--model", "fake-model", "--out", str(tmp_path),
                "--no-progress", "--limit", "6", "--batch", "--poll-interval", "0.02", "--api-key-env",
                "EMOBENCH_TEST_KEY"]  # fmt: skip
        rc, out, err = cli(*argv)
        again = cli(*argv)
    assert rc == 0 and again[0] == 0, err + again[2]
    path = tmp_path / "fake-model__emobench__x1-first6.jsonl"
    header = json.loads(path.read_text().splitlines()[0])
    assert header["batch"] is True and header["api_key_env"] == "EMOBENCH_TEST_KEY"
    assert KEY not in path.read_text() + out + err and "records    6 of 6 (0 answered now" in again[1]
    rc, out, err = cli("view", str(path), "--out", str(tmp_path / "v.html"), "--price-in", "2", "--price-out", "8")
    assert rc == 0 and KEY not in (tmp_path / "v.html").read_text()
