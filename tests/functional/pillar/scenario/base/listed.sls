listed: true
list_items: [c]
seen_common_host: {{ pillar.get('db', {}).get('host', 'absent') }}
