db:
  ports: [5432]
  host: db.internal
  creds:
    user: admin
app:
  version: 1
  name: {{ opts['id'] }}
list_items: [a, b]
seen_by_common: {{ pillar.get('from_json', 'absent') }}
