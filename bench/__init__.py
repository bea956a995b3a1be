"""Benchmark scripts, run as files (python bench/<name>.py); a package so that they share bench.questions and
type-check as one tree."""
