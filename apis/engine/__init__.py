"""Plain-Python engines of the API catalog: spec import, response normalization, the async executor,
function-schema export and drift checks. Nothing here imports Django."""
