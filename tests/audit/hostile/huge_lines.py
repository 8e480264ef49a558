"""Answers every request correctly, but each answer is a single 20 MB line."""

import tiny

tiny.serve(pad=20 * 1024 * 1024)
