"""The model layer: role -> model router, providers, structured output, usage, embeddings.

Public API (import from the submodules; nothing heavy is imported here):

- :class:`aizac.llm.router.ModelRouter` — ``model(role)``, ``structured``/``astructured``,
  ``stream``/``astream``, ``describe()``, ``usage``.
- :func:`aizac.llm.structured.generate_structured` / ``agenerate_structured``.
  ``check=`` joins a semantic validator to the validate -> repair loop; replies cut at the token
  limit are retried with more room (``AIZAC_STRUCTURED_MAX_TOKENS``).
- :mod:`aizac.llm.steps` — a loop written once as a generator core, run by a sync
  (:func:`~aizac.llm.steps.run`) or an async (:func:`~aizac.llm.steps.arun`) shell: the
  resilient model's call kinds, structured output's attempts and the writer's quality rounds.
- :func:`aizac.llm.embeddings.embedding_fingerprint` — what identifies stored vectors (memory and
  clichés refuse or rebuild under other embeddings).
- :func:`aizac.llm.runtime.run_sync` — the one way sync code runs async model work (one
  persistent event loop per process; never ``asyncio.run``).
- :func:`aizac.llm.specs.parse_spec` -> :class:`aizac.llm.specs.ModelSpec`.
- :mod:`aizac.llm.registry` — the provider table (one row per spec prefix);
  :func:`aizac.llm.providers.build` (model + :class:`~aizac.llm.profiles.ModelProfile`),
  ``build_chat_model``, ``check_usable``; :func:`aizac.llm.profiles.profile_of` answers what a
  model can do (structured method, small local model, streams, finish reasons, seeds).
- :class:`aizac.errors.IncompleteReplyError` — a stream without its end or a reply cut at the
  token limit (the resilient layer keeps ``finish_reason``).
- :class:`aizac.llm.usage.UsageLog`, ``UsageRecord``, ``UsageCallback``.
- :class:`aizac.llm.embeddings.HashingEmbeddings`, ``embeddings_from_spec``.
"""
