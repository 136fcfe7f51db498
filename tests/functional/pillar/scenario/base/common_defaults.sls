timeout: 30
