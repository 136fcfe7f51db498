broken:
  '*':
    - fine
    - missing_sls
    - bad_jinja
    - bad_yaml
