"""What the gateway and the ingest worker both need to know about an uploaded file."""
