base:
  '*':
    - common
  'G@role:web':
    - web
