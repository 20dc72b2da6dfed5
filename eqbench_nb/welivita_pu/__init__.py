"""Welivita & Pu's study of empathetic responding (arXiv 2403.05572, 2406.05063): 2,000 EmpatheticDialogues prompts,
a human listener's and GPT-4's responses (plain and told a definition of empathy), each rated Good / Okay / Bad by
one of 600 raters; the published numbers re-derived from the study's own file."""
