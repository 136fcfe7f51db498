# Agents with the grain role:web (merged over common).
app:
  log_level: warning
  workers: 4
