"""The evaluation harness: datasets, runner, metrics and reports."""
