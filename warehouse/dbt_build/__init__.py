"""Calling dbt: in-process invocation, the parse cache, build selections, skipping unchanged builds."""
