# Which pillar files each agent gets: common for every one, web for the
# agents whose grain role is web.
base:
  '*':
    - common
  'role:web':
    - match: grain
    - web
