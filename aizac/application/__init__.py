"""The application service both front ends call: :class:`~aizac.application.service.
ApplicationService`.

The Gradio web app (:mod:`aizac.web`) and the REST API (:mod:`aizac.server`) translate their
input to its calls and its results to their output; it owns what both need over the writer's
projects: one write lock per project, version checks, cancellation, the undo tree, exports
and the admission of model generations. Nothing here knows a browser or HTTP.
"""
