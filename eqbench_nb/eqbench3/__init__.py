"""EQ-Bench 3 (EQ-bench/eqbench3, MIT; eqbench.com's leaderboard since 2025): judged role-play, rubric and Elo.

The model under test plays emotionally charged scenarios over several turns (each turn answered in three sections:
what it thinks and feels, what the other person thinks and feels, its response), then debriefs out of character;
analysis tasks ask it to dissect a transcript instead. A judge model scores each finished task on a rubric (0-20 per
criterion; the counted criteria averaged, scaled to 0-100) and compares pairs of models' transcripts of the same
scenario in both orders; the plus signs of its verdicts become win fractions, pseudo-wins and a TrueSkill rating,
anchored so that ``o3`` is 1500 and ``meta-llama/llama-3.2-1b-instruct`` is 200.

Protocol, decision for decision (each module names the upstream functions it reproduces):

- **Tasks** (:mod:`.scenarios`): ``scenario_prompts.txt`` at ``3c21bcc`` has 46 scenario headers; upstream's parser
  reads a prompt only after ``####### PromptN``, and scenario 409's only prompt follows ``####### 1``, so 409 is
  dropped silently: 45 tasks (25 role-plays, 1 message drafting, 19 analysis), 92 turns, 26 debriefs.
- **The model under test** (:mod:`.prompts`): each turn in its kind's master prompt, after the whole conversation so
  far; temperature 0.7, ``min_p`` 0.1, 12,000 tokens; the debrief at temperature 0.5 without ``min_p``;
  ``<think>``/``<reasoning>`` taken off as upstream does (after the first closing tag, only when both tags are there).
- **Rubric** (:mod:`.rubric`): the transcript rebuilt from each reply's sections, ``*`` and ``#`` deleted, judge at
  temperature 0 and 8,000 tokens; 6 of the 18 role-play criteria count, all 6 analysis ones; score = the mean of
  task means rounded on 0-20, times 5.
- **Pairwise** (:mod:`.pairwise`) and **rating** (:mod:`.rating`): both orders, plus counts, the fraction and its
  blend, pseudo-wins, TrueSkill (the ``trueskill`` package, as upstream), sigma, the 1.96-sigma interval, the anchors,
  the rank window.
- **Scoring versions** (:mod:`.versions`): ``8c3a125`` (the first canonical results) and ``3c21bcc`` (HEAD) differ in
  the blend, the analysis clamp, the window, the pseudo-wins and the JSON reading; every result names its version.
- **Departures**, each said where it happens: a judgement whose reply does not parse is asked again (3 tries) and
  then recorded as an error with the judge's raw text and left out of the score (upstream tries once per run and
  records it silently); transport faults never cost an attempt; ``min_p`` is dropped (and recorded) where an endpoint
  refuses it.

- ``files``: the pinned upstream files (commits, sha256 or git blob ids), found or downloaded
- ``scenarios``: the tasks, parsed as upstream parses them; the judge's scenario notes
- ``prompts``: turns, debrief, sampling, reasoning removal, sections
- ``rubric``: the rubric prompt, the judge's scores, the 0-100 score
- ``judge_json``: reading the judge's JSON, per scoring version
- ``pairwise``: the pairwise prompt, plus counts, fractions, the analysis clamp
- ``rating``: pairing, pseudo-wins, the TrueSkill solve, anchors, window, intervals
- ``versions``: the two scoring versions
- ``canonical``: upstream's canonical Elo file, read and re-derived
- ``runs``: the run file's records (one per turn, debrief, rubric) and the pairwise judgements file
- ``steps``: the conversation (an async generator) and the judge steps over the runner's transport
- ``samples``: the run viewer's items: a run's per scenario and iteration, a judgements file's per pair
- ``site``: the site's EQ-Bench 3 and v2 leaderboards
- ``study``, ``plots``: notebook 10's analyses and plots
"""
