role: database
