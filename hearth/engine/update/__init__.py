"""Stack update: the plan (pure decisions) and the run."""
