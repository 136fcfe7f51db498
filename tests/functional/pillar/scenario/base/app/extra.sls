app:
  tier: extra-loses
  extra: true
