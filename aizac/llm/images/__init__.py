"""Image models for the ``image`` role: covers and scene illustrations.

:mod:`~aizac.llm.images.base` (requests, results, errors), :mod:`~aizac.llm.images.registry`
(the provider table), :mod:`~aizac.llm.images.specs` (spec strings), one adapter module per
provider (``typographic`` offline with Pillow, ``openai_images``, ``sdwebui``, ``comfyui``) and
:mod:`~aizac.llm.images.resilient` (retries and usage). Nothing heavy is imported here.
"""
