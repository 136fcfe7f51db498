# Every agent: defaults, and its own id (grains are the agent's).
app:
  greeting: Hello from Hearth
  agent: {{ grains['id'] }}
  log_level: info
  workers: 1
