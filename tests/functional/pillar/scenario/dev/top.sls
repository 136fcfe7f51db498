dev:
  '*':
    - devonly
