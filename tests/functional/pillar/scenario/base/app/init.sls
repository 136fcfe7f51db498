include:
  - .extra
  - common_defaults:
      key: defaults:inner
db:
  ports: [6432]
  creds:
    password: s3cret
app:
  tier: web
