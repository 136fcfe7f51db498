# Which pillar files each agent gets: common for every one, web for the
# agents whose grain role is web, as the master records it: the grains the
# cloud profile (and, on your own engine, the stack) gave the machine when
# it was made, never what an agent reports about itself.
base:
  '*':
    - common
  'role:web':
    - match: grain
    - web
