"""The viewer's contract speaks no benchmark's words (issue 45): its common columns are ``groups`` and ``miss``, not
EQ-Bench's ``emotion_names`` and ``largest_error``; EQ-Bench's own frame keeps ``largest_error`` as its alias of
``miss`` (notebook 01 selects it), shown once in the viewer, by that word."""

import re

import pytest
from conftest import ROOT

from eqbench_nb.viewer.contract import COMMON_COLUMNS, FRAME_ATTRS, FrameSchema

V2_RUN = ROOT / "data" / "runs" / "SmolLM2-135M-Instruct__v2__official-t0.7-x3-all.jsonl"


def test_the_common_columns_and_attrs_name_no_benchmarks_words():
    words = re.compile(r"emotion|error|question|situation|scenario|rubric")
    assert {"groups", "miss"} <= set(COMMON_COLUMNS)
    assert not [c for c in (*COMMON_COLUMNS, *FRAME_ATTRS) if words.search(c)]


def test_eqbench_keeps_largest_error_as_its_alias_of_miss_and_the_viewer_shows_it_once():
    from eqbench_nb import samples
    from eqbench_nb.viewer.payload import viewer_payload

    items = samples(str(V2_RUN))
    assert items.attrs["aliases"] == (("largest_error", "miss"),) and list(items.columns)[-1] == "largest_error"
    assert items["largest_error"].equals(items["miss"]) and items["miss"].notna().sum() > 100
    run = viewer_payload([str(V2_RUN)])["runs"][0]
    assert run["facts"].count("largest error") == 1 and "miss" not in run["facts"]  # once, by EQ-Bench's word
    assert "largest error" in [t["label"] for t in run["table"]]  # its table keeps its heading
    errors = [i["error"] for i in run["items"]]
    assert errors == [None if v != v else v for v in items["miss"]]


def test_an_alias_must_name_a_common_column_and_no_column_of_its_own():
    with pytest.raises(ValueError, match="aliases columns that are not common: answer"):
        FrameSchema("toy", ("answer",), (), "answer", "error", aliases=(("reply", "answer"),))
    with pytest.raises(ValueError, match="declares its alias answer as a column too"):
        FrameSchema("toy", ("answer",), (), "answer", "error", aliases=(("answer", "miss"),))
    schema = FrameSchema("toy", ("answer",), (("gap", "gap", "num"),), "answer", "gap", aliases=(("gap", "miss"),))
    row = dict.fromkeys(COMMON_COLUMNS) | {"answer": "A", "miss": 2.0}
    frame = schema.frame([row])
    assert list(frame.columns) == list(schema.all_columns) == [*COMMON_COLUMNS, "answer", "gap"]
    assert frame.loc[0, "gap"] == 2.0
    with pytest.raises(ValueError, match="lacks none; undeclared: gap"):  # the frame fills an alias, never a row
        schema.frame([row | {"gap": 2.0}])
