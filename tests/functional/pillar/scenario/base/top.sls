base:
  '*':
    - common
  'web*':
    - app
  'web1,web2':
    - match: list
    - listed
  '^db\d+$':
    - match: pcre
    - dbonly
