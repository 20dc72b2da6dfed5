"""EmotionBench (Huang et al., arXiv 2308.03656; NeurIPS 2024; CUHK-ARISE/EmotionBench): the PANAS test.

The model reports its own feelings on the 20 PANAS items, first with no situation (the default), then after
imagining each of 175 situations that evoke eight negative emotions; its change is set beside what 1,266 people
reported. EmotionBench is GPL-3.0 plus "research use only", and its items carry their authors' copyright: every
file is read at run time (:mod:`.files`), nothing of it is committed or packaged.

- ``files``: finding and verifying the upstream files (pinned commits, sha256)
- ``items``: the PANAS questionnaire and the 175 situations
- ``prompts``: the messages, byte for byte as upstream builds them
- ``parsing``: reading the ratings (this project's reader and upstream's), never raising
- ``scoring``: the paper's test: F-test, then Student's or Welch's t, α = 0.01
- ``runs``: the run file's records and header
- ``summary``: one run in a few numbers, and its paper table
- ``sheets``: the published test sheets and leaderboard, rescored
- ``humans``: the 1,266 people of ``crowd.xlsx``: norms per situation, factor, emotion
- ``alignment``: this project's analysis: model changes against human changes
- ``task``: :func:`run_emotionbench`: the PANAS test on the generic runner
"""
