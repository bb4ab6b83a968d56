"""Revisions, one branch per concern (``<concern>@head``)."""
