"""Utils package."""
