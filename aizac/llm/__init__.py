"""The model layer: role -> model router, providers, structured output, usage, embeddings.

Public API (import from the submodules; nothing heavy is imported here):

- :class:`aizac.llm.router.ModelRouter` — ``model(role)``, ``structured``/``astructured``,
  ``stream``/``astream``, ``describe()``, ``usage``.
- :func:`aizac.llm.structured.generate_structured` / ``agenerate_structured``.
- :func:`aizac.llm.specs.parse_spec` -> :class:`aizac.llm.specs.ModelSpec`.
- :func:`aizac.llm.providers.build_chat_model`, ``check_usable``;
  :class:`aizac.llm.providers.local.ChatLocalLlama`.
- :class:`aizac.llm.usage.UsageLog`, ``UsageRecord``, ``UsageCallback``.
- :class:`aizac.llm.embeddings.HashingEmbeddings`, ``embeddings_from_spec``.
"""
