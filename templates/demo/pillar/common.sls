# Every agent: defaults, and its own id (Jinja renders each file per agent).
app:
  greeting: Hello from Hearth
  agent: "{{ opts['id'] }}"
  log_level: info
  workers: 1
