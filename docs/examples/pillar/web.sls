include:
  - .web_tls
app:
  port: 8080
  workers: {{ grains.get('num_cpus', 1) * 2 }}
