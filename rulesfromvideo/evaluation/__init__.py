"""Evaluation of rulesfromvideo outputs against simulator truth."""
