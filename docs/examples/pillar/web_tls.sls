app:
  tls_key: not-a-real-key
