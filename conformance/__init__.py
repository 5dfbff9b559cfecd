"""The conformance harness: checks, strategies, adapters, runner, reports, CLI and pytest plugin."""
