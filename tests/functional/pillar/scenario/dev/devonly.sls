dev_flag: true
db:
  dev_host: dev.internal
