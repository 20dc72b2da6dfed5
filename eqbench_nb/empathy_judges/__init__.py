"""Kumar et al. (2025), "When large language models are reliable for judging empathic communication": three experts,
a crowd and three LLM judges on 200 conversations, 21 dimensions; the published agreement tables re-derived."""
