"""Autopilot: a durable chapter workflow that writes, checks, reviews and rewrites episodes.

Control flow is code (``routing.route`` is a pure function of stored facts); models only write
and judge. Every node is a resumable LangGraph step checkpointed in the project folder.
"""
