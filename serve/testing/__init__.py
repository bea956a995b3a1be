"""Test and benchmark helpers. Nothing in the product imports this package: the server only uses what is
here when a benchmark or a test starts it through `python -m serve.testing.server`."""
